"""The job service: customJobs and hyperparameterTuningJobs, run on the local backend.

Create checks the request with the project's validator (and a ``persistentResourceId`` against the
PersistentResources the emulator holds, persistent.py) and hands it to the local backend,
which starts it at once. When the local backend refuses it (no container engine, a package not
in storage, not enough GPUs), the job is still created, as Vertex AI would accept it, and is
FAILED from the start with that reason (FAILED_PRECONDITION). Get, list, cancel and delete
read and act on the local job; delete answers with a finished long-running operation.

Everything here speaks the canonical REST JSON (camelCase, enum names); wire.py turns it into
what the client asked for.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from provider.backends.base import BackendError, JobState, JobStatus, NotFound, Submission, TrialState, TrialStatus
from provider.backends.local import store as local_store
from provider.backends.local.backend import LocalBackend
from provider.backends.local.status import JobUnreadable
from provider.backends.local.store import new_job_id, now
from provider.core import job_kinds
from provider.core.rpc_code import RpcCode
from provider.core.vertex_request import VertexRequest
from provider.emulator import listing, validate, wire
from provider.emulator.errors import ApiError, failed_precondition, invalid, not_found
from provider.emulator.operations import EMPTY, Operations
from provider.emulator.persistent import PersistentResourceService
from provider.emulator.store import EmulatorStore

if TYPE_CHECKING:
    from provider.workspace import Workspace

Json = dict[str, Any]

KINDS = {k.collection: k.name for k in job_kinds.KINDS}  # collection -> kind (provider.core.job_kinds)


class JobService:
    def __init__(self, store: EmulatorStore, local: LocalBackend, cpu_only: bool = False,
                 persistent: PersistentResourceService | None = None) -> None:
        self.store = store
        self.persistent = persistent
        self.local = local
        self.cpu_only = cpu_only
        self._finished: dict[str, JobStatus] = {}  # local jobs that ended: their status never changes
        self._create_lock = threading.Lock()
        self.workspace: Workspace | None = None  # whose stacks' quotas and policy apply (emulator --workspace)
        # Before a valid job runs, given its name-to-be: checks the resources it names, and makes
        # what Vertex AI makes for it (job_tracking.prepare: an experiment run).
        self.tracking: Callable[[str, Json], None] | None = None

    # -- start-up -------------------------------------------------------------------------------
    def reconcile(self) -> None:
        """After a restart: forget records whose local job is gone, adopt local jobs without a record."""
        local_ids = set(self.local.store.ids())
        for record in self.store.newest_first():
            if record.get("local") and record["id"] not in local_ids:
                self.store.drop_job(record["id"])
        known = self.store.ids()
        for job_id in local_ids - known:
            try:
                job = self.local.store.record(job_id)
            except local_store.Unreadable:
                continue  # listed by `trainjobs jobs list` as unreadable; nothing to adopt
            if job is None or job.get("kind") not in KINDS.values():
                continue
            self.store.put_job({"id": job_id, "kind": job["kind"], "parent": job["parent"], "body": job["request"],
                                "create_time": job["create_time"], "local": True})

    # -- names ----------------------------------------------------------------------------------
    def record(self, collection: str, parent: str, job_id: str) -> Json:
        record = self.store.job(job_id)
        if record is None or record["kind"] != KINDS[collection] or record["parent"] != parent:
            raise not_found(f"The {KINDS[collection]} {parent}/{collection}/{job_id} does not exist.")
        return record

    # -- the job as the API shows it -----------------------------------------------------------
    def status(self, record: Json) -> JobStatus | None:
        """The local job's status; None for a job that never started (its record says how it ended)."""
        if not record.get("local"):
            return None
        job_id = record["id"]
        cached = self._finished.get(job_id)
        if cached is not None:
            return cached
        try:
            status = self.local.get(job_id)
        except NotFound:
            return None
        if status.state.terminal:
            self._finished[job_id] = status
        return status

    def render(self, record: Json) -> Json:
        """The job's REST JSON (canonical: enum names)."""
        collection = job_kinds.collection(record["kind"])
        out: Json = dict(record["body"])
        out["name"] = f"{record['parent']}/{collection}/{record['id']}"
        out["createTime"] = record["create_time"]
        try:
            status = self.status(record)
        except JobUnreadable as exc:  # shown as it is, never rewritten: the state is unknown
            out["state"] = "JOB_STATE_UNSPECIFIED"
            out["updateTime"] = record["create_time"]
            out["error"] = {"code": RpcCode.DATA_LOSS.number, "message": exc.message}
            return out
        if status is None:
            error = record.get("error") or {"code": RpcCode.INTERNAL.number, "message": "the job's local files are gone"}
            out["state"] = JobState.FAILED.vertex
            out["updateTime"] = out["endTime"] = record.get("end_time") or record["create_time"]
            out["error"] = error
            return out
        out["state"] = status.state.vertex
        out["updateTime"] = status.update_time or record["create_time"]
        if status.start_time:
            out["startTime"] = status.start_time
        if status.end_time:
            out["endTime"] = status.end_time
        if status.error and status.state in (JobState.FAILED, JobState.CANCELLED):
            code = status.extra.get("error_code") or (RpcCode.CANCELLED.number if status.state is JobState.CANCELLED
                                                      else RpcCode.INTERNAL.number)
            out["error"] = {"code": code, "message": status.error}
        if record["kind"] == job_kinds.TUNING_JOB.name and status.trials:
            metric = ((record["body"].get("studySpec") or {}).get("metrics") or [{}])[0].get("metricId", "")
            out["trials"] = [_trial(t, metric) for t in status.trials]
        return out

    # -- methods --------------------------------------------------------------------------------
    def create(self, collection: str, parent: str, raw: bytes, service_env: dict[str, str] | None = None) -> Json:
        """``service_env``: variables the training service itself sets on every replica (a training
        pipeline's AIP_*_DATA_URI), added after the request is checked, which refuses them from a user."""
        kind = KINDS[collection]
        body = wire.parse(kind, raw)
        location = parent.split("/")[3]
        validate.check(kind, location, body, self.workspace)
        added = [{"name": k, "value": v} for k, v in (service_env or {}).items()]
        for pool in (body.get("jobSpec") or {}).get("workerPoolSpecs") or [] if added else []:
            task = pool.get("pythonPackageSpec") or pool.get("containerSpec")
            if task is not None:
                task["env"] = [*(task.get("env") or []), *added]
        if self.persistent is not None:
            self.persistent.check_target(parent, kind, body)
        with self._create_lock:
            job_id = new_job_id()
            while self.store.job(job_id) is not None or self.local.store.job_dir(job_id).exists():
                job_id = new_job_id()
            if self.tracking is not None:
                self.tracking(f"{parent}/{collection}/{job_id}", body)
            try:
                status = self.local.submit(Submission(VertexRequest(kind, parent, body), cpu_only=self.cpu_only),
                                           job_id)
            except BackendError as exc:
                # Vertex AI would accept the job and fail it later: create it FAILED, saying why.
                created = now()
                record = {"id": job_id, "kind": kind, "parent": parent, "body": body, "create_time": created,
                          "end_time": created, "local": False,
                          "error": {"code": RpcCode.named(exc.code, RpcCode.FAILED_PRECONDITION).number,
                                    "message": f"The local backend cannot run this job: {exc.message}"}}
            else:
                record = {"id": status.id, "kind": kind, "parent": parent, "body": body,
                          "create_time": status.create_time or now(), "local": True}
            self.store.put_job(record)
        return self.render(record)

    def get(self, collection: str, parent: str, job_id: str) -> Json:
        return self.render(self.record(collection, parent, job_id))

    def list(self, collection: str, parent: str, params: dict[str, str]) -> Json:
        """One page of the collection, newest first: reads the jobs it returns and the ones the filter skips.

        A filter that reads neither ``state`` nor ``update_time`` is checked on the stored request,
        so only the jobs returned are rendered (their local state read).
        """
        kind = KINDS[collection]
        return listing.page(lambda after: self.store.walk(kind, parent, after), self.render, collection, parent,
                            params, stored=_stored_view)

    def cancel(self, collection: str, parent: str, job_id: str) -> Json:
        record = self.record(collection, parent, job_id)
        job = self.render(record)
        if job["state"] in (JobState.SUCCEEDED.vertex, JobState.FAILED.vertex, JobState.CANCELLED.vertex):
            raise failed_precondition(f"The {record['kind']} {job['name']} cannot be cancelled: it is already "
                                      f"{job['state']}.")
        try:
            self.local.cancel(job_id)
        except BackendError as exc:
            raise ApiError(exc.code, exc.message) from None
        return {}

    def delete(self, collection: str, parent: str, job_id: str) -> Json:
        record = self.record(collection, parent, job_id)
        job = self.render(record)
        if job["state"] not in (JobState.SUCCEEDED.vertex, JobState.FAILED.vertex, JobState.CANCELLED.vertex):
            raise failed_precondition(f"The {record['kind']} {job['name']} is {job['state']}: only a finished job "
                                      "can be deleted. Cancel it first, and wait until it is JOB_STATE_CANCELLED.")
        op = Operations(self.store).finished(parent, "DeleteOperationMetadata", EMPTY)
        if record.get("local"):
            self._wait_for_supervisor(job_id)
            try:
                self.local.delete(job_id)
            except NotFound:
                pass
            except BackendError as exc:
                raise ApiError(exc.code, exc.message) from None
        self.store.drop_job(job_id)
        self._finished.pop(job_id, None)
        return op

    def _wait_for_supervisor(self, job_id: str, timeout: float = 10.0) -> None:
        """A finished job's supervisor may still be exiting: let it go before its files do."""
        from provider.backends.polling import Backoff, poll_until

        state = local_store.read_json(self.local.store.job_dir(job_id) / "state.json") or {}
        poll_until(lambda: local_store.alive(state.get("supervisor")), lambda alive: not alive, Backoff.every(0.01),
                   timeout)


def _stored_view(record: Json) -> Json:
    """What a filter without state or update_time reads, as render() would show it."""
    body = record["body"]
    view: Json = {"createTime": record["create_time"]}
    for key in ("displayName", "labels"):
        if key in body:
            view[key] = body[key]
    return view


def _trial(trial: TrialStatus, metric: str) -> Json:
    out: Json = {"id": trial.id, "state": TrialState.of(trial.state).vertex,
                 "parameters": [{"parameterId": k, "value": v} for k, v in trial.parameters]}
    if trial.metric is not None:
        out["finalMeasurement"] = {"metrics": [{"metricId": metric, "value": trial.metric}]}
    if trial.start_time:
        out["startTime"] = trial.start_time
    if trial.end_time:
        out["endTime"] = trial.end_time
    if trial.error and out["state"] == "INFEASIBLE":
        out["infeasibleReason"] = trial.error
    return out


def check_page_params(params: dict[str, str]) -> None:
    for key in params:
        if key not in ("filter", "pageSize", "pageToken", "readMask", "$alt", "alt"):
            raise invalid(f'Invalid query parameter "{key}": customJobs.list takes filter, pageSize, pageToken and '
                          "readMask.")
