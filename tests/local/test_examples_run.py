"""The local example specs run end to end, as real training."""

from __future__ import annotations

from pathlib import Path

from provider.backends.base import JobState
from provider.backends.local.backend import LocalBackend
from provider.backends.log_line import stream
from provider.packaging.stage import LocalStager
from provider.submission.launch import prepare, submission
from provider.validation.rules import Context, Target
from provider.validation.validator import validate_bytes

from .conftest import ROOT


def run_spec(backend: LocalBackend, name: str, timeout: float = 600):  # type: ignore[no-untyped-def]
    path = ROOT / "specs" / "local" / name
    result = validate_bytes(path.read_bytes(), str(path), Context(target=Target.LOCAL, spec_dir=path.parent))
    assert result.ok and result.job is not None, result.problems
    request = prepare(result.job, path.parent, "local", LocalStager(backend.storage))
    return backend.wait(backend.submit(submission(result.job, request)).id, timeout=timeout)


def test_multiworker_ddp_trains_data_parallel_across_three_replicas(backend: LocalBackend) -> None:
    job = run_spec(backend, "ddp_multiworker.yaml")
    assert job.state is JobState.SUCCEEDED, job.error
    logs = "\n".join(line.text() for line in stream(backend, job.id))
    assert "[workerpool0-0] rank 0 of 3" in logs
    assert "[workerpool1-0] rank 1 of 3" in logs and "[workerpool1-1] rank 2 of 3" in logs
    assert "[workerpool0-0] parameters in sync across 3 replicas" in logs
    # A clean shutdown: no replica aborted at exit, none failed or was restarted (the others end
    # SUCCEEDED, or are stopped if the chief's exit is seen before theirs).
    assert "terminate called" not in logs and job.restarts == 0
    assert all(r.state in ("succeeded", "stopped") and r.restarts == 0 for r in job.replicas), job.replicas
    losses = [float(line.split("loss=")[1].split()[0]) for line in logs.splitlines() if "] epoch " in line]
    assert len(losses) == 3 and losses[-1] < losses[0]  # it learns
    model = Path(backend.storage.root) / "local-bucket" / "jobs" / "local_ddp_multiworker" / "model" / "model.pt"
    assert model.is_file()
    metrics = backend.store.job_dir(job.id) / "metrics" / "job" / "workerpool0-0.metrics"
    assert '"loss"' in metrics.read_text()  # reported the way cloudml-hypertune does


def test_local_tuning_example(backend: LocalBackend) -> None:
    job = run_spec(backend, "hptune.yaml")
    assert job.state is JobState.SUCCEEDED, job.error
    assert len(job.trials) == 6 and job.best_trial is not None
    best = next(t for t in job.trials if t.id == job.best_trial)
    assert best.metric == min(t.metric for t in job.trials if t.metric is not None)  # goal MINIMIZE
