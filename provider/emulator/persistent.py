"""The PersistentResource service: Vertex AI's ``projects.locations.persistentResources``, emulated.

The methods, as Google's REST reference has them
(https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.persistentResources):

* ``create``  POST ``{parent}/persistentResources?persistentResourceId=ID``, body a PersistentResource:
  a long-running Operation (CreatePersistentResourceOperationMetadata) whose response is the
  resource once it is RUNNING. The ID is required and matches ``^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$``;
  an ID in use is ALREADY_EXISTS; ``resourcePools`` needs at least one pool with a machine type
  Vertex AI offers for training, and each pool gets the checks of a stack's pools
  (provider.stack.persistent.pool_findings): its accelerator against the catalog's valid counts, its
  ``autoscalingSpec`` within the documented bounds (ResourcePool.AutoscalingSpec:
  ``0 < minReplicaCount <= replicaCount <= maxReplicaCount`` and ``minReplicaCount < maxReplicaCount``).
  A pool without an ``id`` gets one (``<machine type>-<n>``), as Vertex AI generates one.
* ``get``     GET ``{name}``; ``list`` GET ``{parent}/persistentResources`` with ``pageSize`` and
  ``pageToken`` (oldest first; paging.py's tokens).
* ``delete``  DELETE ``{name}``: an Operation (DeleteOperationMetadata, response Empty); the resource is
  STOPPING until it is gone.
* operations  GET ``{name}/operations/{id}``: done once the resource is RUNNING (create) or gone (delete).

No machine is provisioned: a resource is PROVISIONING for ``provision_seconds`` after its create,
then RUNNING; a deleted one is STOPPING for ``stop_seconds``, then gone. Records live in
``<state>/persistentResources/`` (one JSON file each, written atomically), so a restarted emulator
serves the same resources. ``check_target`` is what the job service asks before it accepts a
job naming ``persistentResourceId``: the resource exists, is RUNNING, and has a pool of each
worker pool's machine and disk type with room for its replicas.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from provider.backends.local.store import new_job_id, now, write_json
from provider.core import job_kinds
from provider.core.record import Record
from provider.emulator import paging, records, wire
from provider.emulator.errors import ApiError, FieldViolation, invalid, not_found
from provider.stack.persistent import ID_PATTERN, pool_findings

Json = dict[str, Any]

KIND = "PersistentResource"
_TYPE = "type.googleapis.com/google.cloud.aiplatform.v1."
PROVISION_SECONDS = 1.0
STOP_SECONDS = 1.0


def _iso(epoch: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(epoch)) + f".{int(epoch % 1 * 1e6):06d}Z"


class Phase(Record):
    """Where a resource is in its life, at one moment."""

    state: str  # PROVISIONING | RUNNING | STOPPING | GONE
    since: float


def _phase(record: Json, at: float) -> Phase:
    stop = record.get("stop_at")
    if stop is not None:
        gone = stop + record["stop_seconds"]
        return Phase("GONE", gone) if at >= gone else Phase("STOPPING", stop)
    ready = record["created"] + record["provision_seconds"]
    return Phase("RUNNING", ready) if at >= ready else Phase("PROVISIONING", record["created"])


def _violation(field: str, description: str) -> ApiError:
    v = FieldViolation(field, description)
    return invalid(f"List of found errors:\t1.Field: {field}; Message: {description}\t", (v,))


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _pool_violations(i: int, pool: Json) -> list[FieldViolation]:
    """A pool as CreatePersistentResource takes it: a machine type Vertex AI offers, machines, and the
    checks a stack's pools get (provider.stack.persistent.pool_findings: accelerator fit, autoscaling)."""
    from provider.catalog import CATALOG
    from provider.spec.formats.vertex.keys import snake

    at = f"persistent_resource.resource_pools[{i}]"
    machine_type = (pool.get("machineSpec") or {}).get("machineType")
    if not machine_type:
        return [FieldViolation(f"{at}.machine_spec.machine_type", "Required field is not set.")]
    info = CATALOG.machine(str(machine_type))
    if info is None or not info.vertex_training:
        return [FieldViolation(f"{at}.machine_spec.machine_type",
                               f"Machine type \"{machine_type}\" is not offered by Vertex AI for training.")]
    if pool.get("autoscalingSpec") is None and (_int(pool.get("replicaCount")) or 0) < 1:
        return [FieldViolation(f"{at}.replica_count", "Must be a positive number.")]
    return [FieldViolation(".".join([at, *(snake(k) for k in f.where)]), f"{f.message} (allowed: {f.allowed})")
            for f in pool_findings(pool)]


_NUMBER = (int, float)
_RECORD: dict[str, type | tuple[type, ...]] = {
    "name": str, "parent": str, "id": str, "body": dict, "created": _NUMBER, "create_time": str,
    "provision_seconds": _NUMBER, "stop_seconds": _NUMBER, "operations": dict}


def _is_record(data: object) -> bool:
    """A record this module wrote (anything else in the folder is left as it is, and named)."""
    return isinstance(data, dict) and all(isinstance(data.get(k), t) for k, t in _RECORD.items()) and \
        isinstance(data["body"].get("resourcePools"), list)


def _machine(pool: Json) -> tuple[str, str, int, str]:
    """What a job's worker pool and a resource pool must share: machine type, accelerator, boot disk type."""
    spec = pool.get("machineSpec") or {}
    return (str(spec.get("machineType", "")), str(spec.get("acceleratorType") or ""),
            int(spec.get("acceleratorCount") or 0), str((pool.get("diskSpec") or {}).get("bootDiskType") or "pd-ssd"))


def _shown(machine: tuple[str, str, int, str]) -> str:
    kind, acc, count, disk = machine
    return f"{kind}" + (f" with {count} x {acc}" if acc else "") + f" and a {disk} boot disk"


def _named_pools(pools: list[Json]) -> list[Json]:
    """Each pool with an ``id``: the one given, or one made from its machine type."""
    taken = {p["id"] for p in pools if p.get("id")}
    out = []
    for i, pool in enumerate(pools):
        if not pool.get("id"):
            base = re.sub(r"[^a-z0-9-]", "-", str(pool["machineSpec"]["machineType"]).lower())
            n = i
            while f"{base}-{n}" in taken:
                n += 1
            pool = {**pool, "id": f"{base}-{n}"}
            taken.add(pool["id"])
        out.append(pool)
    return out


class PersistentResourceService:
    """The persistentResources collection of every project and location the emulator serves."""

    def __init__(self, state_dir: Path, provision_seconds: float = PROVISION_SECONDS,
                 stop_seconds: float = STOP_SECONDS) -> None:
        self.dir = state_dir / "persistentResources"
        self.provision_seconds = provision_seconds
        self.stop_seconds = stop_seconds
        self._records: dict[str, Json] = {}  # resource name -> record
        self._gone: dict[str, Json] = {}  # resource name -> its last deleted record (its operations answer)
        self._lock = threading.Lock()
        self.unreadable: list[str] = []

    # -- records --------------------------------------------------------------------------------
    def open(self) -> None:
        """Load the records a previous emulator left (an unreadable one is named in ``unreadable``)."""
        for record in records.load(self.dir, _is_record, "a PersistentResource record", self.unreadable):
            self._records[record["name"]] = record

    def _file(self, name: str) -> Path:
        return records.file_of(self.dir, name)

    def _put(self, record: Json) -> None:
        write_json(self._file(record["name"]), record)
        self._records[record["name"]] = record

    def _live(self, name: str) -> Json | None:
        """The record, unless its delete has finished (then it is dropped)."""
        record = self._records.get(name)
        if record is not None and _phase(record, time.time()).state == "GONE":
            self._gone[name] = self._records.pop(name)
            with contextlib.suppress(FileNotFoundError):
                self._file(name).unlink()
            return None
        return record

    def render(self, record: Json) -> Json:
        """The resource's REST JSON (canonical: enum names)."""
        phase = _phase(record, time.time())
        out: Json = {**record["body"], "name": record["name"], "createTime": record["create_time"],
                     "state": phase.state, "updateTime": _iso(phase.since)}
        if phase.state != "PROVISIONING":
            out["startTime"] = _iso(record["created"] + record["provision_seconds"])
        return out

    def state_of(self, parent: str, resource_id: str) -> str | None:
        """The state of ``parent/persistentResources/resource_id``; None when there is none."""
        record = self._live(f"{parent}/persistentResources/{resource_id}")
        return None if record is None else _phase(record, time.time()).state

    # -- methods --------------------------------------------------------------------------------
    def create(self, parent: str, resource_id: str | None, raw: bytes) -> Json:
        if not resource_id:
            raise _violation("persistent_resource_id", "Required field is not set.")
        if not re.fullmatch(ID_PATTERN, resource_id):
            raise _violation("persistent_resource_id", f"Invalid ID {resource_id!r}: it must match {ID_PATTERN} "
                                                       "(at most 63 characters).")
        body = wire.parse(KIND, raw)
        pools = body.get("resourcePools") or []
        if not pools:
            raise _violation("persistent_resource.resource_pools", "At least one resource pool is required.")
        found = [v for i, pool in enumerate(pools) for v in _pool_violations(i, pool)]
        if found:
            raise invalid("List of found errors:\t" + "".join(f"{n}.Field: {v.field}; Message: {v.description}\t"
                                                              for n, v in enumerate(found, 1)), tuple(found))
        body["resourcePools"] = _named_pools(pools)
        name = f"{parent}/persistentResources/{resource_id}"
        with self._lock:
            if self._live(name) is not None:
                raise ApiError("ALREADY_EXISTS", f"The PersistentResource {name} already exists.")
            created = time.time()
            record: Json = {"name": name, "parent": parent, "id": resource_id, "body": body, "created": created,
                            "create_time": _iso(created), "provision_seconds": self.provision_seconds,
                            "stop_seconds": self.stop_seconds, "operations": {}}
            op = self._operation(record, "create")
            self._put(record)
        return self._operation_json(record, op)

    def get(self, name: str) -> Json:
        return self.render(self._record(name))

    def list(self, parent: str, params: dict[str, str]) -> Json:
        size = paging.page_size(params.get("pageSize"))
        after = paging.decode(params.get("pageToken"), parent, "persistentResources")
        with self._lock:
            records = sorted((r for r in list(self._records.values()) if r["parent"] == parent),
                             key=lambda r: (r["create_time"], r["id"]))
            records = [r for r in records if self._live(r["name"]) is not None]
        if after is not None:
            records = [r for r in records if (r["create_time"], r["id"]) > after]
        page = records[:size]
        out: Json = {"persistentResources": [self.render(r) for r in page]}
        if len(records) > size:
            out["nextPageToken"] = paging.encode((page[-1]["create_time"], page[-1]["id"]), parent,
                                                 "persistentResources")
        return out

    def delete(self, name: str) -> Json:
        with self._lock:
            record = self._record(name)
            if record.get("stop_at") is None:
                record = {**record, "stop_at": time.time()}
            op = self._operation(record, "delete")
            self._put(record)
        return self._operation_json(record, op)

    def get_operation(self, name: str, op_id: str) -> Json:
        self._live(name)
        # A finished delete's operation outlives the resource (and a new one of the same ID).
        for record in (self._records.get(name), self._gone.get(name)):
            if record is not None and op_id in record.get("operations", {}):
                return self._operation_json(record, op_id)
        raise not_found(f"Operation {name}/operations/{op_id} does not exist.")

    # -- operations -----------------------------------------------------------------------------
    def _record(self, name: str) -> Json:
        record = self._live(name)
        if record is None:
            raise not_found(f"The PersistentResource {name} does not exist.")
        return record

    @staticmethod
    def _operation(record: Json, kind: str) -> str:
        op_id = new_job_id()
        record["operations"] = {**record.get("operations", {}), op_id: {"kind": kind, "create_time": now()}}
        return op_id

    def _operation_json(self, record: Json, op_id: str) -> Json:
        op = record["operations"][op_id]
        phase = _phase(record, time.time())
        kind = op["kind"]
        done = phase.state == "GONE" if kind == "delete" else phase.state in ("RUNNING", "STOPPING", "GONE")
        metadata_type = "CreatePersistentResourceOperationMetadata" if kind == "create" else "DeleteOperationMetadata"
        out: Json = {"name": f"{record['name']}/operations/{op_id}",
                     "metadata": {"@type": _TYPE + metadata_type,
                                  "genericMetadata": {"createTime": op["create_time"], "updateTime": _iso(phase.since)}},
                     "done": done}
        if done:
            out["response"] = ({"@type": "type.googleapis.com/google.protobuf.Empty"} if kind == "delete"
                               else {"@type": _TYPE + KIND, **self.render({**record, "stop_at": None})})
        return out

    def check_target(self, parent: str, kind: str, body: Json) -> None:
        """A job naming ``persistentResourceId`` runs only on a RUNNING resource of its project and location.

        Vertex AI's own wording for this refusal could not be confirmed from its documents: the
        status (NOT_FOUND for no such resource, FAILED_PRECONDITION for one not RUNNING) and the
        text are the emulator's.
        """
        job_kind = job_kinds.kind(kind)
        spec = body.get(job_kind.spec_field) or {}
        resource_id = spec.get("persistentResourceId")
        if not resource_id:
            return
        name = f"{parent}/persistentResources/{resource_id}"
        state = self.state_of(parent, str(resource_id))
        if state is None:
            raise not_found(f"The PersistentResource {name} named in persistent_resource_id does not exist; create "
                            "it first (persistentResources.create), in the job's project and location.")
        if state != "RUNNING":
            raise ApiError("FAILED_PRECONDITION", f"The PersistentResource {name} named in persistent_resource_id "
                                                  f"is {state}: jobs run only on a RUNNING PersistentResource.")
        self._check_fit(name, job_kind.spec_field_snake, spec.get("workerPoolSpecs") or [])

    def _check_fit(self, name: str, field: str, worker_pools: Sequence[Json]) -> None:
        """Each worker pool runs on a resource pool of the same machine and disk type, and asks for at
        most its replicaCount (or maxReplicaCount), as "Run training jobs on a persistent resource" says
        (https://cloud.google.com/vertex-ai/docs/training/persistent-resource-train)."""
        pools = self._record(name)["body"]["resourcePools"]
        found: list[FieldViolation] = []
        for i, worker in enumerate(worker_pools):
            if not worker:
                continue  # an empty pool (a placeholder) asks for no machines
            want = _machine(worker)
            fits = [p for p in pools if _machine(p) == want]
            most = max((max(_int(p.get("replicaCount")) or 0, _int((p.get("autoscalingSpec") or {})
                                                                    .get("maxReplicaCount")) or 0) for p in fits),
                       default=0)
            asked = _int(worker.get("replicaCount")) or 0
            if not fits:
                offered = "; ".join(f"{p['id']}: {_shown(_machine(p))}" for p in pools)
                found.append(FieldViolation(f"{field}.worker_pool_specs[{i}].machine_spec",
                                            f"No resource pool of {name} has {_shown(want)} (its pools: {offered})."))
            elif asked > most:
                found.append(FieldViolation(f"{field}.worker_pool_specs[{i}].replica_count",
                                            f"{asked} replicas is more than the {most} that the matching resource "
                                            f"pool of {name} can hold."))
        if found:
            raise invalid("List of found errors:\t" + "".join(f"{n}.Field: {v.field}; Message: {v.description}\t"
                                                              for n, v in enumerate(found, 1)), tuple(found))
