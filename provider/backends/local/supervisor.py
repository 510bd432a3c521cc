"""The detached process that runs one local job, started as
``python -m provider.backends.local.supervisor JOB_DIR``.

It outlives the command that submitted the job. It takes the job from QUEUED (waiting for
GPUs, within the max wait) through PENDING (installing the trainer) to RUNNING (one process per
replica of every pool, each with the environment Vertex AI gives it), watches the replicas,
and ends the job SUCCEEDED, FAILED or CANCELLED, as Vertex AI would:

* the replicas' exits mean what replicas.py says: the chief's success ends the job SUCCEEDED; a
  replica's error or its own signal (SIGABRT, SIGSEGV, ...) fails it; a replica killed from
  outside (SIGKILL or SIGTERM that trainjobs did not send) is restarted with backoff, its leftover
  processes killed first; a trainer that checkpoints resumes;
* max running time and max wait are enforced; cancel (``trainjobs cancel``: the cancel file and
  SIGUSR1) stops every replica (SIGTERM, then SIGKILL after 5 s), during the environment build
  too; SIGTERM, SIGINT or SIGHUP to the supervisor or its reaper stop the job the same way and say
  so; the death of the reaper alone is logged and the job goes on;
* tuning jobs run their trials, at most maxParallelTrials at a time;
* every process of the job dies with it, even if the supervisor is killed (see reaper.py);
* a full disk never kills it (a job that cannot go on ends FAILED with "disk full"), and a
  job.json or state.json broken while the job runs does not lose its outcome (journal.py).

The replicas of a run are replicas.py (Cluster), a tuning job's trials trials.py (Tuner), the job's
files journal.py (Journal); this module holds the phases (queue, prepare, run, finish). It imports
nothing heavy (Optuna only for Bayesian tuning), to stay small in memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from provider.backends.base import JobState
from provider.backends.local import cluster as cl
from provider.backends.local import envs, gcs_fuse, gpus, reaper, store, tuning
from provider.backends.local.journal import Journal
from provider.backends.local.log_times import Stamper
from provider.backends.local.paths import Storage
from provider.backends.local.replicas import Cluster, Finished
from provider.backends.local.trials import Tuner
from provider.backends.polling import Backoff, poll_until
from provider.core.job_kinds import TUNING_JOB

Json = dict[str, Any]

POLL_MIN, POLL_MAX = 0.02, 0.25
GPU_WAIT = Backoff.every(0.2)  # how often a queued job looks for free GPUs
BASE_ENV = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TMPDIR", "TZ", "PIP_FIND_LINKS",
            "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CERT", "SSL_CERT_FILE")


class Supervisor:
    def __init__(self, job_dir: Path, secrets: dict[str, dict[str, str]] | None = None) -> None:
        self.job_dir = job_dir
        self.secrets = secrets or {}  # secret env values by pool index: in memory only
        self.pid = os.getpid()
        record = store.read_json(job_dir / "job.json")
        if record is None:
            raise SystemExit(f"no job record in {job_dir}")
        self.record = record
        self.job_id: str = record["id"]
        self.home = Path(record["home"])
        self.storage = Storage(Path(record["storage_root"]))
        self.store = store.JobStore(self.home)
        opts = record.get("options", {})
        self.cpu_only = bool(opts.get("cpu_only"))
        self.max_wait = opts.get("max_wait_seconds")
        self.engine = opts.get("engine")
        self.api_endpoint: str | None = opts.get("api_endpoint")  # the emulator's, for the trainers' SDKs
        self.kind = record["kind"]
        body = record["request"]
        self.study = body.get("studySpec") if self.kind == TUNING_JOB.name else None
        self.job_spec: Json = body["trialJobSpec"] if self.study else body["jobSpec"]
        sched = self.job_spec.get("scheduling", {})
        self.timeout = _seconds(sched.get("timeout"))
        self.restart_job = bool(sched.get("restartJobOnWorkerRestart"))
        self.metric_tag = self.study["metrics"][0]["metricId"] if self.study else None
        self.gpus = gpus.GpuLocks(self.home)
        self.env: envs.PythonEnv | None = None
        self.cancel_flag = False
        self.reaper_gone = self.reaper_noted = False
        self.stop_signal: int | None = None  # SIGTERM, SIGINT or SIGHUP: a stop that was no cancel request
        self.clusters: list[Cluster] = []
        self.trials: list[Json] = []
        self.restarts = 0
        self.started_at: float | None = None
        self.poll = POLL_MIN
        self.journal = Journal(job_dir, record, self.event)
        self.stamper = Stamper(job_dir / "logs")  # when each log line was written (log_times.py)
        self._gcs: gcs_fuse.GcsView | None = None

    # -- state -------------------------------------------------------------------------------
    def write(self, **changes: Any) -> bool:
        """Save ``changes`` with the replicas' and trials' state; False when a full disk kept them for later."""
        return self.journal.save({**changes, **self.progress()})

    def write_final(self, **changes: Any) -> None:
        self.journal.save_final({**changes, **self.progress()})

    def progress(self) -> Json:
        done: Json = {"replicas": [p.status() for c in self.clusters for p in c.procs], "restarts": self.restarts}
        if self.trials:
            done["trials"] = self.trials
        return done

    def event(self, message: str) -> None:
        with contextlib.suppress(OSError, ValueError):  # the log is on the job's disk, which may be full
            print(f"{store.now()} {message}", flush=True)

    def cancel_requested(self) -> bool:
        return self.cancel_flag or self.stop_signal is not None or (self.job_dir / "cancel").exists()

    def cancelled(self, when: str = "") -> Finished:
        """The end of a cancelled job: by request (the cancel file, SIGUSR1), or by a stop signal, said as such."""
        if self.stop_signal is not None and not self.cancel_flag and not (self.job_dir / "cancel").exists():
            return Finished(JobState.CANCELLED, f"stopped{when}: its supervisor (pid {self.pid}) or reaper received "
                            f"{signal.Signals(self.stop_signal).name}, not a cancel request", code=1)
        return Finished(JobState.CANCELLED, f"cancelled by request{when}", code=1)

    def sleep(self) -> None:
        if self.reaper_gone and not self.reaper_noted:
            self.reaper_noted = True
            self.event("the job's reaper died; the job goes on (if this supervisor dies too, the next status read "
                       "ends the job and kills what it left)")
        reaper.reap_strays(self.known_pids())
        time.sleep(self.poll)
        self.poll = min(POLL_MAX, self.poll * 1.3)

    # -- what a replica runs -------------------------------------------------------------------
    def base_env(self) -> dict[str, str]:
        env = {k: os.environ[k] for k in BASE_ENV if k in os.environ}
        env["PYTHONUNBUFFERED"] = "1"
        env["TRAINJOBS_STORAGE_ROOT"] = str(self.storage.root)
        return env

    def gcs(self) -> gcs_fuse.GcsView:
        """What /gcs is for this job's replicas: decided at the first start, said in the log and the state."""
        if self._gcs is None:
            self._gcs = gcs_fuse.view(self.storage.root, self.job_dir / "root" / "probe")
            self.event(self._gcs.describe())
            self.write(gcs={"mode": self._gcs.mode.value, "message": self._gcs.describe()})
        return self._gcs

    def argv(self, spec: Json, trial: str, params: Json) -> list[str]:
        extra = tuning.trial_args(params) if params else []
        if "containerSpec" in spec:
            c = spec["containerSpec"]
            args = [self.storage.localize(a, folders=True) for a in _trial_job_dir(c.get("args", []), trial)] + extra
            return self.container_argv(c, args)
        p = spec["pythonPackageSpec"]
        assert self.env is not None
        args = [self.storage.localize(a, folders=True) for a in _trial_job_dir(p.get("args", []), trial)] + extra
        return [*self.env.command(p["pythonModule"]), *args]

    def container_argv(self, c: Json, args: list[str]) -> list[str]:
        root = str(self.storage.root)
        cmd = [self.engine or "docker", "run", "--rm", "--network=host", "-v", f"{root}:{root}", "-v", f"{root}:/gcs"]
        command = c.get("command") or []
        if command:
            cmd += ["--entrypoint", command[0]]
        return [*cmd, c["imageUri"], *command[1:], *args]

    # -- the phases ----------------------------------------------------------------------------
    def run(self) -> None:
        for sig in (signal.SIGUSR1, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, reaper.REAPER_GONE):
            signal.signal(sig, self._on_signal)
        reaper.become_subreaper()
        self.stamper.start()
        self.journal.make_reserve()
        self.write(supervisor={"pid": self.pid, "start": store.process_start(self.pid)})
        self.event(f"supervisor {self.pid} for job {self.job_id}")
        try:
            devices = self.queue()
            self.write(state=JobState.PENDING.value)
            self.prepare()
            if self.cancel_requested():
                raise self.cancelled(" before it started")
            if self.study:
                self.tune(devices)
            else:
                self.single(devices)
        except Finished as done:
            self.finish(done)
        except envs.EnvCancelled:
            self.finish(self.cancelled(" while its environment was being built"))
        except envs.EnvError as exc:
            full = "No space left on device" in str(exc)
            self.finish(Finished(JobState.FAILED, f"{'disk full: ' if full else ''}preparing the training package "
                                 f"failed: {exc}", code=8 if full else 13))
        except OSError as exc:
            if not store.disk_full(exc):
                self._crashed(exc)
            else:
                self.finish(Finished(JobState.FAILED, f"disk full: the job could not go on ({exc})", code=8))
        except Exception as exc:
            self._crashed(exc)

    def _crashed(self, exc: BaseException) -> None:
        with contextlib.suppress(OSError, ValueError):
            traceback.print_exc()
        self.finish(Finished(JobState.FAILED, f"the local backend failed: {type(exc).__name__}: {exc}", code=13))

    def _on_signal(self, signum: int, frame: Any) -> None:
        if signum == signal.SIGUSR1:
            self.cancel_flag = True
        elif signum == reaper.REAPER_GONE:
            self.reaper_gone = True  # logged by sleep(): printing inside a signal handler may re-enter print
        else:
            self.stop_signal = signum

    def queue(self) -> list[int] | None:
        """QUEUED: reserve the GPUs this job needs, waiting up to the max wait."""
        need = self.gpus_needed()
        if need == 0 or self.cpu_only:
            return [] if not self.cpu_only else None
        inventory = gpus.inventory()
        noted: list[bool] = []

        def reserve() -> list[int] | None:
            devices = self.gpus.try_acquire(inventory, need)
            if devices is None and not noted:
                busy = self.gpus.busy(inventory)
                self.write(message=f"waiting for {need} GPU(s); busy: {busy or 'none'}")
                noted.append(True)
            if devices is None and self.cancel_requested():
                raise self.cancelled(" while waiting for GPUs")
            return devices

        devices = poll_until(reserve, lambda d: d is not None, GPU_WAIT, self.max_wait)
        if devices is None:
            raise Finished(JobState.CANCELLED, f"the job waited longer than its max wait ({self.max_wait:g}s) for "
                           f"{need} GPU(s)", code=1)
        self.event(f"reserved GPUs {devices}")
        self.write(gpus=devices, message=None)
        return devices

    def gpus_needed(self) -> int:
        per_run = sum(cl.gpus_per_replica(s) * int(s.get("replicaCount", 1))
                      for s in cl.pool_specs(self.job_spec) if s)
        return per_run * self.parallel_trials(per_run)

    def parallel_trials(self, per_run: int) -> int:
        if not self.study:
            return 1
        parallel = int(self.record["request"].get("parallelTrialCount", 1))
        if per_run and not self.cpu_only:
            parallel = max(1, min(parallel, len(gpus.inventory()) // per_run))
        return max(1, parallel)

    def prepare(self) -> None:
        """PENDING: install the Python package into its cached environment."""
        specs = [s for s in cl.pool_specs(self.job_spec) if s and "pythonPackageSpec" in s]
        if not specs:
            return
        uris = specs[0]["pythonPackageSpec"].get("packageUris", [])
        files = [self.storage.path(u) for u in uris]
        missing = [u for u, f in zip(uris, files) if not f.is_file()]
        if missing:
            raise Finished(JobState.FAILED, f"package not found in local storage: {', '.join(missing)}", code=5)
        self.event(f"preparing the environment for {', '.join(uris)}")
        started = time.time()
        cache = Path(os.environ.get("TRAINJOBS_ENV_CACHE") or self.home / "envs")
        self.env = envs.ensure(cache, files, self.job_dir / "logs" / "setup.log", self._installing,
                               cancelled=self.cancel_requested)
        self.event(f"environment ready in {time.time() - started:.1f}s: {self.env.python}")
        if self._install_shown:
            self.write(message=None)

    _install_shown = 0.0  # when the last progress line was written to the state

    def _installing(self, what: str) -> None:
        """Show what the environment build does now (in `run` and `status`), at most twice a second."""
        now = time.monotonic()
        if what.startswith("installing") or now - self._install_shown >= 0.5:
            self._install_shown = now
            self.write(message=f"building the environment: {what[:160]}")

    def single(self, devices: list[int] | None) -> None:
        run = Cluster(self, self.job_spec, "", {}, devices)
        self.clusters = [run]
        run.start()
        self.started_at = time.time()
        self.write(state=JobState.RUNNING.value, start_time=store.now())
        self.event("all replicas started")
        while True:
            outcome = run.poll()
            if outcome is not None:
                raise outcome
            if self.cancel_requested():
                raise self.cancelled()
            if self.timeout is not None and time.time() - self.started_at > self.timeout:
                raise Finished(JobState.CANCELLED, f"the job ran longer than its max running time ({self.timeout:g}s)", code=4)
            self.write_if_changed()
            self.sleep()

    def known_pids(self) -> set[int]:
        return {p.popen.pid for c in self.clusters for p in c.procs if p.popen is not None}

    def write_if_changed(self) -> None:
        snapshot = json.dumps([p.status() for c in self.clusters for p in c.procs], sort_keys=True)
        if snapshot != getattr(self, "_last", None) or self.journal.unsaved:
            self._last = snapshot
            self.write()

    def tune(self, devices: list[int] | None) -> None:
        """RUNNING, for a tuning job: its trials (trials.py); ends by raising the job's Finished."""
        Tuner(self, devices).run()

    def finish(self, done: Finished) -> None:
        if done.state is JobState.CANCELLED and any(c.running() for c in self.clusters):
            self.write(state=JobState.CANCELLING.value)
        for run in self.clusters:
            run.stop(graceful=True)
        self.gpus.release()
        reaper.sweep()  # whatever the replicas left behind (re-parented here) dies with the job
        self.stamper.final()  # every line has its time before the end is written
        error = None if done.state is JobState.SUCCEEDED else {"code": done.code, "message": done.message or done.state.value}
        self.write_final(state=done.state.value, end_time=store.now(), error=error, gpus=[], message=None)
        self.event(f"job {done.state.value}" + (f": {done.message}" if done.message else ""))


def _seconds(duration: str | None) -> float | None:
    if not duration:
        return None
    return float(duration.rstrip("s"))


def _trial_job_dir(args: list[str], trial: str) -> list[str]:
    """Each trial writes to its own directory: --job-dir DIR becomes DIR/TRIAL_ID."""
    if not trial:
        return list(args)
    out = list(args)
    for i, a in enumerate(out):
        if a == "--job-dir" and i + 1 < len(out):
            out[i + 1] = out[i + 1].rstrip("/") + f"/{trial}"
        elif a.startswith("--job-dir="):
            out[i] = a.rstrip("/") + f"/{trial}"
    return out


def _supervise(job_dir: Path, secrets: dict[str, dict[str, str]]) -> int:
    Supervisor(job_dir, secrets).run()
    return 0


def _read_secrets() -> dict[str, dict[str, str]]:
    """The secret env values the submitter writes to our stdin (never stored in the job's files)."""
    try:
        raw = sys.stdin.buffer.read() if sys.stdin is not None else b""
        data = json.loads(raw) if raw.strip() else {}
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def main(argv: list[str]) -> int:
    job_dir = Path(argv[0])
    record = store.read_json(job_dir / "job.json")
    if record is None:
        raise SystemExit(f"no job record in {job_dir}")
    job_store = store.JobStore(Path(record["home"]))
    secrets = _read_secrets()

    def on_death(pid: int, how: str) -> None:
        with contextlib.suppress(OSError, store.Unreadable):
            state = store.read_json(job_dir / "state.json") or {}
            job_store.fail_orphan(record["id"], f"the supervisor (pid {pid}) died while the job was "
                                                f"{state.get('state', 'QUEUED')} (it {how})")

    return reaper.guard(lambda: _supervise(job_dir, secrets), on_death)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
