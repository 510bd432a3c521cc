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
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import provider
from provider.backends.base import (
    FailedPrecondition,
    InvalidArgument,
    JobStatus,
    Listing,
    NotFound,
    StoredObject,
    Submission,
    UnreadableJob,
)
from provider.backends.local import cluster as cl
from provider.backends.local import gpus, log_times, store
from provider.backends.local import outputs as local_outputs
from provider.backends.local.paths import Storage, default_home, default_storage
from provider.backends.local.preflight import preflight
from provider.backends.local.status import JobUnreadable, checked_status, record_labels
from provider.backends.log_line import SETUP_NAME, LogChunk, LogQuery, check_replica, last
from provider.backends.polling import Backoff, Polled, poll_until
from provider.backends.resolve import Seen, resolve
from provider.core import job_kinds
from provider.core.labels import IDENTITY_LABEL

Json = dict[str, Any]
SECRET_SHOWN = "***"


class _Supervisor(subprocess.Popen[bytes]):
    """A job's supervisor: it outlives this process on purpose (its own session; ``trainjobs run``
    may end, or be interrupted, while the job runs), so one still running when this process ends
    is no leaked resource, and says nothing; init reaps it then. One that has ended is collected
    by ``_reap`` or, at the latest, here as any Popen is."""

    def __del__(self) -> None:
        if self.returncode is None and self.poll() is None:
            return
        super().__del__()


_spawned: list[subprocess.Popen[bytes]] = []
_spawned_lock = threading.Lock()  # callers may be threads: the Pulumi host serves calls in parallel


def _reap() -> None:
    """Collect supervisors that have exited, so a long-lived caller leaves no zombies."""
    with _spawned_lock:
        _spawned[:] = [p for p in _spawned if p.poll() is None]


class LocalBackend(Polled):
    name = "local"
    poll = Backoff(initial=0.05, multiplier=1.5, maximum=1.0, attempts=0, jitter=0.0)  # wait(): files, not an API
    log_backoff = Backoff.every(0.2)  # logs -f: files on this machine, read cheaply

    def __init__(self, home: str | Path | None = None, storage_root: str | Path | None = None,
                 adopt: bool = True, **_: Any) -> None:
        """``adopt=False`` starts every submission as a new job, even one whose identity label is taken:
        the Vertex AI emulator needs that, because Vertex AI itself never adopts (its callers do)."""
        self.home = Path(home).expanduser() if home else default_home()
        self.adopt = adopt
        self.storage = Storage(Path(storage_root).expanduser() if storage_root else default_storage(self.home))
        self.store = store.JobStore(self.home)
        # The API that serves these jobs (the emulator's endpoint): Python trainers' google-cloud-aiplatform
        # and google-cloud-storage reach it (trainer_site.py); None runs them as on Vertex AI.
        self.api_endpoint: str | None = None

    # -- submit ---------------------------------------------------------------------------------
    def submit(self, submission: Submission, job_id: str | None = None) -> JobStatus:
        """``job_id``: the id to give the job (LocalStore.create), the emulator's; a new one when None."""
        _reap()
        request = submission.request
        body = request.body
        labels = dict(body.get("labels", {}))
        if self.adopt and IDENTITY_LABEL in labels:
            existing = self.find({IDENTITY_LABEL: labels[IDENTITY_LABEL]})
            if existing is not None and existing.state.adoptable:
                return existing
        cpu_only = submission.cpu_only or gpus.cpu_mode()
        engine = preflight(_job_spec(submission), cpu_only, self.storage)
        spec_key = job_kinds.kind(request.kind).spec_field
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
            "options": {"cpu_only": cpu_only, "max_wait_seconds": submission.max_wait_seconds, "engine": engine,
                        "api_endpoint": self.api_endpoint},
            "secret_env": sorted(submission.secret_env),  # their values: "***" here, given to the supervisor only
        }
        try:
            job_dir = self.store.create(record, job_id)
        except OSError as exc:
            raise FailedPrecondition(f"cannot write the job's record under {self.store.jobs}: "
                                     f"{'disk full' if store.disk_full(exc) else exc.strerror} ({exc}); nothing "
                                     "was started") from None
        job_id = job_dir.name
        self.spawn(job_dir, secrets)
        return self.get(job_id)

    def check(self, submission: Submission) -> None:
        """Refuse what this machine can never run (GPUs, replicas, TPUs, a container engine), before
        anything is staged or written: launch.prepare calls it first. ``submit`` checks again."""
        preflight(_job_spec(submission), submission.cpu_only or gpus.cpu_mode(), None)

    def spawn(self, job_dir: Path, secrets: dict[str, dict[str, str]] | None = None) -> None:
        """Start the job's supervisor; secret env values go to it through a pipe, never to a file."""
        env = dict(os.environ)
        root = str(Path(provider.__file__).resolve().parents[1])
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        with store.open_private(job_dir / "supervisor.log") as log:
            proc = _Supervisor(
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
        """The job ``ref`` names (provider.backends.resolve: the rules every backend shares)."""
        ids = self.store.ids()  # newest first

        def seen() -> Iterator[Seen]:
            for job_id in ids:
                try:
                    record = self.store.record(job_id) or {}
                except store.Unreadable:
                    continue
                if all(record_labels(record).get(k) == v for k, v in (labels or {}).items()):
                    yield Seen(job_id, job_id, str(record.get("display_name", "")))

        where = "the local backend" + (f" with labels {labels}" if labels else "")
        return resolve(ref, seen, lambda r: r in ids, "local job", where)

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
        return checked_status(job_id, self.store.job_dir(job_id), *found)

    def list(self, labels: dict[str, str] | None = None) -> list[JobStatus]:
        return self.scan(labels)[0]

    def scan(self, labels: dict[str, str] | None = None, limit: int | None = None) -> Listing:
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
                if labels and any(record_labels(record).get(k) != v for k, v in labels.items()):
                    continue
                state = self.store.state(job_id)  # the record is read above, once
                if state is not None:
                    out.append(checked_status(job_id, self.store.job_dir(job_id), record, state))
            except store.Unreadable as exc:
                broken.append(UnreadableJob(job_id, exc.path, exc.reason))
            except JobUnreadable as exc:
                broken.append(UnreadableJob(job_id, self.store.job_dir(job_id), exc.message))
        return Listing(out, broken)

    # -- act ------------------------------------------------------------------------------------
    def request_cancel(self, status: JobStatus) -> str:
        """Leave the cancel file and signal the supervisor, which stops every replica and ends the job."""
        self.store.request_cancel(status.id)
        return status.id

    def delete(self, job_id: str) -> None:
        status = self.get(job_id)
        if not status.state.terminal:
            raise FailedPrecondition(f"job {job_id} is {status.state.value}: cancel it before deleting it")
        self.store.delete(job_id)

    def outputs(self, uri: str) -> builtins.list[StoredObject]:
        return local_outputs.objects(self.storage, uri)

    def download(self, stored: StoredObject, target: Path) -> None:
        local_outputs.copy(self.storage, stored, target)

    def local_path(self, uri: str) -> Path | None:
        try:
            return self.storage.path(uri)
        except ValueError:
            return None

    def read_logs(self, job_id: str, cursor: str = "", query: LogQuery | None = None) -> LogChunk:
        """The lines written since ``cursor`` with the time each was written, in time order (log_times.py).
        While the job runs, a line comes once its time is stamped (within a round of the supervisor's
        stamper); once it has ended, every line left. An unknown ``query.replica`` is UnknownReplica."""
        query = query or LogQuery()
        status = self.get(job_id)  # read first: a line written before the end is then in the files
        logs = self.store.job_dir(job_id) / "logs"
        if not cursor:
            check_replica(status.id, query.replica, _replica_names(status, logs))
        reader = log_times.Reader(logs, local_outputs.offsets(cursor))
        ended = status.state.terminal
        lines = [line for line in reader.read(final=ended) if query.keeps(line)]
        return LogChunk(tuple(last(lines, query.tail) if not cursor else lines),
                        local_outputs.cursor(reader.offsets()), ended)

    def jobs_at(self) -> str:
        return f"local:{self.home.resolve()}"


def _replica_names(status: JobStatus, logs: Path) -> set[str]:
    """What ``--replica`` may name: each replica (``workerpool1-0``, for every trial), and a tuning job's
    replica of one trial (``trial-2/workerpool0-0``)."""
    names = {r.name for r in status.replicas} | {f"trial-{r.trial}/{r.name}" for r in status.replicas if r.trial}
    for path in log_times.log_files(logs):
        name = path.relative_to(logs).with_suffix("").as_posix()
        if name != SETUP_NAME:
            names |= {name, path.stem}
    return names


def _job_spec(submission: Submission) -> Json:
    """The request's job spec (a tuning job's trial spec); InvalidArgument when it has no worker pools."""
    request = submission.request
    job_spec = request.body.get(job_kinds.kind(request.kind).spec_field)
    if not isinstance(job_spec, dict) or not cl.pool_specs(job_spec) or not cl.pool_specs(job_spec)[0]:
        raise InvalidArgument("the request has no worker pools (jobSpec.workerPoolSpecs)")
    return job_spec


def _start_of(pid: int) -> int | None:
    """The start time of a process just spawned (None if it is not seen within half a second)."""
    return poll_until(lambda: store.process_start(pid), lambda start: start is not None, Backoff.every(0.01), 0.5)


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
