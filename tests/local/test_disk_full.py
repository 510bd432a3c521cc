"""A full disk (a real one: a 2 MiB tmpfs holding the job's home) during a run.

The supervisor survives it, keeps the job's true outcome, leaves no temporary file, and
`jobs list` / `status` keep working while the disk is still full. Mounting needs root (or a
user namespace); without it the tests are skipped, saying so.
"""

from __future__ import annotations

import errno
import json
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from provider.backends.base import FailedPrecondition
from provider.backends.local import store
from provider.backends.local.backend import LocalBackend
from tests.conftest import no_traceback, run_cli
from tests.local.conftest import cleanup, probe_spec, submit

DEADLINE = 120.0


def _mount(size: str) -> Path | None:
    where = Path(tempfile.mkdtemp(prefix="trainjobs-full-"))
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(where)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        where.rmdir()
        return None
    return where


@pytest.fixture
def small_disk() -> Iterator[Path]:
    where = _mount("2m")
    if where is None:
        pytest.skip("cannot mount a tmpfs here (needs root): the full-disk tests need a real small disk")
    try:
        yield where
    finally:
        for _ in range(50):
            if subprocess.run(["umount", str(where)], capture_output=True, check=False).returncode == 0:
                break
            time.sleep(0.1)  # a process of the job may still be letting go of it
        where.rmdir()


@pytest.fixture
def full_backend(small_disk: Path, env_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalBackend]:
    monkeypatch.setenv("TRAINJOBS_HOME", str(small_disk / "home"))
    monkeypatch.setenv("TRAINJOBS_ENV_CACHE", str(env_cache))  # the installed trainer lives elsewhere
    monkeypatch.setenv("TRAINJOBS_LOCAL_GPUS", "none")
    monkeypatch.delenv("TRAINJOBS_STORAGE", raising=False)
    monkeypatch.delenv("TRAINJOBS_LOCAL_GPU_MODE", raising=False)
    b = LocalBackend()
    try:
        yield b
    finally:
        cleanup(b)


def fill(path: Path) -> int:
    """Write ``path`` until the disk refuses; the errno it refused with."""
    refused = 0
    with open(path, "wb", buffering=0) as f:
        for size in (65536, 4096, 1):
            try:
                while True:
                    f.write(b"\0" * size)
            except OSError as exc:
                refused = exc.errno or 0
    return refused


def wait_terminal(backend: LocalBackend, job_id: str) -> dict[str, object]:
    path = backend.store.job_dir(job_id) / "state.json"
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        state = store.read_json(path) or {}
        sup = state.get("supervisor")
        if state.get("state") in store.TERMINAL and not store.alive(sup if isinstance(sup, dict) else None):
            return state
        time.sleep(0.1)
    raise AssertionError(f"the job did not end within {DEADLINE:g}s: {store.read_json(path)}")


@pytest.mark.slow
def test_a_job_that_fills_the_disk_keeps_its_true_outcome(full_backend: LocalBackend, small_disk: Path) -> None:
    job = submit(full_backend, probe_spec("fills_the_disk", args=["--fill-disk"]))
    state = wait_terminal(full_backend, job.id)  # read directly: no reader marks anything
    assert state["state"] == "SUCCEEDED", state  # the chief exited 0: that is the outcome, not "supervisor died"
    job_dir = full_backend.store.job_dir(job.id)
    assert not [p for p in job_dir.rglob("*.tmp")], "temporary files were left behind"
    assert not (job_dir / ".reserve").exists()
    log = (job_dir / "supervisor.log").read_text(errors="replace")
    assert "Traceback" not in log, log

    # Fill what the job gave back (its reserve): listing and status still work, read only.
    assert fill(small_disk / "more") == errno.ENOSPC
    env = {"TRAINJOBS_HOME": str(small_disk / "home")}
    listed = run_cli("jobs", "list", env=env)
    no_traceback(listed)
    assert listed.returncode == 0 and "fills_the_disk" in listed.stdout and "SUCCEEDED" in listed.stdout, listed
    status = run_cli("status", job.id, "--format", "json", env=env)
    no_traceback(status)
    assert status.returncode == 0 and json.loads(status.stdout)["state"] == "SUCCEEDED", status.stderr


@pytest.mark.slow
def test_submitting_on_a_full_disk_is_one_clear_refusal(full_backend: LocalBackend, small_disk: Path) -> None:
    first = submit(full_backend, probe_spec("filler", args=["--fill-disk"]))
    assert wait_terminal(full_backend, first.id)["state"] == "SUCCEEDED"
    assert fill(small_disk / "more") == errno.ENOSPC
    with pytest.raises(FailedPrecondition) as exc:
        submit(full_backend, probe_spec("filler", args=["--steps", "2"]))  # same package: already staged
    assert "disk full" in exc.value.message and "nothing was started" in exc.value.message
    assert [j.id for j in full_backend.list()] == [first.id]  # no half-made job
    assert not [p for p in full_backend.store.jobs.rglob("*.tmp")]
