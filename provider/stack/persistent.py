"""The PersistentResources a stack declares (``trainjobs:persistentResources``).

A Vertex AI PersistentResource is a set of machine pools kept running for a team, so its jobs
start without waiting for machines; a job runs on one by naming it in ``persistentResourceId``.
A stack declares each one as Vertex AI's REST resource has it
(https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.persistentResources):

    trainjobs:persistentResources:
      - id: vision-a100                 # persistentResourceId of the create call
        displayName: Vision A100 pool   # optional, up to 128 characters
        resourcePools:                  # required, at least one
          - id: a100                    # optional; Vertex AI generates one when it is absent
            machineSpec: {machineType: a2-highgpu-1g, acceleratorType: NVIDIA_TESLA_A100, acceleratorCount: 1}
            replicaCount: 2
            diskSpec: {bootDiskType: pd-ssd, bootDiskSizeGb: 100}
            autoscalingSpec: {minReplicaCount: 1, maxReplicaCount: 4}
        labels: {team: vision}

The facts and their sources are in docs/pulumi.md ("Persistent resources"). The stack schema
checks the shape (``schema_fragment``); ``problems`` checks what a schema cannot: each pool's
accelerator against its machine type (the catalog's table of valid counts, the one the hardware
rules use), and its ``autoscalingSpec`` against the bounds ResourcePool.AutoscalingSpec documents.
The validation Context carries the declared IDs, so a job naming an ID its stack does not declare
is an error (rule job.persistentResourceId).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from provider.core.record import Record

if TYPE_CHECKING:
    from provider.core.problem import Problem
    from provider.document.loaded import LoadedDocument

# CreatePersistentResourceRequest.persistent_resource_id: at most 63 characters.
ID_PATTERN = "^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$"
# ResourcePool.id: the same rule as the resource's ID (gcloud's --resource-pool-spec resource-pool-id).
POOL_ID_PATTERN = ID_PATTERN
DISPLAY_NAME_MAX = 128  # PersistentResource.display_name
KEY = "trainjobs:persistentResources"
AUTOSCALING_SOURCE = ("https://cloud.google.com/vertex-ai/docs/reference/rest/v1/"
                      "projects.locations.persistentResources#autoscalingspec")


class ResourcePool(Record):
    """One pool of identical machines (ResourcePool)."""

    machine_type: str
    replica_count: int = 1
    id: str | None = None
    accelerator_type: str | None = None
    accelerator_count: int = 0
    boot_disk_type: str | None = None
    boot_disk_size_gb: int | None = None
    min_replica_count: int | None = None
    max_replica_count: int | None = None

    def body(self) -> dict[str, Any]:
        """The REST JSON of the pool (int64 fields as strings, as the REST API writes them)."""
        machine: dict[str, Any] = {"machineType": self.machine_type}
        if self.accelerator_type:
            machine.update(acceleratorType=self.accelerator_type, acceleratorCount=self.accelerator_count)
        out: dict[str, Any] = {"machineSpec": machine, "replicaCount": str(self.replica_count)}
        if self.id:
            out["id"] = self.id
        disk = {k: v for k, v in (("bootDiskType", self.boot_disk_type), ("bootDiskSizeGb", self.boot_disk_size_gb))
                if v is not None}
        if disk:  # Vertex AI's defaults otherwise (pd-ssd, 100 GB)
            out["diskSpec"] = disk
        if self.min_replica_count is not None or self.max_replica_count is not None:
            out["autoscalingSpec"] = {k: str(v) for k, v in (("minReplicaCount", self.min_replica_count),
                                                             ("maxReplicaCount", self.max_replica_count))
                                      if v is not None}
        return out


class PersistentResource(Record):
    """A PersistentResource a stack declares: its ID and pools."""

    id: str
    pools: tuple[ResourcePool, ...]
    display_name: str | None = None
    labels: tuple[tuple[str, str], ...] = ()

    def body(self) -> dict[str, Any]:
        """The REST JSON of the resource, as ``persistentResources.create`` takes it."""
        out: dict[str, Any] = {"resourcePools": [p.body() for p in self.pools]}
        if self.display_name:
            out["displayName"] = self.display_name
        if self.labels:
            out["labels"] = dict(self.labels)
        return out


def _pool(raw: Mapping[str, Any]) -> ResourcePool:
    machine = raw.get("machineSpec") or {}
    disk = raw.get("diskSpec") or {}
    scaling = raw.get("autoscalingSpec") or {}

    def number(value: Any) -> int | None:
        return None if value is None else int(value)

    return ResourcePool(
        machine_type=str(machine.get("machineType", "")),
        replica_count=number(raw.get("replicaCount")) or 1,
        id=raw.get("id"),
        accelerator_type=machine.get("acceleratorType"),
        accelerator_count=number(machine.get("acceleratorCount")) or 0,
        boot_disk_type=disk.get("bootDiskType"),
        boot_disk_size_gb=number(disk.get("bootDiskSizeGb")),
        min_replica_count=number(scaling.get("minReplicaCount")),
        max_replica_count=number(scaling.get("maxReplicaCount")),
    )


def parse(raw: Sequence[Mapping[str, Any]] | None) -> tuple[PersistentResource, ...] | None:
    """``trainjobs:persistentResources`` (already schema-checked) -> the declared resources;
    None when the stack does not set the key."""
    if raw is None:
        return None
    return tuple(
        PersistentResource(
            id=str(item["id"]),
            pools=tuple(_pool(p) for p in item.get("resourcePools") or ()),
            display_name=item.get("displayName"),
            labels=tuple((item.get("labels") or {}).items()),
        )
        for item in raw
    )


def _int64(description: str, minimum: int) -> dict[str, Any]:
    """An int64 field, written as a YAML number (body() writes it as the REST API's decimal string)."""
    return {"type": "integer", "minimum": minimum, "description": description}


def _obj(properties: dict[str, Any], description: str, required: tuple[str, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "additionalProperties": False, "properties": properties,
                           "description": description}
    if required:
        out["required"] = list(required)
    return out


def schema_fragment(machine_types: Sequence[str], accelerators: Sequence[str]) -> dict[str, Any]:
    """The JSON Schema of ``trainjobs:persistentResources`` (provider/stack/schema.py puts it in the stack schema,
    whose ``$defs`` hold labels, diskType and diskSizeGb)."""
    machine_spec = _obj({
        "machineType": {"enum": list(machine_types), "description": "a machine type Vertex AI offers for training"},
        "acceleratorType": {"enum": list(accelerators), "description": "the GPU or TPU type of each machine"},
        "acceleratorCount": {"type": "integer", "minimum": 1, "description": "accelerators per machine"},
    }, "MachineSpec: machineType, acceleratorType, acceleratorCount", required=("machineType",))
    pool = _obj({
        "id": {"type": "string", "pattern": POOL_ID_PATTERN,
               "description": "the pool's ID in the resource (generated when absent)"},
        "machineSpec": machine_spec,
        "replicaCount": _int64("the number of machines in the pool", 1),
        "diskSpec": _obj({"bootDiskType": {"$ref": "#/$defs/diskType"}, "bootDiskSizeGb": {"$ref": "#/$defs/diskSizeGb"}},
                         "DiskSpec: bootDiskType, bootDiskSizeGb (default pd-ssd, 100 GB)"),
        "autoscalingSpec": _obj({
            "minReplicaCount": _int64("the fewest machines the pool scales down to", 0),
            "maxReplicaCount": _int64("the most machines the pool scales up to", 1),
        }, "AutoscalingSpec: minReplicaCount, maxReplicaCount"),
    }, "a ResourcePool: machineSpec, replicaCount, diskSpec, autoscalingSpec", required=("machineSpec",))
    resource = _obj({
        "id": {"type": "string", "pattern": ID_PATTERN,
               "description": "the persistentResourceId that jobs name (at most 63 characters)"},
        "displayName": {"type": "string", "maxLength": DISPLAY_NAME_MAX, "description": "a display name"},
        "resourcePools": {"type": "array", "minItems": 1, "items": pool, "description": "the machine pools"},
        "labels": {"$ref": "#/$defs/labels"},
    }, "a PersistentResource: id, displayName, resourcePools, labels", required=("id", "resourcePools"))
    return {"type": "array", "items": resource, "uniqueItems": True,
            "description": "Vertex AI PersistentResources the stack keeps running; jobs run on one by naming its "
                           "id in persistentResourceId (not emulated by the local backend)"}


class PoolFinding(Record):
    """One thing wrong with a declared pool: where under the pool, what, what is allowed."""

    where: tuple[str, ...]  # keys under the pool: ("machineSpec", "acceleratorCount")
    message: str
    allowed: str
    rule: str
    source: str


def _accelerator_findings(machine: Mapping[str, Any]) -> Iterator[PoolFinding]:
    """The pool's accelerator against its machine type: the catalog's valid counts (seed 001 and Vertex AI)."""
    from provider.catalog import CATALOG
    from provider.validation.rules.base import MACHINE_SPEC, SEED_001, join

    machine_type = str(machine.get("machineType", ""))
    acc, count = machine.get("acceleratorType"), machine.get("acceleratorCount")
    info = CATALOG.machine(machine_type)
    if info is None:
        return  # the schema named the allowed machine types
    if (acc is None) != (count is None):
        missing = "acceleratorCount" if count is None else "acceleratorType"
        yield PoolFinding(("machineSpec", missing), f"{'acceleratorType' if count is None else 'acceleratorCount'} "
                          f"is set without {missing}", "both acceleratorType and acceleratorCount, or neither",
                          "gpu.count", MACHINE_SPEC)
        return
    topologies = CATALOG.tpu_topologies(machine_type)
    counts = CATALOG.seed_counts(machine_type)
    if topologies is not None:
        if acc is not None:
            yield PoolFinding(("machineSpec", "acceleratorType"), f"{machine_type} is a TPU machine type: its chips "
                              "come with it", "no acceleratorType or acceleratorCount", "tpu.topology", MACHINE_SPEC)
    elif acc is None:
        if info.requires_accelerator:
            yield PoolFinding(("machineSpec",), f"{machine_type} comes with accelerators, but none is set",
                              join(f"{c[0]} x {a}" for a, c in sorted(counts.items())), "gpu.required", MACHINE_SPEC)
    elif not counts:
        yield PoolFinding(("machineSpec", "acceleratorType"), f"{machine_type} takes no accelerators",
                          "a GPU machine family (n1, a2, a3, g2 ...) for accelerators, or no accelerator",
                          "gpu.machine", SEED_001 + " (to use GPUs you must use an A2, N1 or G2 machine type)")
    elif acc not in counts:
        yield PoolFinding(("machineSpec", "acceleratorType"), f"{acc} cannot be attached to {machine_type}",
                          f"on {machine_type}: " + join(sorted(counts)), "gpu.type",
                          SEED_001 + " (valid numbers of GPUs for each machine type)")
    elif count not in counts[acc]:
        yield PoolFinding(("machineSpec", "acceleratorCount"), f"{count} x {acc} is not a valid count on "
                          f"{machine_type}", f"{join(counts[acc])} x {acc} on {machine_type}", "gpu.count",
                          SEED_001 + " (valid numbers of GPUs; vCPU and memory per GPU)")


def _autoscaling_findings(pool: Mapping[str, Any]) -> Iterator[PoolFinding]:
    """ResourcePool.AutoscalingSpec: 0 < minReplicaCount <= replicaCount <= maxReplicaCount, min < max."""
    scaling = pool.get("autoscalingSpec")
    if not isinstance(scaling, Mapping):
        return

    def number(value: Any) -> int | None:  # the REST JSON writes int64 as a string
        return None if value is None else int(value)

    low, high = number(scaling.get("minReplicaCount")), number(scaling.get("maxReplicaCount"))
    count = number(pool.get("replicaCount"))
    rule, where = "persistent.autoscaling", ("autoscalingSpec",)
    if low is None or low < 1:
        yield PoolFinding(where + ("minReplicaCount",), "a PersistentResource's autoscaling pool needs "
                          f"minReplicaCount of at least 1{'' if low is None else f' (got {low})'}",
                          "minReplicaCount >= 1", rule, AUTOSCALING_SOURCE)
    if low is not None and high is not None and high <= low:
        yield PoolFinding(where + ("maxReplicaCount",), f"maxReplicaCount {high} is not greater than "
                          f"minReplicaCount {low}", f"maxReplicaCount > {low}", rule, AUTOSCALING_SOURCE)
    if count is not None and low is not None and count < low:
        yield PoolFinding(("replicaCount",), f"replicaCount {count} is below minReplicaCount {low}",
                          f"replicaCount from {low}" + (f" to {high}" if high is not None and high > low else ""), rule,
                          AUTOSCALING_SOURCE)
    if count is not None and high is not None and count > high:
        yield PoolFinding(("replicaCount",), f"replicaCount {count} is above maxReplicaCount {high}",
                          f"replicaCount up to {high}" + (f" (at least {low})" if low is not None else ""), rule,
                          AUTOSCALING_SOURCE)


def pool_findings(pool: Mapping[str, Any]) -> list[PoolFinding]:
    """What is wrong with one resource pool (a stack's, or a create request's REST JSON) beyond its
    shape: its accelerator on its machine type, its autoscaling bounds."""
    machine = pool.get("machineSpec")
    return [*_accelerator_findings(machine if isinstance(machine, Mapping) else {}), *_autoscaling_findings(pool)]


def problems(raw: object, filename: str, doc: LoadedDocument | None) -> list[Problem]:
    """What the schema cannot check in ``trainjobs:persistentResources`` (already schema-checked), each pool's
    problems at their line: accelerator fit and autoscaling bounds."""
    from provider.core.problem import Problem
    from provider.document.locate import locate

    out: list[Problem] = []
    for i, item in enumerate(raw if isinstance(raw, list) else ()):
        pools = item.get("resourcePools") if isinstance(item, Mapping) else None
        for j, pool in enumerate(pools if isinstance(pools, list) else ()):
            if not isinstance(pool, Mapping):
                continue
            for f in pool_findings(pool):
                key = ("config", KEY, i, "resourcePools", j, *f.where)
                pos = locate(doc, key) if doc is not None else None
                where = "".join(f".{k}" for k in f.where)
                out.append(Problem(
                    file=filename, line=pos[0] if pos else None, column=pos[1] if pos else None,
                    path=f"config.{KEY}[{i}].resourcePools[{j}]{where}",
                    message=f"PersistentResource {item.get('id')!r}, pool {pool.get('id') or j}: {f.message}",
                    allowed=f.allowed, rule=f.rule, source=f.source))
    return out
