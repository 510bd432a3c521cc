"""LocalBackend: submit, track, cancel and delete jobs that run on this machine.

Submitting checks what can be known up front (a container engine, the packages in local
storage, enough GPUs) and fails at once, starting nothing, when the job can never run. Then
it writes the job record and starts the job's detached supervisor
(provider.backends.local.supervisor), which does the rest. Everything else reads the files
the supervisor writes, so any process (the CLI, the Pulumi provider, the emulator) can follow
or cancel any job.
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import provider
from provider.backends.base import (
    BackendError,
    FailedPrecondition,
    InvalidArgument,
    JobState,
    JobStatus,
    NotFound,
    ReplicaStatus,
    Submission,
    TrialStatus,
)
from provider.backends.local import cluster as cl
from provider.backends.local import gpus, store
from provider.backends.local.paths import Storage, StorageError, default_home, default_storage
from provider.backends.local.replica_limit import check_replicas
from provider.labels import IDENTITY_LABEL

Json = dict[str, Any]
SECRET_SHOWN = "***"

_spawned: list[subprocess.Popen[bytes]] = []
_spawned_lock = threading.Lock()  # callers may be threads: the Pulumi host serves calls in parallel


def _reap() -> None:
    """Collect supervisors that have exited, so a long-lived caller leaves no zombies."""
    with _spawned_lock:
        _spawned[:] = [p for p in _spawned if p.poll() is None]


def container_engine() -> tuple[str | None, str]:
    """docker or podman, if one is on PATH and its engine answers; else None and why not."""
    found = [e for e in ("docker", "podman") if shutil.which(e)]
    if not found:
        return None, "neither docker nor podman is on PATH"
    reasons = []
    for engine in found:
        try:
            proc = subprocess.run([engine, "info", "--format", "{{.ServerVersion}}"], capture_output=True, text=True,
                                  timeout=15, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            reasons.append(f"{engine}: {exc}")
            continue
        if proc.returncode == 0:
            return engine, ""
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        reasons.append(f"{engine} is installed but its engine does not answer ({detail[-1] if detail else 'no output'})")
    return None, "; ".join(reasons)


class JobUnreadable(BackendError):
    """A job whose files cannot be read; nothing was changed."""

    code = "DATA_LOSS"


@dataclass(frozen=True)
class UnreadableJob:
    """A job listed by its id only: which file is broken, and why."""

    id: str
    path: Path
    reason: str


class LocalBackend:
    name = "local"

    def __init__(self, home: str | Path | None = None, storage_root: str | Path | None = None,
                 adopt: bool = True, **_: Any) -> None:
        """``adopt=False`` starts every submission as a new job, even one whose identity label is taken:
        the Vertex AI emulator needs that, because Vertex AI itself never adopts (its callers do)."""
        self.home = Path(home).expanduser() if home else default_home()
        self.adopt = adopt
        self.storage = Storage(Path(storage_root).expanduser() if storage_root else default_storage(self.home))
        self.store = store.JobStore(self.home)

    # -- submit ---------------------------------------------------------------------------------
    def submit(self, submission: Submission) -> JobStatus:
        _reap()
        request = submission.request
        body = request.body
        labels = dict(body.get("labels", {}))
        if self.adopt and IDENTITY_LABEL in labels:
            existing = self.find({IDENTITY_LABEL: labels[IDENTITY_LABEL]})
            if existing is not None and existing.state.adoptable:
                return existing
        job_spec = body.get("trialJobSpec" if request.kind == "HyperparameterTuningJob" else "jobSpec")
        if not isinstance(job_spec, dict) or not cl.pool_specs(job_spec) or not cl.pool_specs(job_spec)[0]:
            raise InvalidArgument("the request has no worker pools (jobSpec.workerPoolSpecs)")
        cpu_only = submission.cpu_only or gpus.cpu_mode()
        engine = self.preflight(job_spec, cpu_only, request.kind, body)
        spec_key = "trialJobSpec" if request.kind == "HyperparameterTuningJob" else "jobSpec"
        body, secrets = _without_secrets(body, spec_key, submission.secret_env)
        record = {
            "kind": request.kind,
            "parent": request.parent,
            "display_name": body.get("displayName", ""),
            "labels": labels,
            "request": body,
            "create_time": store.now(),
            "home": str(self.home),
            "storage_root": str(self.storage.root),
            "options": {"cpu_only": cpu_only, "max_wait_seconds": submission.max_wait_seconds, "engine": engine},
            "secret_env": sorted(submission.secret_env),  # their values: "***" here, given to the supervisor only
        }
        try:
            job_dir = self.store.create(record)
        except OSError as exc:
            raise FailedPrecondition(f"cannot write the job's record under {self.store.jobs}: "
                                     f"{'disk full' if store.disk_full(exc) else exc.strerror} ({exc}); nothing "
                                     "was started") from None
        job_id = job_dir.name
        self.spawn(job_dir, secrets)
        return self.get(job_id)

    def preflight(self, job_spec: Json, cpu_only: bool, kind: str, body: Json) -> str | None:
        """Refuse, before anything starts, what this machine can never run."""
        specs = [s for s in cl.pool_specs(job_spec) if s]
        check_replicas(specs)
        for s in specs:
            machine = s.get("machineSpec", {})
            if machine.get("tpuTopology") or str(machine.get("acceleratorType", "")).startswith("TPU") or \
                    str(machine.get("machineType", "")).startswith(("cloud-tpu", "ct5lp-", "ct6e-", "tpu7x-")):
                raise FailedPrecondition(f"the local backend cannot run TPU jobs ({machine.get('machineType')}); "
                                         "run it on Vertex AI, or use a GPU or CPU machine type for local runs")
        engine = None
        if any("containerSpec" in s for s in specs):
            engine, why = container_engine()
            if engine is None:
                raise FailedPrecondition(
                    f"this job runs containers, and no container engine is available here: {why}. Start Docker or "
                    "Podman, or run the spec on Vertex AI; nothing was started")
        for s in specs:
            for uri in s.get("pythonPackageSpec", {}).get("packageUris", []):
                try:
                    path = self.storage.path(uri)
                except StorageError as exc:
                    raise InvalidArgument(str(exc)) from exc
                if not path.is_file():
                    raise FailedPrecondition(f"package {uri} is not in local storage (looked for {path}); "
                                             "`trainjobs run` stages local package paths itself")
        if not cpu_only:
            per_run = sum(cl.gpus_per_replica(s) * int(s.get("replicaCount", 1)) for s in specs)
            have = gpus.inventory()
            if per_run > len(have):
                raise FailedPrecondition(
                    f"the job needs {per_run} GPU(s) at once and this machine has {len(have)} "
                    f"({'TRAINJOBS_LOCAL_GPUS' if 'TRAINJOBS_LOCAL_GPUS' in os.environ else 'nvidia-smi'}). To "
                    "smoke-test a GPU spec on the CPU, run it with --cpu (TRAINJOBS_LOCAL_GPU_MODE=cpu); nothing "
                    "was started")
        return engine

    def spawn(self, job_dir: Path, secrets: dict[str, dict[str, str]] | None = None) -> None:
        """Start the job's supervisor; secret env values go to it through a pipe, never to a file."""
        env = dict(os.environ)
        root = str(Path(provider.__file__).resolve().parents[1])
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        with store.open_private(job_dir / "supervisor.log") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "provider.backends.local.supervisor", str(job_dir)],
                cwd=job_dir, env=env, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True, close_fds=True,
            )
        assert proc.stdin is not None
        with contextlib.suppress(BrokenPipeError), proc.stdin:
            proc.stdin.write(json.dumps(secrets or {}).encode())
        with _spawned_lock:
            _spawned.append(proc)
        try:
            self.store.update(job_dir.name, supervisor={"pid": proc.pid, "start": _start_of(proc.pid)})
        except OSError as exc:  # a full disk: the supervisor records itself (or keeps trying)
            if not store.disk_full(exc):
                raise

    # -- read -----------------------------------------------------------------------------------
    def resolve(self, ref: str, labels: dict[str, str] | None = None) -> str:
        """A job id, a unique id prefix, or a display name (its newest job carrying ``labels``)."""
        ids = self.store.ids()
        if ref in ids:
            return ref
        if ref.isdigit():
            matches = [i for i in ids if i.startswith(ref)]
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                raise NotFound(f"{ref!r} matches {len(matches)} jobs; give more digits")
        for job_id in ids:  # newest first
            try:
                record = self.store.record(job_id) or {}
            except store.Unreadable:
                continue
            if record.get("display_name") == ref and all(_labels(record).get(k) == v for k, v in (labels or {}).items()):
                return job_id
        raise NotFound(f"no local job {ref!r} (see `trainjobs jobs list`)")

    def get(self, job_id: str) -> JobStatus:
        _reap()
        if not job_id.isdigit():
            raise NotFound(f"no local job {job_id!r}")
        try:
            found = self.store.read(job_id)
        except store.Unreadable as exc:
            raise JobUnreadable(f"local job {job_id} cannot be read: {exc.path}: {exc.reason}. Nothing was "
                                "changed; remove that job's directory to forget it") from None
        if found is None:
            raise NotFound(f"no local job {job_id!r}")
        return _checked_status(job_id, self.store.job_dir(job_id), *found)

    def list(self, labels: dict[str, str] | None = None) -> list[JobStatus]:
        return self.scan(labels)[0]

    def scan(self, labels: dict[str, str] | None = None, limit: int | None = None
             ) -> tuple[builtins.list[JobStatus], builtins.list[UnreadableJob]]:
        """Every job, newest first, each read on its own; the ones that cannot be read, apart.

        With ``limit``, reading stops once that many jobs are found: ids sort by creation time, so
        listing the newest N reads N records however long the history is."""
        out: builtins.list[JobStatus] = []
        broken: builtins.list[UnreadableJob] = []
        for job_id in self.store.ids():
            if limit is not None and len(out) >= limit:
                break
            try:
                record = self.store.record(job_id)
                if record is None:
                    continue
                if labels and any(_labels(record).get(k) != v for k, v in labels.items()):
                    continue
                found = self.store.read(job_id)
                if found is not None:
                    out.append(_checked_status(job_id, self.store.job_dir(job_id), *found))
            except store.Unreadable as exc:
                broken.append(UnreadableJob(job_id, exc.path, exc.reason))
            except JobUnreadable as exc:
                broken.append(UnreadableJob(job_id, self.store.job_dir(job_id), exc.message))
        return out, broken

    def find(self, labels: dict[str, str]) -> JobStatus | None:
        jobs = self.list(labels)
        return jobs[0] if jobs else None

    # -- act ------------------------------------------------------------------------------------
    def cancel(self, job_id: str, wait: float = 0.0) -> JobStatus:
        status = self.get(job_id)
        if status.state.terminal:
            return status
        self.store.request_cancel(job_id)
        return self.wait(job_id, timeout=wait) if wait > 0 else self.get(job_id)

    def delete(self, job_id: str) -> None:
        status = self.get(job_id)
        if not status.state.terminal:
            raise FailedPrecondition(f"job {job_id} is {status.state.value}: cancel it before deleting it")
        self.store.delete(job_id)

    def wait(self, job_id: str, until: tuple[JobState, ...] = (), timeout: float | None = None) -> JobStatus:
        """Poll (with backoff) until the job is in one of ``until`` (default: terminal)."""
        deadline = None if timeout is None else time.time() + timeout
        delay = 0.05
        while True:
            status = self.get(job_id)
            if status.state.terminal or status.state in until:
                return status
            if deadline is not None and time.time() >= deadline:
                return status
            time.sleep(delay)
            delay = min(1.0, delay * 1.5)

    def log_files(self, job_id: str) -> builtins.list[Path]:
        logs = self.store.job_dir(job_id) / "logs"
        if not logs.is_dir():
            return []
        return sorted(p for p in logs.rglob("*.log") if p.name != "setup.log") + \
            [p for p in (logs / "setup.log",) if p.exists()]

    def logs(self, job_id: str, replica: str | None = None, follow: bool = False) -> Iterator[str]:
        """Log lines, each prefixed by its replica ([workerpool0-0] or [trial-2/workerpool0-0])."""
        self.get(job_id)
        offsets: dict[Path, int] = {}
        logs = self.store.job_dir(job_id) / "logs"
        while True:
            new = False
            for path in self.log_files(job_id):
                name = path.relative_to(logs).with_suffix("").as_posix()
                if replica and replica not in (name, path.stem):
                    continue
                with open(path, "rb") as f:
                    f.seek(offsets.get(path, 0))
                    data = f.read()
                if not data:
                    continue
                complete = data.rfind(b"\n") + 1 if follow else len(data)
                if complete == 0:
                    continue
                offsets[path] = offsets.get(path, 0) + complete
                new = True
                for line in data[:complete].decode("utf-8", errors="replace").splitlines():
                    yield f"[{name}] {line}"
            if not follow:
                return
            if not new and self.get(job_id).state.terminal:
                return
            time.sleep(0.2)


def _start_of(pid: int) -> int | None:
    for _ in range(50):
        start = store.process_start(pid)
        if start is not None:
            return start
        time.sleep(0.01)
    return None


def _without_secrets(body: Json, spec_key: str, names: frozenset[str]) -> tuple[Json, dict[str, dict[str, str]]]:
    """The request with "***" for the values of ``names``, and those values by pool index."""
    if not names:
        return body, {}
    body = copy.deepcopy(body)
    secrets: dict[str, dict[str, str]] = {}
    for index, spec in enumerate((body.get(spec_key) or {}).get("workerPoolSpecs") or []):
        task = (spec or {}).get("containerSpec") or (spec or {}).get("pythonPackageSpec") or {}
        for item in task.get("env") or []:
            if item.get("name") in names:
                secrets.setdefault(str(index), {})[item["name"]] = str(item.get("value", ""))
                item["value"] = SECRET_SHOWN
    return body, secrets


def _labels(record: Json) -> dict[str, Any]:
    labels = record.get("labels")
    return labels if isinstance(labels, dict) else {}


def _checked_status(job_id: str, job_dir: Path, record: Json, state: Json) -> JobStatus:
    """The status, or JobUnreadable when the files are JSON but not a job's record and state."""
    try:
        return _status(record, state)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise JobUnreadable(f"local job {job_id} cannot be read: {job_dir}: its job.json or state.json is not "
                            f"a job's ({type(exc).__name__}: {exc}). Nothing was changed") from None


def _status(record: Json, state: Json) -> JobStatus:
    kind = record["kind"]
    collection = "customJobs" if kind == "CustomJob" else "hyperparameterTuningJobs"
    body = record["request"]
    spec = body.get("trialJobSpec" if kind == "HyperparameterTuningJob" else "jobSpec", {})
    error = state.get("error")
    return JobStatus(
        id=record["id"],
        kind=kind,
        display_name=record.get("display_name", ""),
        state=JobState(state["state"]),
        backend="local",
        name=f"{record['parent']}/{collection}/{record['id']}",
        labels=tuple(sorted(record.get("labels", {}).items())),
        create_time=record.get("create_time"),
        start_time=state.get("start_time"),
        end_time=state.get("end_time"),
        update_time=state.get("update_time"),
        error=error.get("message") if isinstance(error, dict) else error,
        message=state.get("message"),
        replicas=tuple(
            ReplicaStatus(name=r["name"], pool=r["pool"], index=r["index"], task=r["task"], state=r["state"],
                          trial=r.get("trial", ""), pid=r.get("pid"), exit_code=r.get("exit_code"),
                          restarts=r.get("restarts", 0), gpus=r.get("gpus", ""), address=r.get("address", ""))
            for r in state.get("replicas", [])
        ),
        trials=tuple(
            TrialStatus(id=t["id"], state=t["state"], parameters=tuple(sorted(t.get("parameters", {}).items())),
                        metric=t.get("final_metric"), start_time=t.get("start_time"), end_time=t.get("end_time"),
                        error=t.get("error"))
            for t in state.get("trials", [])
        ),
        best_trial=state.get("best_trial"),
        output_dir=spec.get("baseOutputDirectory", {}).get("outputUriPrefix"),
        restarts=state.get("restarts", 0),
        extra={"error_code": error.get("code") if isinstance(error, dict) else None, "request": body,
               "parent": record["parent"]},
    )
