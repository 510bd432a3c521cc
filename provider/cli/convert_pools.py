"""A file that holds only a job's worker pool specs, read as the CustomJobSpec they are the pools of.

The Python SDK's ``CustomJob(worker_pool_specs=[...])``, Kubeflow's ``CustomTrainingJobOp(worker_pool_specs=[...])``
and ``gcloud ai custom-jobs create --config`` share one list: WorkerPoolSpec mappings, each by its JSON or
its proto names (``machineSpec``, ``machine_spec``), an empty ``{}`` for a pool left out. A file holding just
that list (``json.dump(worker_pool_specs, f)``) is read as ``{workerPoolSpecs: LIST}``, with
``worker_pool_specs`` when the pools use proto names, so each pool is read as the SDK or the REST API reads
it; a note says so. Any other list stays refused as the top level a spec cannot have.
"""

from __future__ import annotations

from typing import Any

from provider.document import load_text
from provider.document.loaded import LoadedDocument
from provider.document.text import decode
from provider.spec.formats.vertex.keys import CAMEL_MARKER, SNAKE_MARKER, snake

_MACHINE = "machineSpec"


def _is_pools(data: Any) -> bool:
    """A non-empty list of mappings, each a pool (it has a machineSpec) or ``{}``, one at least a pool."""
    if not isinstance(data, list) or not data or not all(isinstance(item, dict) for item in data):
        return False
    pools = [item for item in data if item]
    return bool(pools) and all(_MACHINE in item or snake(_MACHINE) in item for item in pools)


def pools_document(raw: bytes, shown: str, notes: list[str]) -> LoadedDocument | None:
    """The file as a CustomJobSpec when it holds a list of worker pool specs; None for any other file."""
    text, _ = decode(raw, shown)
    if text is None:
        return None
    doc = load_text(text, shown)
    if not _is_pools(doc.data):
        return None
    pools: list[dict[str, Any]] = doc.data
    proto_names = all(_MACHINE not in item for item in pools if item)
    marker = SNAKE_MARKER if proto_names else CAMEL_MARKER
    doc.data = {marker: pools}
    doc.key_positions[id(doc.data)] = {marker: (1, 1)}
    doc.value_positions[id(doc.data)] = {marker: doc.starts.get(id(pools), (1, 1))}
    notes.append(f"the file is a list of {len(pools)} worker pool spec(s), read as a CustomJobSpec's {marker} "
                 "(as the SDK's CustomJob(worker_pool_specs=...) and gcloud's --config take them)")
    return doc
