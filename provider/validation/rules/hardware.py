"""Machines, accelerators, regions and zones: the rules of seed 001 and the Vertex offering."""

from __future__ import annotations

from collections.abc import Iterator

from provider.spec.formats.base import CountTable
from provider.spec.formats.registry import format_of
from provider.spec.model import Role, TrainingJob, WorkerPool, path_of
from provider.validation.rules.accelerators import current, machine_types_of, unknown_accelerator
from provider.validation.rules.base import (
    JOB_RULES,
    MACHINE_SPEC,
    REGIONS,
    SEED_001,
    Context,
    Finding,
    Target,
    join,
    rule,
)


def _label(pool: WorkerPool) -> str:
    if pool.legacy_machine_type:
        return f"{pool.legacy_machine_type} ({pool.machine_type})"
    return pool.machine_type


def _mapped_from(pool: WorkerPool) -> str:
    """``the legacy machine type complex_model_s maps to n1-highcpu-8``, or the plain machine type."""
    if pool.legacy_machine_type:
        return f"the legacy machine type {pool.legacy_machine_type} maps to {pool.machine_type}, which"
    if pool.scale_tier:
        return f"scale tier {pool.scale_tier} maps its {pool.role.value} pool to {pool.machine_type}, which"
    return pool.machine_type


@rule
def region_offered(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """Vertex AI offers custom training in the region (AI Platform's list may differ)."""
    if job.region is None:
        yield Finding(
            "the job has no region",
            path_of(job, "region") or path_of(job),
            "region.required",
            JOB_RULES,
            allowed="set region (the gcloud --region of the job; trainjobs convert FILE --region REGION), such as us-central1",
        )
        return
    region = ctx.catalog.region(job.region)
    if region is None:
        return  # the schema already named the allowed regions
    if not region.vertex_training:
        yield Finding(
            f"region {job.region} offered AI Platform Training but Vertex AI does not offer custom training there",
            path_of(job, "region"),
            "region.offered",
            REGIONS,
            allowed="a Vertex AI training region, such as " + join(sorted(r.name for r in ctx.catalog.regions.values()
                                                                       if r.vertex_training)[:6]),
            severity=ctx.offering_severity,
        )


@rule
def chief_single_replica(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    chief = job.chief
    if chief.role is Role.CHIEF and chief.replica_count != 1:
        yield Finding(
            f"the chief pool has {chief.replica_count} replicas",
            path_of(chief, "replica_count"),
            "pools.chief_one_replica",
            MACHINE_SPEC + " (worker_pools: pool 0 replicaCount must be 1)",
            allowed="exactly 1 replica in the chief pool (worker pool 0); put the others in workers",
        )


@rule
def pool_limit(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    if len(job.pools) > 4:
        yield Finding(
            f"the job has {len(job.pools)} worker pools",
            path_of(job, "pools"),
            "pools.max",
            MACHINE_SPEC + " (four positions: chief, workers, parameter servers, evaluators; more is undocumented)",
            allowed="at most 4 pools",
        )


@rule
def machine_offered(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    for pool in job.pools:
        machine = ctx.catalog.machine(pool.machine_type)
        if machine is None:
            continue  # the schema named the allowed machine types
        if not machine.vertex_training:
            mapped = pool.legacy_machine_type or pool.scale_tier
            note = " (the legacy mapping itself is unverified)" if mapped else ""
            nearest = _similar_machines(ctx, machine.vcpus or 0, machine.memory_gb or 0)
            yield Finding(
                f"{_mapped_from(pool)} is not a machine type Vertex AI offers for training{note}"
                + (f"; the nearest offered type is {nearest[0]}" if nearest else ""),
                path_of(pool, "machine_type"),
                "machine.offered",
                MACHINE_SPEC + ("; tools/catalog/reference/legacy_machine_types.json" if mapped else ""),
                allowed="a Vertex AI training machine type with enough room, such as " + join(nearest[:3])
                + (" (scaleTier CUSTOM with masterType/workerType)" if pool.scale_tier else ""),
                severity=ctx.offering_severity,
            )


def _similar_machines(ctx: Context, vcpus: float, memory: float) -> list[str]:
    """Vertex AI training machine types with at least these vCPUs and memory, the nearest first."""
    options = [
        m for m in ctx.catalog.machine_types.values()
        if m.vertex_training and not m.requires_accelerator and m.vcpus and m.vcpus >= vcpus and (m.memory_gb or 0) >= memory
    ]
    options.sort(key=lambda m: ((m.vcpus or 0), (m.memory_gb or 0), m.name))
    return [m.name for m in options]


def _counts(ctx: Context, job: TrainingJob, machine: str) -> dict[str, list[int]]:
    if format_of(job.source_format).count_table is CountTable.AI_PLATFORM:
        return ctx.catalog.counts("ai_platform", machine) or ctx.catalog.counts("vertex", machine)
    return ctx.catalog.seed_counts(machine)


def _takes(ctx: Context, acc: str, count: int, machine: str) -> str:
    """``; a2-highgpu-2g takes 2 x NVIDIA_TESLA_A100``: the machine types of Vertex AI's table that take
    ``count``, or, when none does, the counts any machine type takes."""
    from provider.catalog.offers import machines_for

    others = [m for m in machines_for(acc, count, ctx.catalog) if m != machine]
    if others:
        return f"; {join(others[:4])} take{'s' if len(others) == 1 else ''} {count} x {acc}"
    counts = sorted({c for accs in ctx.catalog.counts_table("vertex").values() for c in accs.get(acc, [])})
    return f"; no machine type takes {count}: {acc} comes {join(counts)} to a machine (trainjobs gpus)" if counts else ""


def _caps_reason(ctx: Context, machine_name: str, acc: str, count: int, allowed: list[int]) -> str:
    """Why a GPU count does not fit: the vCPU and memory each GPU can serve (seed 001)."""
    machine = ctx.catalog.machine(machine_name)
    caps = ctx.catalog.gpu_caps()["caps_by_gpu_count"].get(acc, {})
    if machine is None or not machine.vcpus or str(count) not in caps:
        return ""
    cap = caps[str(count)]
    if machine.vcpus <= cap["max_vcpus"] and (machine.memory_gb or 0) <= cap["max_memory_gb"]:
        return ""
    need = [c for c in allowed if c > count]
    return (
        f": {machine_name} has {machine.vcpus:g} vCPUs and {machine.memory_gb:g} GB, but {count} x {acc} serve at most "
        f"{cap['max_vcpus']} vCPUs and {cap['max_memory_gb']} GB"
        + (f", so at least {need[0]} are needed" if need else "")
    )


@rule
def accelerator_fits_machine(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """Seed 001's table of valid GPU counts per machine type, and the Vertex AI table."""
    for pool in job.pools:
        machine = ctx.catalog.machine(pool.machine_type)
        if machine is None:
            continue
        counts = _counts(ctx, job, pool.machine_type)
        acc = pool.accelerator
        topologies = ctx.catalog.tpu_topologies(pool.machine_type)
        if topologies is not None:
            if acc is not None:
                yield Finding(
                    f"{_label(pool)} is a TPU machine type: its chips come with it",
                    path_of(acc) or path_of(pool, "accelerator"),
                    "tpu.topology",
                    MACHINE_SPEC,
                    allowed=f"no accelerator; set tpuTopology ({join(topologies)})",
                )
            if not pool.tpu_topology:  # "" (the API's default, written) is no topology
                yield Finding(f"{pool.machine_type} needs a tpuTopology", path_of(pool), "tpu.topology", MACHINE_SPEC,
                              allowed=join(topologies))
            elif pool.tpu_topology not in topologies:
                yield Finding(f"tpuTopology {pool.tpu_topology} is not offered on {pool.machine_type}",
                              path_of(pool, "tpu_topology"), "tpu.topology", MACHINE_SPEC, allowed=join(topologies))
            continue
        if acc is None:
            if machine.requires_accelerator:
                yield Finding(
                    f"{_label(pool)} comes with accelerators, but none is set",
                    path_of(pool),
                    "gpu.required",
                    MACHINE_SPEC,
                    allowed=join(f"{counts[a][0]} x {a}" for a in current(ctx, counts)),
                )
            continue
        if ctx.catalog.accelerator(acc.type) is None:
            yield unknown_accelerator(ctx, acc.type, path_of(acc, "type"), current(ctx, counts))
            continue
        if not counts:
            yield Finding(
                f"{_label(pool)} takes no accelerators",
                path_of(acc) or path_of(pool, "accelerator"),
                "gpu.machine",
                SEED_001 + " (to use GPUs you must use an A2, N1 or G2 machine type)",
                allowed="a GPU machine family (n1, a2, a3, g2 ...) for accelerators, or no accelerator",
            )
            continue
        if acc.type not in counts:
            yield Finding(
                f"{acc.type} cannot be attached to {_label(pool)}",
                path_of(acc, "type"),
                "gpu.type",
                SEED_001 + " (valid numbers of GPUs for each machine type)",
                allowed=f"on {pool.machine_type}: " + (join(current(ctx, counts)) or "no accelerator still offered"),
                hint=f"{acc.type} runs on {machines}" if (machines := machine_types_of(ctx, acc.type)) else None,
            )
            continue
        allowed = counts[acc.type]
        if acc.count not in allowed:
            yield Finding(
                f"{acc.count} x {acc.type} is not a valid count on {_label(pool)}"
                + _caps_reason(ctx, pool.machine_type, acc.type, acc.count, allowed),
                path_of(acc, "count"),
                "gpu.count",
                SEED_001 + " (valid numbers of GPUs; vCPU and memory per GPU)",
                allowed=f"{join(allowed)} x {acc.type} on {pool.machine_type}" + _takes(ctx, acc.type, acc.count, pool.machine_type),
            )


@rule
def tpu_single_pool(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    tpu = [p for p in job.pools if p.machine_type == "cloud-tpu" or ctx.catalog.tpu_topologies(p.machine_type) is not None]
    if tpu and (len(job.pools) > 1 or job.chief.replica_count != 1):
        yield Finding(
            "a TPU job runs as a single worker pool with one replica",
            path_of(tpu[0]),
            "tpu.single_pool",
            JOB_RULES + " (vx.tpu.single_pool)",
            allowed="only the chief pool, with one replica",
        )
    if ctx.target is Target.LOCAL and tpu:
        yield Finding(
            "the local backend cannot run TPU jobs",
            path_of(tpu[0], "machine_type"),
            "local.tpu",
            None,
            allowed="GPU or CPU machine types for local runs",
        )
