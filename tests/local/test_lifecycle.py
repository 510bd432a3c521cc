"""The job lifecycle, with real processes: failure, cancel, timeouts, crashes, restarts, concurrency."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from provider.backends.base import FailedPrecondition, JobState
from provider.backends.local import store
from provider.backends.local.backend import LocalBackend
from provider.backends.log_line import stream

from .conftest import pid_alive, probe_spec, submit


def wait_for(predicate, timeout: float = 60.0, what: str = "condition"):  # type: ignore[no-untyped-def]
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def running(b: LocalBackend, job_id: str, replicas: int) -> bool:
    job = b.get(job_id)
    return job.state is JobState.RUNNING and sum(r.state == "running" for r in job.replicas) == replicas


def test_states_go_queued_pending_running_succeeded(backend: LocalBackend) -> None:
    job = submit(backend, probe_spec(args=["--steps", "6", "--step-seconds", "0.2"]))
    assert job.state in (JobState.QUEUED, JobState.PENDING)
    seen = {job.state}
    while not job.state.terminal:
        job = backend.get(job.id)
        seen.add(job.state)
        time.sleep(0.02)
    assert job.state is JobState.SUCCEEDED and JobState.RUNNING in seen
    assert job.create_time and job.start_time and job.end_time and job.error is None


def test_a_failing_replica_fails_the_job_and_stops_the_others(backend: LocalBackend) -> None:
    args = ["--steps", "200", "--step-seconds", "0.05", "--fail-replica", "workerpool1-1", "--fail-step", "3",
            "--exit-code", "7"]
    job = backend.wait(submit(backend, probe_spec(workers=2, ps=1, args=args)).id, timeout=120)
    assert job.state is JobState.FAILED
    assert "workerpool1-1 (worker 1) exited with code 7" in (job.error or "")
    assert "failing on purpose at step 3" in (job.error or "")  # its last log lines
    states = {r.name: r.state for r in job.replicas}
    assert states["workerpool1-1"] == "failed"
    assert states["workerpool0-0"] == "stopped" and states["workerpool2-0"] == "stopped"
    assert not any(pid_alive(r.pid) for r in job.replicas)


def test_the_chief_decides_success_and_the_rest_are_stopped(backend: LocalBackend) -> None:
    """A parameter server never exits on its own; the job ends when the chief does."""
    doc = probe_spec(ps=1, args=["--steps", "2"])
    doc["spec"]["workerPools"]["parameterServers"]["args"] = ["--steps", "100000", "--step-seconds", "0.05"]
    job = backend.wait(submit(backend, doc).id, timeout=120)
    assert job.state is JobState.SUCCEEDED
    assert {r.name: r.state for r in job.replicas} == {"workerpool0-0": "succeeded", "workerpool2-0": "stopped"}


def test_cancel_stops_every_replica_within_10_seconds(backend: LocalBackend) -> None:
    args = ["--steps", "100000", "--step-seconds", "0.05", "--ignore-sigterm"]
    job = submit(backend, probe_spec(workers=2, args=args))
    wait_for(lambda: running(backend, job.id, 3), what="3 running replicas")
    pids = [r.pid for r in backend.get(job.id).replicas]
    job = backend.cancel(job.id, wait=300)  # a poll with a generous deadline: no wall-time assertion
    assert job.state is JobState.CANCELLED, job
    assert not any(pid_alive(p) for p in pids)  # SIGTERM was ignored: SIGKILL followed
    assert "cancelled" in (job.error or "")


def test_max_running_time_is_enforced(backend: LocalBackend) -> None:
    doc = probe_spec(args=["--steps", "100000", "--step-seconds", "0.05"], scheduling={"maxRunningTime": "2s"})
    job = backend.wait(submit(backend, doc).id, timeout=60)
    assert job.state is JobState.CANCELLED
    assert "longer than its max running time (2s)" in (job.error or "")
    assert not any(pid_alive(r.pid) for r in job.replicas)


def test_gpus_are_distinct_and_busy_gpus_make_jobs_wait_up_to_max_wait(
    backend: LocalBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAINJOBS_LOCAL_GPUS", "0,1,2")  # this machine declares three GPUs
    dump = tmp_path / "dump"
    holder = submit(backend, probe_spec("holder", workers=1, gpus=(1, 2, 0, 0),
                                        args=["--dump", str(dump), "--steps", "100000", "--step-seconds", "0.05"]))
    wait_for(lambda: running(backend, holder.id, 2), what="the holder to run")
    env = {p.stem: json.loads(p.read_text())["env"] for p in dump.glob("*.json")} if wait_for(
        lambda: len(list(dump.glob("*.json"))) == 2, what="dumps") else {}
    assert env["workerpool0-0"]["CUDA_VISIBLE_DEVICES"] == "0"
    assert env["workerpool1-0"]["CUDA_VISIBLE_DEVICES"] == "1,2"
    # All three GPUs are held: a job with a max wait gives up, one without waits QUEUED.
    impatient = submit(backend, probe_spec("impatient", gpus=(1, 0, 0, 0)), max_wait=1.0)
    patient = submit(backend, probe_spec("patient", gpus=(1, 0, 0, 0), args=["--dump", str(tmp_path / "p")]))
    impatient = backend.wait(impatient.id, timeout=30)
    assert impatient.state is JobState.CANCELLED
    assert "waited longer than its max wait (1s) for 1 GPU(s)" in (impatient.error or "")
    time.sleep(0.5)
    waiting = backend.get(patient.id)
    assert waiting.state is JobState.QUEUED and "waiting for 1 GPU(s)" in (waiting.message or "")
    backend.cancel(holder.id, wait=15)
    done = backend.wait(patient.id, timeout=60)
    assert done.state is JobState.SUCCEEDED, done.error
    got = json.loads(next((tmp_path / "p").glob("*.json")).read_text())["env"]["CUDA_VISIBLE_DEVICES"]
    assert got in ("0", "1", "2")


def test_an_impossible_gpu_request_fails_at_submit(backend: LocalBackend, monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    monkeypatch.setenv("TRAINJOBS_LOCAL_GPUS", "0,1")
    with pytest.raises(FailedPrecondition, match="needs 8 GPU\\(s\\) at once and this machine has 2"):
        submit(backend, probe_spec(workers=1, gpus=(4, 4, 0, 0)))
    assert backend.list() == []  # nothing was started
    # The documented opt-in runs the same spec on the CPU, with no GPU visible.
    dump = tmp_path / "dump"
    monkeypatch.setenv("TRAINJOBS_LOCAL_GPU_MODE", "cpu")
    job = backend.wait(submit(backend, probe_spec(workers=1, gpus=(4, 4, 0, 0),
                                                  args=["--dump", str(dump), "--barrier", "2"])).id, timeout=120)
    assert job.state is JobState.SUCCEEDED, job.error
    assert all(json.loads(p.read_text())["env"]["CUDA_VISIBLE_DEVICES"] == "" for p in dump.glob("*.json"))


def test_a_dead_supervisor_fails_the_job_and_its_replicas_die(backend: LocalBackend) -> None:
    job = submit(backend, probe_spec(workers=1, args=["--steps", "100000", "--step-seconds", "0.05"]))
    wait_for(lambda: running(backend, job.id, 2), what="running")
    state = store.read_json(backend.store.job_dir(job.id) / "state.json")
    assert state is not None
    pids = [r["pid"] for r in state["replicas"]]
    os.kill(state["supervisor"]["pid"], signal.SIGKILL)
    failed = wait_for(lambda: (j := backend.get(job.id)).state.terminal and j, what="FAILED")
    assert failed.state is JobState.FAILED
    assert f"the supervisor (pid {state['supervisor']['pid']}) died while the job was RUNNING" in (failed.error or "")
    wait_for(lambda: not any(pid_alive(p) for p in pids), timeout=10, what="replicas to die")


def test_a_restarted_worker_restarts_the_job_which_resumes_from_its_checkpoint(backend: LocalBackend,
                                                                               tmp_path: Path) -> None:
    # the chief ends last (--chief-last): the job ends with it, and the worker's resumed line is read below
    doc = probe_spec(workers=1, args=["--steps", "40", "--step-seconds", "0.05", "--dump", str(tmp_path / "dump"),
                                      "--chief-last", "2"],
                     scheduling={"restartJobOnWorkerRestart": True})
    job = submit(backend, doc)
    wait_for(lambda: running(backend, job.id, 2), what="running")
    ckpts = backend.storage.root / "test-bucket" / "out" / "checkpoints"
    # both replicas have checkpointed (on a loaded machine one may start well after the other)
    wait_for(lambda: all((ckpts / f"{r}.json").exists() for r in ("workerpool0-0", "workerpool1-0")),
             what="a checkpoint of each replica")
    worker = next(r for r in backend.get(job.id).replicas if r.pool == 1)
    os.kill(worker.pid or 0, signal.SIGKILL)  # the worker's "VM" restarts
    job = backend.wait(job.id, timeout=120)
    assert job.state is JobState.SUCCEEDED, job.error
    assert job.restarts == 1 and all(r.restarts == 1 for r in job.replicas)  # every replica restarted
    logs = "\n".join(line.text() for line in stream(backend, job.id))
    assert "[workerpool1-0] workerpool1-0: resuming from checkpoint at step" in logs
    assert "[workerpool0-0] workerpool0-0: resuming from checkpoint at step" in logs


def test_without_restart_job_only_the_killed_replica_restarts(backend: LocalBackend) -> None:
    job = submit(backend, probe_spec(workers=1, args=["--steps", "30", "--step-seconds", "0.05"]))
    wait_for(lambda: running(backend, job.id, 2), what="running")
    worker = next(r for r in backend.get(job.id).replicas if r.pool == 1)
    os.kill(worker.pid or 0, signal.SIGKILL)
    job = backend.wait(job.id, timeout=120)
    assert job.state is JobState.SUCCEEDED
    assert {r.name: r.restarts for r in job.replicas} == {"workerpool0-0": 0, "workerpool1-0": 1}


def test_concurrent_jobs_and_clients_never_corrupt_the_state(backend: LocalBackend) -> None:
    ids: list[str] = []
    lock = threading.Lock()

    def go(i: int) -> None:
        job = submit(backend, probe_spec(f"concurrent_{i}", workers=1, args=["--steps", "5", "--step-seconds", "0.05"],
                                         output=f"gs://test-bucket/concurrent-{i}"))
        with lock:
            ids.append(job.id)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    readers_ok = []

    def read() -> None:  # other clients read the state while the jobs write it
        for _ in range(200):
            for job in backend.list():
                assert job.state in JobState
            time.sleep(0.005)
        readers_ok.append(True)

    reader = threading.Thread(target=read)
    reader.start()
    for t in threads:
        t.join()
    finals = [backend.wait(i, timeout=120) for i in ids]
    reader.join()
    assert readers_ok and len(set(ids)) == 4
    assert [j.state for j in finals] == [JobState.SUCCEEDED] * 4
    assert sorted(j.display_name for j in backend.list()) == [f"concurrent_{i}" for i in range(4)]


def test_delete_needs_a_finished_job(backend: LocalBackend) -> None:
    job = submit(backend, probe_spec(args=["--steps", "100000", "--step-seconds", "0.05"]))
    with pytest.raises(FailedPrecondition, match="cancel it before deleting it"):
        backend.delete(job.id)
    backend.cancel(job.id, wait=15)
    backend.delete(job.id)
    assert backend.list() == []


def test_container_jobs_fail_at_submit_without_an_engine(backend: LocalBackend) -> None:
    doc = probe_spec()
    doc["spec"]["application"] = {"container": {"image": "gcr.io/p/i:1"}}
    with pytest.raises(FailedPrecondition, match="no container engine is available here") as err:
        submit(backend, doc)
    assert "nothing was started" in err.value.message
    assert backend.list() == []


def test_a_second_run_of_the_same_package_does_not_reinstall(backend: LocalBackend, env_cache: Path) -> None:
    first = backend.wait(submit(backend, probe_spec("cache_a", output="gs://test-bucket/a")).id, timeout=120)
    before = sorted(p.name for p in env_cache.iterdir())
    second = backend.wait(submit(backend, probe_spec("cache_b", output="gs://test-bucket/b")).id, timeout=120)
    assert first.state is second.state is JobState.SUCCEEDED
    assert sorted(p.name for p in env_cache.iterdir()) == before
    setup = backend.store.job_dir(second.id) / "logs" / "setup.log"
    assert not setup.exists() or "pip" not in setup.read_text()  # nothing was installed for the second run
