"""Fixtures for local-backend tests: a private home per test, real processes, nothing left behind."""

from __future__ import annotations

import copy
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from provider.backends.base import JobStatus, Submission
from provider.backends.local import store
from provider.backends.local.backend import LocalBackend
from provider.packaging.stage import LocalStager
from provider.submission.launch import prepare, submission
from provider.validation.rules import Context, Target
from provider.validation.validator import validate_data

ROOT = Path(__file__).resolve().parents[2]
PROBE = ROOT / "tests" / "fixtures" / "trainers" / "probe" / "probe"
EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-4.py310:latest"


@pytest.fixture
def backend(tmp_path: Path, env_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalBackend]:
    monkeypatch.setenv("TRAINJOBS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TRAINJOBS_ENV_CACHE", str(env_cache))
    monkeypatch.delenv("TRAINJOBS_STORAGE", raising=False)
    monkeypatch.setenv("TRAINJOBS_LOCAL_GPUS", "none")
    monkeypatch.delenv("TRAINJOBS_LOCAL_GPU_MODE", raising=False)
    b = LocalBackend()
    yield b
    cleanup(b)


def cleanup(b: LocalBackend) -> None:
    """Cancel what is still running and make sure no supervisor or replica survives the test."""
    for job in b.list():
        if not job.state.terminal:
            b.cancel(job.id, wait=15)
    for job_id in b.store.ids():
        try:
            state = store.read_json(b.store.job_dir(job_id) / "state.json") or {}
        except store.Unreadable:
            continue  # a test broke it on purpose
        sup = state.get("supervisor")
        deadline = time.time() + 10
        while store.alive(sup) and time.time() < deadline:
            time.sleep(0.05)
        if store.alive(sup):
            os.kill(sup["pid"], signal.SIGKILL)
            raise AssertionError(f"supervisor of {job_id} still alive after the test")
        for r in state.get("replicas", []):
            if r.get("pid") and store.process_start(r["pid"]) is not None:
                store.kill_group(r["pid"], signal.SIGKILL)
                raise AssertionError(f"replica {r['name']} of {job_id} still alive after the test")


def local_home(tmp_path: Path, env_cache: Path, **extra: str) -> Iterator[dict[str, str]]:
    """For a fixture: the environment of a private TRAINJOBS_HOME (CPU only, the run's environment
    cache, and ``extra``) for CLI runs; afterwards no job it started is left running."""
    env = {"TRAINJOBS_HOME": str(tmp_path / "home"), "TRAINJOBS_ENV_CACHE": str(env_cache),
           "TRAINJOBS_LOCAL_GPUS": "none", **extra}
    yield env
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        cleanup(LocalBackend())
    finally:
        os.environ.clear()
        os.environ.update(saved)


def probe_spec(name: str = "probe_job", *, workers: int = 0, ps: int = 0, evaluators: int = 0, args: list[str] | None = None,
               gpus: tuple[int, int, int, int] = (0, 0, 0, 0), machine: str = "n1-standard-8",
               scheduling: dict[str, Any] | None = None, tuning: dict[str, Any] | None = None,
               output: str = "gs://test-bucket/out") -> dict[str, Any]:
    def pool(replicas: int, g: int) -> dict[str, Any]:
        p: dict[str, Any] = {"machineType": machine, "replicas": replicas}
        if g:
            p["accelerator"] = {"type": "NVIDIA_TESLA_T4", "count": g}
        return p

    pools: dict[str, Any] = {"chief": {k: v for k, v in pool(1, gpus[0]).items() if k != "replicas"}}
    for key, n, g in (("workers", workers, gpus[1]), ("parameterServers", ps, gpus[2]), ("evaluators", evaluators, gpus[3])):
        if n:
            pools[key] = pool(n, g)
    spec: dict[str, Any] = {
        "region": "us-central1",
        "workerPools": pools,
        "application": {"pythonPackage": {"path": str(PROBE), "module": "probe.task", "executorImage": EXECUTOR}},
        "args": list(args or []),
        "baseOutputDirectory": output,
        "stagingBucket": "gs://test-bucket",
    }
    if scheduling:
        spec["scheduling"] = scheduling
    if tuning:
        spec["hyperparameters"] = tuning
    return {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": name}, "spec": spec}


def submit(b: LocalBackend, doc: dict[str, Any], cpu_only: bool = False, max_wait: float | None = None,
           labels: dict[str, str] | None = None) -> JobStatus:
    result = validate_data(copy.deepcopy(doc), "spec", Context(target=Target.LOCAL))
    job = result.job
    assert job is not None, result.problems
    request = prepare(job, ROOT, project="test", stager=LocalStager(b.storage), labels=labels,
                      check=lambda r: b.check(submission(job, r, cpu_only=cpu_only)))
    sub = submission(job, request, cpu_only=cpu_only)
    if max_wait is not None:
        sub = Submission(request=sub.request, max_wait_seconds=max_wait, cpu_only=cpu_only)
    return b.submit(sub)


def pid_alive(pid: int | None) -> bool:
    return pid is not None and store.process_start(pid) is not None
