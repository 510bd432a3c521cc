"""What fails a local job, what is restarted, and what dies with a replica (README, "Process semantics").

Real trainers (tests/local/trainers/family) that abort, are killed from outside, and leave children,
setsid grandchildren and double-forked daemons; every wait is a poll with a generous deadline.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from provider.backends.base import JobState, JobStatus
from provider.backends.local import replicas, store
from provider.backends.local.backend import JobUnreadable, LocalBackend

from .conftest import ROOT, pid_alive, probe_spec, submit

pytestmark = pytest.mark.slow

DEADLINE = 180.0  # generous: the machine may be loaded
FAMILY = ROOT / "tests" / "local" / "trainers" / "family" / "family"
SLOWBUILD = ROOT / "tests" / "local" / "trainers" / "slowbuild" / "slowbuild"


def poll(check: Callable[[], Any], what: str, timeout: float = DEADLINE) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {what}")
        time.sleep(0.1)


def family_spec(dump: Path, *args: str, workers: int = 0, package: Path = FAMILY,
                scheduling: dict[str, Any] | None = None) -> dict[str, Any]:
    doc = probe_spec(workers=workers, args=["--dump", str(dump), *args], scheduling=scheduling)
    doc["spec"]["application"]["pythonPackage"].update(path=str(package), module=f"{package.name}.task")
    return doc


def starts(dump: Path, replica: str) -> list[tuple[int, float]]:
    path = dump / f"{replica}.starts"
    lines = path.read_text().split("\n") if path.exists() else []
    return [(int(pid), float(at)) for pid, at in (line.split() for line in lines if line.strip())]


def family(dump: Path, replica: str) -> dict[str, int]:
    path = dump / f"{replica}.family"
    return json.loads(path.read_text()) if path.exists() else {}


def state_file(b: LocalBackend, job_id: str) -> dict[str, Any]:
    """The state as the supervisor wrote it, read directly so that no reader acts on the job."""
    try:
        return store.read_json(b.store.job_dir(job_id) / "state.json") or {}
    except store.Unreadable:
        return {}


def finished(b: LocalBackend, job_id: str) -> JobStatus:
    def ended() -> JobStatus | None:
        try:
            job = b.get(job_id)
        except JobUnreadable:
            return None
        return job if job.state.terminal else None
    return poll(ended, f"job {job_id} to end")  # type: ignore[no-any-return]


def ppid(pid: int) -> int:
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        return int(f.read().rsplit(")", 1)[1].split()[1])


def test_a_trainer_that_aborts_itself_fails_the_job_and_is_not_restarted(backend: LocalBackend,
                                                                        tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    job = finished(backend, submit(backend, family_spec(dump, "--steps", "5", "--abort-at-step", "2")).id)
    assert job.state is JobState.FAILED, job
    assert "workerpool0-0 (chief 0) died of its own signal SIGABRT (6)" in (job.error or ""), job.error
    assert "not restarted" in (job.error or "") and "aborting at step 2" in (job.error or "")  # its last lines
    assert job.restarts == 0 and [r.restarts for r in job.replicas] == [0]
    assert len(starts(dump, "workerpool0-0")) == 1  # it ran once


def test_a_replica_killed_from_outside_is_restarted_with_backoff_at_most_max_restarts_times(
        backend: LocalBackend, tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    job = submit(backend, family_spec(dump, "--steps", "100000", "--step-seconds", "0.05"))
    for kill in range(replicas.MAX_RESTARTS + 1):
        poll(lambda n=kill + 1: len(starts(dump, "workerpool0-0")) == n, f"start {kill + 1}")  # type: ignore[misc]
        # the machine going away: SIGTERM (preemption) once, SIGKILL otherwise
        os.kill(starts(dump, "workerpool0-0")[-1][0], signal.SIGTERM if kill == 1 else signal.SIGKILL)
    job = finished(backend, job.id)
    assert job.state is JobState.FAILED, job
    assert f"killed from outside (SIGKILL) after {replicas.MAX_RESTARTS} restarts" in (job.error or ""), job.error
    assert job.restarts == replicas.MAX_RESTARTS
    times = [at for _, at in starts(dump, "workerpool0-0")]
    assert len(times) == replicas.MAX_RESTARTS + 1  # no start after the last kill
    # Each replacement started no sooner than its backoff after the kill before it: 1, 2, 4, 8, 16 s.
    delays = [min(replicas.BACKOFF_MAX, replicas.BACKOFF_FIRST * 2 ** n) for n in range(replicas.MAX_RESTARTS)]
    assert all(later - earlier >= delay for earlier, later, delay in zip(times, times[1:], delays)), (times, delays)
    log = (backend.store.job_dir(job.id) / "supervisor.log").read_text()
    assert "killed from outside (SIGTERM)" in log and f"in {delays[-1]:g}s (restart {replicas.MAX_RESTARTS} of" in log


def test_nothing_is_restarted_after_the_chief_succeeded(backend: LocalBackend, tmp_path: Path) -> None:
    """The chief kills a worker from outside and at once exits 0: the job succeeds, the worker stays down."""
    dump = tmp_path / "dump"
    doc = family_spec(dump, "--steps", "3", "--kill-at-end", "workerpool1-0", workers=1)
    doc["spec"]["workerPools"]["workers"]["args"] = ["--dump", str(dump), "--steps", "100000", "--step-seconds", "0.05"]
    job = finished(backend, submit(backend, doc).id)
    assert job.state is JobState.SUCCEEDED, job.error
    time.sleep(replicas.BACKOFF_FIRST + 1)  # past the first backoff: a restart would have happened by now
    assert len(starts(dump, "workerpool1-0")) == 1
    assert {r.name: r.restarts for r in job.replicas} == {"workerpool0-0": 0, "workerpool1-0": 0}


def test_a_restarted_replica_leaves_no_process_behind(backend: LocalBackend, tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    job = submit(backend, family_spec(dump, "--family", "--steps", "100000", "--step-seconds", "0.05"))
    first = poll(lambda: family(dump, "workerpool0-0"), "the first family")
    assert all(pid_alive(p) for p in first.values()), first
    assert ppid(first["daemon"]) != starts(dump, "workerpool0-0")[0][0]  # re-parented: no longer its replica's
    os.kill(starts(dump, "workerpool0-0")[0][0], signal.SIGKILL)
    poll(lambda: (dump / "workerpool0-0.alive-at-start-2").exists(), "the replacement to start")
    seen = json.loads((dump / "workerpool0-0.alive-at-start-2").read_text())
    assert seen == {}, f"still alive when the replacement started: {seen}"
    assert not any(pid_alive(p) for p in first.values())
    second = poll(lambda: family(dump, "workerpool0-0") != first and family(dump, "workerpool0-0"), "the new family")
    backend.cancel(job.id, wait=DEADLINE)
    poll(lambda: not any(pid_alive(p) for p in second.values()), "the second family to die with the job")


def test_killing_the_supervisor_and_its_reaper_leaves_no_process_and_no_running_job(
        backend: LocalBackend, tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    job = submit(backend, family_spec(dump, "--family", "--steps", "100000", "--step-seconds", "0.05"))
    kin = poll(lambda: family(dump, "workerpool0-0"), "the family")
    sup = poll(lambda: state_file(backend, job.id).get("supervisor"), "the supervisor's pid")["pid"]
    reaper = ppid(sup)
    replica = starts(dump, "workerpool0-0")[0][0]
    everyone = [replica, *kin.values()]
    os.kill(reaper, signal.SIGKILL)
    os.kill(sup, signal.SIGKILL)
    done = finished(backend, job.id)  # the first status read after their death records the end
    assert done.state is JobState.FAILED and f"the supervisor (pid {sup}) died" in (done.error or ""), done
    poll(lambda: not any(pid_alive(p) for p in everyone), "every process of the job to die")


def test_killing_the_reaper_alone_is_no_cancel_and_the_job_goes_on(backend: LocalBackend, tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    job = submit(backend, family_spec(dump, "--steps", "40", "--step-seconds", "0.1"))
    poll(lambda: starts(dump, "workerpool0-0"), "the replica to start")
    sup = poll(lambda: state_file(backend, job.id).get("supervisor"), "the supervisor's pid")["pid"]
    os.kill(ppid(sup), signal.SIGKILL)
    done = finished(backend, job.id)
    assert done.state is JobState.SUCCEEDED and done.error is None, done
    assert "the job's reaper died; the job goes on" in (backend.store.job_dir(job.id) / "supervisor.log").read_text()


def test_a_stop_signal_to_the_supervisor_is_said_as_such(backend: LocalBackend, tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    job = submit(backend, family_spec(dump, "--steps", "100000", "--step-seconds", "0.05"))
    poll(lambda: starts(dump, "workerpool0-0"), "the replica to start")
    sup = poll(lambda: state_file(backend, job.id).get("supervisor"), "the supervisor's pid")["pid"]
    os.kill(sup, signal.SIGTERM)
    done = finished(backend, job.id)
    assert done.state is JobState.CANCELLED, done
    assert "received SIGTERM, not a cancel request" in (done.error or "") and "by request" not in (done.error or "")


def test_a_cancel_during_the_environment_build_ends_the_job_promptly(
        backend: LocalBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pidfile = tmp_path / "build.pids"
    monkeypatch.setenv("SLOWBUILD_PIDFILE", str(pidfile))  # reaches pip's build through the supervisor
    job = submit(backend, family_spec(tmp_path / "dump", package=SLOWBUILD))
    poll(pidfile.exists, "pip to build the package (it then sleeps for an hour)")
    builders = [int(p) for p in pidfile.read_text().split()]
    # A second job of the same package waits for the first one's build (the layer's lock).
    second = submit(backend, family_spec(tmp_path / "dump2", package=SLOWBUILD))
    poll(lambda: backend.get(second.id).state is JobState.PENDING, "the second job to wait for the build")
    for waiting in (second, job):
        assert backend.get(waiting.id).state is JobState.PENDING
        backend.request_cancel(backend.get(waiting.id))
        done = poll(lambda w=waiting: (j := backend.get(w.id)).state.terminal and j, "the cancel", timeout=120)
        assert done.state is JobState.CANCELLED, done
        assert "cancelled by request while its environment was being built" in (done.error or ""), done.error
    poll(lambda: not any(pid_alive(p) for p in builders), "pip's build to be killed")
    assert [int(p) for p in pidfile.read_text().split()] == builders  # the second job never built it


def test_a_record_broken_while_the_job_runs_keeps_its_outcome(backend: LocalBackend, tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    job = submit(backend, family_spec(dump, "--steps", "30", "--step-seconds", "0.1"))
    poll(lambda: starts(dump, "workerpool0-0"), "the replica to start")
    job_dir = backend.store.job_dir(job.id)
    (job_dir / "job.json").write_bytes(b'{"kind": "Cust')
    (job_dir / "state.json").write_bytes(b"")
    done = finished(backend, job.id)
    assert done.state is JobState.SUCCEEDED, done
    assert done.display_name == "probe_job" and done.replicas[0].state == "succeeded"
    assert "restored it" in (job_dir / "supervisor.log").read_text()


def test_a_refused_submit_stages_and_writes_nothing(backend: LocalBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    from provider.backends.base import FailedPrecondition

    monkeypatch.setenv("TRAINJOBS_LOCAL_GPUS", "0")
    with pytest.raises(FailedPrecondition, match="needs 2 GPU"):
        submit(backend, probe_spec(workers=1, gpus=(1, 1, 0, 0)))
    staged = [p for p in backend.storage.root.rglob("*") if p.is_file()] if backend.storage.root.exists() else []
    assert staged == []
    assert backend.store.ids() == []
