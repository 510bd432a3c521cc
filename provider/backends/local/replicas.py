"""The replicas of one run of a local job (the job, or one trial of a tuning job), as processes.

A ``Cluster`` starts one process per replica of every pool, with the environment Vertex AI gives
it, and ``poll`` says how the run ends, as Vertex AI would: the chief's exit decides success; a
replica that exits with an error fails the run (naming its role, index and exit code, with its
last log lines); a replica killed from outside (a "VM restart") is restarted, or every replica is
when restartJobOnWorkerRestart is set, at most MAX_RESTARTS times. ``stop`` ends them all: SIGTERM
to each process group, then SIGKILL after GRACE_SECONDS. The supervisor (supervisor.py) owns the
clusters; this module imports nothing heavy.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from provider.backends.base import JobState, ReplicaState
from provider.backends.local import cluster as cl
from provider.backends.local import reaper, store

if TYPE_CHECKING:
    from provider.backends.local.supervisor import Supervisor

Json = dict[str, Any]

GRACE_SECONDS = 5.0
MAX_RESTARTS = 5


class Finished(Exception):
    """The job reached a terminal state."""

    def __init__(self, state: JobState, message: str | None = None, code: int = 0) -> None:
        super().__init__(message or state.value)
        self.state = state
        self.message = message
        self.code = code


def _child_setup(parent: int) -> None:
    """In each replica, before exec: its own session and process group, and death when the supervisor dies."""
    os.setsid()
    reaper.die_with_parent(signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


class ReplicaProc:
    def __init__(self, replica: cl.Replica, trial: str) -> None:
        self.replica = replica
        self.trial = trial
        self.popen: subprocess.Popen[bytes] | None = None
        self.state = ReplicaState.WAITING
        self.exit_code: int | None = None
        self.restarts = 0
        self.stopping = False

    @property
    def name(self) -> str:
        return self.replica.name

    def status(self) -> Json:
        return {
            "name": self.name, "pool": self.replica.pool, "index": self.replica.index, "task": self.replica.task,
            "trial": self.trial, "state": self.state.value, "pid": self.popen.pid if self.popen else None,
            "pgid": self.popen.pid if self.popen else None, "exit_code": self.exit_code,
            "restarts": self.restarts, "gpus": ",".join(map(str, self.replica.gpus)),
            "address": self.replica.address,
        }


class Cluster:
    """The replicas of one run (the job, or one trial of a tuning job)."""

    def __init__(self, sup: Supervisor, job_spec: Json, trial: str, params: Json, devices: list[int] | None) -> None:
        self.sup = sup
        self.job_spec = job_spec
        self.trial = trial
        self.params = params
        self.devices = devices
        self.procs: list[ReplicaProc] = []
        self.restarts = 0
        self.started_at = 0.0
        self.outcome: Finished | None = None

    def start(self) -> None:
        layout = cl.layout(self.job_spec, self.devices if not self.sup.cpu_only else None)
        self.procs = [ReplicaProc(r, self.trial) for r in layout]
        self.started_at = time.time()
        for proc in self.procs:
            self.spawn(proc)

    def log_path(self, proc: ReplicaProc) -> Path:
        folder = self.sup.job_dir / "logs" / (f"trial-{self.trial}" if self.trial else "")
        store.private_dirs(folder)
        return folder / f"{proc.name}.log"

    def metrics_path(self, proc: ReplicaProc) -> Path:
        folder = self.sup.job_dir / "metrics" / (self.trial or "job")
        store.private_dirs(folder)
        return folder / f"{proc.name}.metrics"

    def spawn(self, proc: ReplicaProc) -> None:
        layout = [p.replica for p in self.procs]
        spec = cl.pool_specs(self.job_spec)[proc.replica.pool]
        env = self.sup.base_env()
        env.update(cl.replica_env(layout, proc.replica, self.job_spec, self.sup.job_id, self.trial))
        task = spec.get("containerSpec") or spec.get("pythonPackageSpec") or {}
        for item in task.get("env", []):
            env[item["name"]] = str(item.get("value", ""))
        env.update(self.sup.secrets.get(str(proc.replica.pool), {}))  # the record holds "***" for them
        env["CLOUD_ML_HP_METRIC_FILE"] = str(self.metrics_path(proc))
        if self.sup.metric_tag:
            env["CLOUD_ML_HP_METRIC_TAG"] = self.sup.metric_tag
        env["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, proc.replica.gpus))
        if self.sup.env is not None and "pythonPackageSpec" in spec:
            env["PYTHONPATH"] = str(self.sup.env.pythonpath)
            env["PYTHONNOUSERSITE"] = "1"
        env = {k: self.sup.storage.localize(v) if k.startswith("AIP_") else v for k, v in env.items()}
        argv = self.sup.argv(spec, self.trial, self.params)
        workdir = self.sup.job_dir / "work" / (self.trial or "job") / proc.name
        store.private_dirs(workdir)
        log = self.log_path(proc)
        with store.open_private(log) as out:
            if proc.restarts:
                out.write(f"--- trainjobs: {proc.name} restarted ({proc.restarts}) ---\n".encode())
            out.flush()
            proc.popen = subprocess.Popen(
                argv, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                preexec_fn=lambda: _child_setup(self.sup.pid), close_fds=True,
            )
        proc.state = ReplicaState.RUNNING
        proc.exit_code = None
        proc.stopping = False

    def poll(self) -> Finished | None:
        """Check every replica; the outcome once the run is over, else None."""
        for proc in self.procs:
            if proc.popen is None or proc.state is not ReplicaState.RUNNING:
                continue
            code = proc.popen.poll()
            if code is None:
                continue
            proc.exit_code = code
            if proc.stopping:
                proc.state = ReplicaState.STOPPED
                continue
            if code == 0:
                proc.state = ReplicaState.SUCCEEDED
                if proc.replica.pool == 0:
                    return Finished(JobState.SUCCEEDED)
                continue
            if code > 0:
                proc.state = ReplicaState.FAILED
                return Finished(JobState.FAILED, self.failure(proc, code), code=13)
            # Killed by a signal trainjobs did not send: the "VM" restarted.
            self.sup.event(f"{proc.name}: killed by signal {-code}; restarting")
            if self.restarts >= MAX_RESTARTS:
                proc.state = ReplicaState.FAILED
                return Finished(JobState.FAILED, f"{self.describe(proc)} was restarted {MAX_RESTARTS} times and was killed "
                                f"again (signal {-code})", code=13)
            self.restarts += 1
            self.sup.restarts += 1
            if self.sup.restart_job:
                self.restart_all()
                return None
            proc.restarts += 1
            proc.state = ReplicaState.RESTARTING
            self.spawn(proc)
        return None

    def restart_all(self) -> None:
        """restartJobOnWorkerRestart: stop every replica, then start them all again."""
        self.stop(graceful=True)
        for proc in self.procs:
            proc.restarts += 1
            proc.state = ReplicaState.RESTARTING
        self.sup.event(f"restarting every replica{' of trial ' + self.trial if self.trial else ''} "
                       f"(restartJobOnWorkerRestart, restart {self.restarts})")
        for proc in self.procs:
            self.spawn(proc)

    def describe(self, proc: ReplicaProc) -> str:
        return f"{proc.name} ({proc.replica.task} {proc.replica.index}{', trial ' + self.trial if self.trial else ''})"

    def failure(self, proc: ReplicaProc, code: int) -> str:
        lines = self.log_path(proc).read_text(encoding="utf-8", errors="replace").splitlines()[-10:]
        tail = "\n".join(f"  {line}" for line in lines)
        return f"{self.describe(proc)} exited with code {code}. Last lines of its log:\n{tail}"

    def running(self) -> list[ReplicaProc]:
        return [p for p in self.procs if p.popen is not None and p.popen.poll() is None]

    def stop(self, graceful: bool = True) -> None:
        """SIGTERM every live replica's process group, then SIGKILL what is left after the grace."""
        live = self.running()
        for proc in live:
            proc.stopping = True
            assert proc.popen is not None
            store.kill_group(proc.popen.pid, signal.SIGTERM if graceful else signal.SIGKILL)
        deadline = time.time() + (GRACE_SECONDS if graceful else 0)
        while live and time.time() < deadline:
            time.sleep(0.02)
            live = self.running()
        for proc in self.procs:
            if proc.popen is not None:
                store.kill_group(proc.popen.pid, signal.SIGKILL)  # also any grandchildren left behind
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.popen.wait(timeout=5)
                if proc.state.live:
                    proc.exit_code = proc.popen.returncode
                    proc.state = ReplicaState.STOPPED
