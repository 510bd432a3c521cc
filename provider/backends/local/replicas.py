"""The replicas of one run of a local job (the job, or one trial of a tuning job), as processes.

A ``Cluster`` starts one process per replica of every pool, with the environment Vertex AI gives
it, and ``poll`` says how the run ends, as Vertex AI would (README, "Process semantics"):

* the chief's exit with 0 decides success, and nothing is restarted after it;
* a replica that exits non-zero, or dies of a signal of its own (SIGABRT, SIGSEGV, SIGBUS, SIGFPE,
  SIGILL, ...: anything but the two below), has failed and fails the run, naming its role, index,
  exit code or signal, with its last log lines;
* a replica that dies of SIGKILL or SIGTERM that trainjobs did not send was killed from outside
  (what the machine going away looks like here: preemption, a host restart, the OOM killer); it is
  restarted, or every replica is when restartJobOnWorkerRestart is set, after a backoff of
  BACKOFF_FIRST, doubling up to BACKOFF_MAX, at most MAX_RESTARTS times per run. Before its
  replacement starts, every process the old one left is killed: its process group, and every
  process carrying its marker (reaper.kill_marked), which reaches setsid grandchildren and
  double-forked daemons.

``stop`` ends them all: SIGTERM to each process group, SIGKILL after GRACE_SECONDS, then every
marked process. The supervisor (supervisor.py) owns the clusters; this module imports nothing heavy.
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
from provider.backends.local import reaper, store, trainer_env
from provider.backends.polling import Backoff, poll_until

if TYPE_CHECKING:
    from provider.backends.local.supervisor import Supervisor

Json = dict[str, Any]

GRACE_SECONDS = 5.0
MAX_RESTARTS = 5
BACKOFF_FIRST, BACKOFF_MAX = 1.0, 30.0
OUTSIDE = (signal.SIGKILL, signal.SIGTERM)  # the signals of a machine going away; any other is the trainer's own


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
        self.due: float | None = None  # when a replica waiting to restart starts again (time.monotonic)

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
        env.update(cl.replica_env(layout, proc.replica, self.job_spec, self.sup.job_id, self.trial,
                                  self.sup.record.get("parent", "")))
        task = spec.get("containerSpec") or spec.get("pythonPackageSpec") or {}
        for item in task.get("env", []):
            env[item["name"]] = str(item.get("value", ""))
        env.update(self.sup.secrets.get(str(proc.replica.pool), {}))  # the record holds "***" for them
        env["CLOUD_ML_HP_METRIC_FILE"] = str(self.metrics_path(proc))
        if self.sup.metric_tag:
            env["CLOUD_ML_HP_METRIC_TAG"] = self.sup.metric_tag
        env["CUDA_VISIBLE_DEVICES"] = ",".join(map(str, proc.replica.gpus))
        python = "pythonPackageSpec" in spec
        gcs = self.sup.gcs()  # what /gcs is for the trainer's own paths (gcs_fuse.py)
        if self.sup.env is not None and python:
            env["PYTHONPATH"] = str(self.sup.env.pythonpath)
            env["PYTHONNOUSERSITE"] = "1"
            env.update(trainer_env.site_env(self.sup.job_dir, env, self.sup.api_endpoint, gcs.hook_root))
        # AIP_MODEL_DIR's folder is made (paths.localize): a trainer that makes it only on its gs:// branch
        env = {k: self.sup.storage.localize(v, folders=k == "AIP_MODEL_DIR") if k.startswith("AIP_")
               or v.startswith("/gcs/") else v for k, v in env.items()}
        env[reaper.MARKER] = self.marker(proc)
        argv = self.sup.argv(spec, self.trial, self.params)
        if python:  # a container gets the storage at /gcs from its engine (container_argv)
            argv = gcs.wrap(argv, self.sup.job_dir / "root" / (self.trial or "job") / proc.name)
        workdir = self.sup.job_dir / "work" / (self.trial or "job") / proc.name
        store.private_dirs(workdir)
        log = self.log_path(proc)
        with store.open_private(log) as out:
            if python and not gcs.complete and not proc.restarts:
                out.write(f"--- trainjobs: {gcs.describe()} ---\n".encode())
            if proc.restarts:
                out.write(f"--- trainjobs: {proc.name} restarted ({proc.restarts} of at most {MAX_RESTARTS}) ---\n"
                          .encode())
            out.flush()
            proc.popen = subprocess.Popen(
                argv, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                preexec_fn=lambda: _child_setup(self.sup.pid), close_fds=True,
            )
        proc.state = ReplicaState.RUNNING
        proc.exit_code = None
        proc.stopping = False
        proc.due = None

    def marker(self, proc: ReplicaProc) -> str:
        return reaper.marker(self.sup.job_dir, self.trial, proc.name, proc.restarts)

    def kill_tree(self, proc: ReplicaProc) -> None:
        """Kill every process this generation of ``proc`` left: its group, and all that carry its marker."""
        if proc.popen is None:
            return
        store.kill_group(proc.popen.pid, signal.SIGKILL)
        left = reaper.kill_marked(self.marker(proc))
        if left:
            self.sup.event(f"{proc.name}: killed {len(left)} process(es) it left: {', '.join(map(str, left))}")

    def poll(self) -> Finished | None:
        """Check every replica; the outcome once the run is over, else None."""
        ended = self.collect()
        if any(p.replica.pool == 0 and p.state is ReplicaState.SUCCEEDED for p in self.procs):
            return Finished(JobState.SUCCEEDED)  # the chief decides, and nothing restarts after it
        for proc, code in ended:
            if code > 0 or -code not in OUTSIDE:
                proc.state = ReplicaState.FAILED
                return Finished(JobState.FAILED, self.failure(proc, code), code=13)
        for proc, code in ended:
            outcome = self.killed_from_outside(proc, -code)
            if outcome is not None:
                return outcome
        now = time.monotonic()
        for proc in self.procs:
            if proc.state is ReplicaState.RESTARTING and proc.due is not None and now >= proc.due:
                proc.restarts += 1
                self.spawn(proc)
        return None

    def collect(self) -> list[tuple[ReplicaProc, int]]:
        """Record the replicas that exited since the last poll; those that exited non-zero, with the code."""
        ended = []
        for proc in self.procs:
            if proc.popen is None or proc.state is not ReplicaState.RUNNING:
                continue
            code = proc.popen.poll()
            if code is None:
                continue
            proc.exit_code = code
            if proc.stopping:
                proc.state = ReplicaState.STOPPED
            elif code == 0:
                proc.state = ReplicaState.SUCCEEDED
            else:
                ended.append((proc, code))
        return ended

    def killed_from_outside(self, proc: ReplicaProc, signum: int) -> Finished | None:
        """Schedule the restart of ``proc`` (or of every replica) after the backoff; past the cap, fail."""
        name = signal.Signals(signum).name
        self.kill_tree(proc)
        if self.restarts >= MAX_RESTARTS:
            proc.state = ReplicaState.FAILED
            return Finished(JobState.FAILED, f"{self.describe(proc)} was killed from outside ({name}) after "
                            f"{MAX_RESTARTS} restarts, the most a run gets", code=13)
        delay = min(BACKOFF_MAX, BACKOFF_FIRST * 2 ** self.restarts)
        self.restarts += 1
        self.sup.restarts += 1
        every = self.sup.restart_job
        self.sup.event(f"{proc.name}: killed from outside ({name}), as when its machine goes away; restarting "
                       f"{'every replica' if every else 'it'} in {delay:g}s (restart {self.restarts} of at most "
                       f"{MAX_RESTARTS}{', trial ' + self.trial if self.trial else ''})")
        waiting = self.procs if every else [proc]
        if every:
            self.stop(graceful=True)  # restartJobOnWorkerRestart: every replica stops, then all start again
        for p in waiting:
            p.state = ReplicaState.RESTARTING
            p.due = time.monotonic() + delay
        return None

    def describe(self, proc: ReplicaProc) -> str:
        return f"{proc.name} ({proc.replica.task} {proc.replica.index}{', trial ' + self.trial if self.trial else ''})"

    def failure(self, proc: ReplicaProc, code: int) -> str:
        lines = self.log_path(proc).read_text(encoding="utf-8", errors="replace").splitlines()[-10:]
        tail = "\n".join(f"  {line}" for line in lines)
        how = f"exited with code {code}" if code > 0 else (
            f"died of its own signal {_signal_name(-code)} (a crash or abort in the trainer, not its machine going "
            "away: it is not restarted)")
        return f"{self.describe(proc)} {how}. Last lines of its log:\n{tail}"

    def running(self) -> list[ReplicaProc]:
        return [p for p in self.procs if p.popen is not None and p.popen.poll() is None]

    def stop(self, graceful: bool = True) -> None:
        """SIGTERM every live replica's process group, then SIGKILL what is left after the grace."""
        live = self.running()
        for proc in live:
            proc.stopping = True
            assert proc.popen is not None
            store.kill_group(proc.popen.pid, signal.SIGTERM if graceful else signal.SIGKILL)
        if live and graceful:
            poll_until(self.running, lambda running: not running, Backoff.every(0.02), GRACE_SECONDS)
        for proc in self.procs:
            if proc.popen is not None:
                self.kill_tree(proc)  # also the grandchildren and daemons left behind
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.popen.wait(timeout=5)
                if proc.state.live:
                    proc.exit_code = proc.popen.returncode
                    proc.state = ReplicaState.STOPPED


def _signal_name(signum: int) -> str:
    try:
        return f"{signal.Signals(signum).name} ({signum})"
    except ValueError:
        return f"{signum}"
