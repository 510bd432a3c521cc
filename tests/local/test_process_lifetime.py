"""Every process a job starts dies with the job, with nobody watching (no trainjobs command runs)."""

from __future__ import annotations

import os
import signal
import stat
import time
from pathlib import Path

import pytest

from provider.backends.base import JobState
from provider.backends.local import store
from provider.backends.local.backend import LocalBackend
from tests.local.conftest import pid_alive, probe_spec, submit

DEADLINE = 120.0  # generous: the machine may be loaded


def poll(check: object, what: str, timeout: float = DEADLINE) -> None:
    assert callable(check)
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {what}")
        time.sleep(0.1)


def spawned(dump: Path, replica: str) -> list[int]:
    path = dump / f"{replica}.children"
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def job_state(backend: LocalBackend, job_id: str) -> dict[str, object]:
    """The state file as it is: read directly, so that no trainjobs code acts on the job."""
    return store.read_json(backend.store.job_dir(job_id) / "state.json") or {}


@pytest.mark.slow
def test_a_killed_supervisor_takes_every_process_of_the_job_with_it(backend: LocalBackend, tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    args = ["--dump", str(dump), "--spawn", "3", "--steps", "100000", "--step-seconds", "0.05"]
    job = submit(backend, probe_spec(workers=1, args=args))
    poll(lambda: len(spawned(dump, "workerpool0-0")) == 4 and len(spawned(dump, "workerpool1-0")) == 4,
         "the replicas to start their children")
    state = job_state(backend, job.id)
    sup = state["supervisor"]
    assert isinstance(sup, dict)
    replicas = [int(r["pid"]) for r in state["replicas"]]  # type: ignore[union-attr]
    family = replicas + spawned(dump, "workerpool0-0") + spawned(dump, "workerpool1-0")
    assert all(pid_alive(p) for p in family)

    os.kill(int(sup["pid"]), signal.SIGKILL)
    poll(lambda: not any(pid_alive(p) for p in family), "every process of the job to die")
    # The job's end was recorded by the job itself (its reaper), still with no command run.
    poll(lambda: job_state(backend, job.id).get("state") == "FAILED", "the job to be marked FAILED")
    assert "the supervisor" in str(job_state(backend, job.id)["error"])


@pytest.mark.slow
def test_children_left_behind_by_a_finished_replica_die_when_the_job_ends(backend: LocalBackend,
                                                                         tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    job = submit(backend, probe_spec(args=["--dump", str(dump), "--spawn", "2", "--steps", "3"]))
    done = backend.wait(job.id, timeout=DEADLINE)
    assert done.state is JobState.SUCCEEDED, done.error
    children = spawned(dump, "workerpool0-0")
    assert len(children) == 3
    poll(lambda: not any(pid_alive(p) for p in children), "the replica's children to die")


@pytest.mark.slow
def test_a_run_leaves_only_private_files(backend: LocalBackend, tmp_path: Path) -> None:
    job = backend.wait(submit(backend, probe_spec(args=["--steps", "2"])).id, timeout=DEADLINE)
    assert job.state is JobState.SUCCEEDED, job.error
    job_dir = backend.store.job_dir(job.id)
    for path in [job_dir, *job_dir.rglob("*")]:
        if path.is_relative_to(job_dir / "work"):
            continue  # what the trainer itself writes keeps its own modes (inside a 0700 dir)
        mode = stat.S_IMODE(path.lstat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))
