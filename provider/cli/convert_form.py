"""Which form ``trainjobs convert`` writes a spec in: the native one, or AI Platform's where only it holds the job.

A native spec's ``machineType`` takes the machine types Vertex AI offers for training. AI Platform's scale
tiers and legacy machine names may map to others (STANDARD_1 and ``complex_model_s`` run n1-highcpu-8), which
a ``spec.trainingInput`` spec holds, with a warning where Vertex AI does not offer them (an error for a Vertex
stack). Written natively, such a job would be a spec that ``trainjobs validate`` refuses though its input was
valid; so it is written as the user wrote it, in AI Platform's form, and the same check gives the same answer.
"""

from __future__ import annotations

import json
from typing import Any

from provider.catalog import CATALOG
from provider.spec.model import SourceFormat, TrainingJob, WorkerPool


def _not_native(pool: WorkerPool) -> bool:
    """A pool whose machine came from a scale tier or a legacy name and is one no native pool takes."""
    if not (pool.scale_tier or pool.legacy_machine_type):
        return False
    machine = CATALOG.machine(pool.machine_type)
    return machine is not None and not machine.vertex_training


def _named(pool: WorkerPool) -> str:
    if pool.legacy_machine_type and pool.legacy_machine_type != pool.machine_type:
        return f"legacy machine type {pool.legacy_machine_type}"
    return f"scale tier {pool.scale_tier}"


def legacy_machines(job: TrainingJob) -> list[str]:
    """Each pool written with an AI Platform legacy machine name: the spec names only what it became."""
    out = []
    for pool in job.pools:
        if pool.legacy_machine_type and pool.legacy_machine_type != pool.machine_type:
            gpus = f" with {pool.accelerator.count} x {pool.accelerator.type}" if pool.accelerator else ""
            out.append(f"the {pool.role.value} pool's legacy machine type {pool.legacy_machine_type} is written as "
                       f"machineType {pool.machine_type}{gpus}, the machine AI Platform gave that name")
    return out


def written_form(job: TrainingJob, native: dict[str, Any], data: Any, notes: list[str]) -> dict[str, Any]:
    """``native``, or the AI Platform spec as read where a pool's machine has no native form (a note says why)."""
    if job.source_format is not SourceFormat.AI_PLATFORM or not isinstance(data, dict):
        return native
    pools = [p for p in job.pools if _not_native(p)]
    spec = data.get("spec")
    if not pools or not isinstance(spec, dict) or "trainingInput" not in spec:
        return native
    causes = list(dict.fromkeys(f"{_named(p)} runs {p.machine_type}" for p in pools))
    notes[:] = [n for n in notes if "is written as machineType" not in n]  # it is not: the spec keeps the name
    notes.append(
        "the spec keeps AI Platform's form (spec.trainingInput), as written: " + "; ".join(causes)
        + ", a machine type a native spec's machineType does not take (Vertex AI does not offer it for training); "
        "for a native spec, use scaleTier CUSTOM with a machine type Vertex AI offers"
    )
    plain = json.loads(json.dumps({"metadata": data.get("metadata"), "spec": spec}))  # without the reader's types
    return {"apiVersion": native["apiVersion"], "kind": native["kind"], **plain}
