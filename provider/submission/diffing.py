"""What a change to a spec does to its job: create, replace, cancel, or nothing.

Jobs are immutable. Anything that changes what the job runs (the Vertex AI request minus its
labels) replaces it; a change that does not (the wait policy, the description, labels) is a
no-op; a desired state of CANCELLED cancels it. The Pulumi provider's diff() and
``trainjobs plan`` both decide with this module, so a plan shows what ``pulumi up`` will do.
"""

from __future__ import annotations

import enum
import hashlib
import json
import re
from typing import Any

from provider.core.record import Record

Json = dict[str, Any]

# Parts of the request that do not change what runs.
NOT_RUN = ("labels",)


class Action(enum.Enum):
    CREATE = "create"
    REPLACE = "replace"
    CANCEL = "cancel"
    DELETE = "delete"  # the spec is gone: the job is cancelled if running, its record kept or deleted
    UNCHANGED = "unchanged"


class FieldChange(Record):
    """One value that differs between the two sides: its path, what a reviewer reads, old and new value."""

    path: str  # request path, e.g. jobSpec.workerPoolSpecs[1].machineSpec.machineType
    label: str  # what a reviewer reads, e.g. "workers: machine type"
    old: Any
    new: Any


class JobDiff(Record):
    """What a change does to a job: the action, what changed in what it runs, and what changed besides."""

    action: Action
    changes: tuple[FieldChange, ...] = ()
    no_op_changes: tuple[FieldChange, ...] = ()  # changed, but not what the job runs

    @property
    def replaces(self) -> bool:
        return self.action is Action.REPLACE


def run_body(body: Json) -> Json:
    """The request without what does not change what runs."""
    return {k: v for k, v in body.items() if k not in NOT_RUN}


def is_proto3_default(value: Any) -> bool:
    """A value Vertex AI cannot tell from an absent field: a proto3 scalar without presence at its
    default (false, 0, "", an enum's *_UNSPECIFIED) or an empty list."""
    kind = type(value)  # a request's most common nodes first, without the isinstance chain
    if kind is str:
        text: str = value
        return text == "" or text.endswith("_UNSPECIFIED")
    if kind is dict:
        return False
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value == 0
    if isinstance(value, str):
        return value == "" or value.endswith("_UNSPECIFIED")
    return isinstance(value, list) and not value


# Messages Vertex AI reads alike empty or absent (a diskSpec of "" and 0, a scheduling of false):
# left out when only defaults were in them. A stopping spec is not one: its presence chooses it.
EMPTY_IS_ABSENT = frozenset({"diskSpec", "scheduling"})


def without_defaults(value: Any) -> Any:
    """``value`` with every mapping's proto3-default fields left out (lists keep their places: an
    empty pool {} is positional). The request carries what the spec wrote, explicit defaults
    included (as gcloud sends them); a state written before left them out: both read alike here,
    so a spec that writes ``restartJobOnWorkerRestart: false`` neither replaces its job nor
    changes its identity."""
    if isinstance(value, dict):
        kept = {k: without_defaults(v) for k, v in value.items() if not is_proto3_default(v)}
        return {k: v for k, v in kept.items() if not (k in EMPTY_IS_ABSENT and v == {})}
    if isinstance(value, list):
        return [without_defaults(v) for v in value]
    return value


def fingerprint(body: Json) -> str:
    """A stable digest of what the job runs: equal requests give equal fingerprints (explicit
    defaults read as absent, as Vertex AI reads them)."""
    text = json.dumps(without_defaults(run_body(body)), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """{"a": {"b": [1]}} -> {"a.b[0]": 1}; lists of scalars stay whole (args read better so)."""
    out: dict[str, Any] = {}
    if isinstance(value, dict):
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else k))
    elif isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        for i, v in enumerate(value):
            out.update(flatten(v, f"{prefix}[{i}]"))
    else:
        out[prefix] = value
    return out


_POOLS = {"0": "chief", "1": "workers", "2": "parameter servers", "3": "evaluators"}
_FIELDS = [
    ("machineSpec.machineType", "machine type"),
    ("machineSpec.acceleratorType", "accelerator type"),
    ("machineSpec.acceleratorCount", "accelerators per replica"),
    ("machineSpec.tpuTopology", "TPU topology"),
    ("replicaCount", "replicas"),
    ("diskSpec.bootDiskType", "boot disk type"),
    ("diskSpec.bootDiskSizeGb", "boot disk size"),
    ("containerSpec.imageUri", "image"),
    ("containerSpec.command", "command"),
    ("containerSpec.args", "args"),
    ("containerSpec.env", "env"),
    ("pythonPackageSpec.executorImageUri", "executor image"),
    ("pythonPackageSpec.packageUris", "package"),
    ("pythonPackageSpec.pythonModule", "module"),
    ("pythonPackageSpec.args", "args"),
    ("pythonPackageSpec.env", "env"),
    ("machineSpec.gpuPartitionSize", "GPU partition size"),
    ("machineSpec.reservationAffinity", "reservation"),
    ("nfsMounts", "NFS mounts"),
    ("lustreMounts", "Lustre mounts"),
]
_TOP = {
    "displayName": "display name",
    "scheduling.timeout": "max running time",
    "scheduling.strategy": "scheduling strategy",
    "scheduling.restartJobOnWorkerRestart": "restart on worker restart",
    "scheduling.maxWaitDuration": "max wait",
    "serviceAccount": "service account",
    "baseOutputDirectory.outputUriPrefix": "output directory",
    "maxTrialCount": "tuning: max trials",
    "parallelTrialCount": "tuning: parallel trials",
    "maxFailedTrialCount": "tuning: max failed trials",
    "studySpec.algorithm": "tuning: algorithm",
    "labels": "labels",
    "scheduling.disableRetries": "disable retries",
    "persistentResourceId": "persistent resource",
    "network": "network",
    "reservedIpRanges": "reserved IP ranges",
    "pscInterfaceConfig": "Private Service Connect interface",
    "protectedArtifactLocationId": "protected artifact location",
    "tensorboard": "TensorBoard",
    "experiment": "experiment",
    "experimentRun": "experiment run",
    "enableWebAccess": "web access",
    "enableDashboardAccess": "dashboard access",
    "models": "models",
    "encryptionSpec.kmsKeyName": "encryption key",
}
_POOL_PATH = re.compile(r"^(?:jobSpec|trialJobSpec)\.workerPoolSpecs\[(\d)\](?:\.(.*))?$")


def label(path: str) -> str:
    m = _POOL_PATH.match(path)
    if m:
        pool = _POOLS.get(m.group(1), f"pool {m.group(1)}")
        rest = m.group(2) or ""
        for prefix, name in _FIELDS:
            if rest == prefix or rest.startswith((prefix + ".", prefix + "[")):
                return f"{pool}: {name}"
        return f"{pool}: {rest}" if rest else pool
    short = re.sub(r"^(jobSpec|trialJobSpec)\.", "", path)
    if short in _TOP:
        return _TOP[short]
    top = short.split(".", 1)[0]
    if top in _TOP and top != "labels":
        return f"{_TOP[top]}: {short[len(top) + 1:]}"
    if short.startswith("studySpec."):
        return "tuning: " + short[len("studySpec."):]
    if short.startswith("labels."):
        return "label " + short[len("labels."):]
    return short


def field_changes(old: Json, new: Json) -> list[FieldChange]:
    a, b = flatten(without_defaults(old)), flatten(without_defaults(new))
    out = []
    for path in sorted(set(a) | set(b), key=lambda p: (label(p), p)):
        if a.get(path) != b.get(path):
            out.append(FieldChange(path, label(path), a.get(path), b.get(path)))
    return out


def diff(old: Json | None, new: Json | None, old_cancelled: bool = False, new_cancelled: bool = False) -> JobDiff:
    """Compare two requests of the same job (None: the job does not exist on that side)."""
    if new is None:
        return JobDiff(Action.DELETE) if old is not None else JobDiff(Action.UNCHANGED)
    if old is None:
        return JobDiff(Action.CREATE, tuple(field_changes({}, new)))
    if old == new and old_cancelled == new_cancelled:  # the common case of a plan: nothing to compare
        return JobDiff(Action.UNCHANGED)
    run = field_changes(run_body(old), run_body(new))
    other = tuple(field_changes({k: old.get(k) for k in NOT_RUN if k in old},
                                {k: new.get(k) for k in NOT_RUN if k in new}))
    if new_cancelled and not old_cancelled:
        return JobDiff(Action.CANCEL, tuple(run), other)
    if run and not new_cancelled:
        return JobDiff(Action.REPLACE, tuple(run), other)
    return JobDiff(Action.UNCHANGED, (), other)
