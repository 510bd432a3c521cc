"""gcloud's cluster flags beside ``trainingInput``, laid over it the way gcloud lays them.

``gcloud ai-platform jobs submit training`` reads ``--config`` into a Job, then sets each field
named by a flag, one field at a time (``api_lib/ml_engine/jobs.py`` BuildTrainingJob and
``command_lib/ml_engine/jobs_util.py`` TrainingCustomInputServerConfig): ``--master-accelerator
count=4,type=...`` sets ``masterConfig.acceleratorConfig.count`` and ``.type`` and keeps the
rest of ``masterConfig``. A spec may carry the same flags beside ``trainingInput`` in camelCase;
``overlay`` returns the ``trainingInput`` gcloud would send. The flags that name one value
(``region``, ``jobDir``, ``moduleName``, ``runtimeVersion`` ...: ``FLAGS``) are read with
``effective``, so each keeps its own position for messages.

Values are the API's: ``scaleTier: CUSTOM``, ``masterAccelerator: {type: NVIDIA_TESLA_T4,
count: 4}``; ``trainjobs convert --gcloud`` turns gcloud's ``custom`` / ``nvidia-tesla-t4`` into them.
"""

from __future__ import annotations

import copy
from typing import Any

from provider.spec.model import DocPath
from provider.spec.reader import ConversionError, Node

# The sibling keys that stand for gcloud flags, and the trainingInput field each overrides.
FLAGS = {
    "region": "region",
    "jobDir": "jobDir",
    "runtimeVersion": "runtimeVersion",
    "pythonVersion": "pythonVersion",
    "moduleName": "pythonModule",
    "serviceAccount": "serviceAccount",
    "args": "args",
}

# flag key beside trainingInput -> the path it sets inside trainingInput
FIELD_FLAGS: dict[str, tuple[str, ...]] = {
    "scaleTier": ("scaleTier",),
    "masterMachineType": ("masterType",),
    "masterImageUri": ("masterConfig", "imageUri"),
    "workerMachineType": ("workerType",),
    "workerCount": ("workerCount",),
    "workerImageUri": ("workerConfig", "imageUri"),
    "tpuTfVersion": ("workerConfig", "tpuTfVersion"),
    "parameterServerMachineType": ("parameterServerType",),
    "parameterServerCount": ("parameterServerCount",),
    "parameterServerImageUri": ("parameterServerConfig", "imageUri"),
    "useChiefInTfConfig": ("useChiefInTfConfig",),
    "enableWebAccess": ("enableWebAccess",),
    "network": ("network",),
    "kmsKey": ("encryptionConfig", "kmsKeyName"),
}
ACCELERATOR_FLAGS = {
    "masterAccelerator": "masterConfig",
    "workerAccelerator": "workerConfig",
    "parameterServerAccelerator": "parameterServerConfig",
}


def _set(target: dict[str, Any], path: tuple[str, ...], value: object) -> None:
    for key in path[:-1]:
        inner = target.get(key)
        if not isinstance(inner, dict):
            inner = {}
            target[key] = inner
        target = inner
    target[path[-1]] = value


def overlay(spec: Node, ti: Node) -> Node:
    """The trainingInput gcloud would send: ti with the flags beside it applied (ti itself if none)."""
    present = [k for k in (*FIELD_FLAGS, *ACCELERATOR_FLAGS) if k in spec]
    if not present:
        return ti
    data: dict[str, Any] = copy.deepcopy(ti.data)
    for key in present:
        value = spec.raw(key)
        if key in FIELD_FLAGS:
            _set(data, FIELD_FLAGS[key], value)
            continue
        if not isinstance(value, dict):
            raise ConversionError(f"{key} is not a mapping of count and type")
        for part in ("type", "count"):
            if value.get(part) is not None:
                _set(data, (ACCELERATOR_FLAGS[key], "acceleratorConfig", part), value[part])
    return Node(data, ti.path)


def effective(spec: Node, ti: Node, flag: str) -> tuple[object, DocPath]:
    """The value of a ``FLAGS`` flag and where it was written: the flag beside trainingInput wins
    over the same field inside it (gcloud precedence)."""
    if flag in spec:
        return spec.raw(flag), spec.at(flag)
    field = FLAGS[flag]
    return ti.raw(field), ti.at(field)
