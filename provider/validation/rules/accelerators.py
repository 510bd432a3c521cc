"""The accelerators a job names, against the catalog: known, still offered (not retired), offered in the
job's region, and sharing one zone (seed 001 and the Vertex AI offering)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator

from provider.catalog import AcceleratorKind, Region
from provider.core.problem import Severity
from provider.core.suggest import did_you_mean
from provider.spec.model import DocPath, TrainingJob, WorkerPool, path_of
from provider.validation.rules.base import MACHINE_SPEC, REGIONS, SEED_001, Context, Finding, join, rule


def written(pool: WorkerPool, acc: str) -> str:
    """An accelerator as the user wrote it: bundled in a legacy machine type or a scale tier, or by name."""
    if pool.legacy_machine_type and pool.accelerator is not None and "type" not in pool.accelerator.at:
        return f"{acc} (the GPU of the legacy machine type {pool.legacy_machine_type})"
    if pool.scale_tier and pool.accelerator is not None:
        return f"{acc} (the GPU of scale tier {pool.scale_tier})"
    return acc


def current(ctx: Context, accelerators: Iterable[str]) -> list[str]:
    """The accelerators a message may offer: never a retired one (K80, P100 past its end of support), nor one no
    machine type trains on (TPU_V4_POD): the catalog's Accelerator.offered, as the schema's enums use it."""
    out = []
    for name in sorted(accelerators):
        info = ctx.catalog.accelerator(name)
        if info is None or info.offered(ctx.today):
            out.append(name)
    return out


def unknown_accelerator(ctx: Context, name: str, where: DocPath, on_machine: list[str]) -> Finding:
    offered = current(ctx, ctx.catalog.accelerators)
    return Finding(
        f"{name} is not an accelerator type Vertex AI knows", where, "gpu.unknown", MACHINE_SPEC + " (AcceleratorType)",
        allowed=(f"on this machine type: {join(on_machine)}" if on_machine else "one of " + join(offered))
        + " (trainjobs gpus lists them)",
        hint=_enum_spelling(ctx, name) or _model_spelling(ctx, name, on_machine) or did_you_mean(name, offered))


def _enum_spelling(ctx: Context, name: str) -> str | None:
    """gcloud's flag spelling of an accelerator (``nvidia-tesla-k80``, ``type=NVIDIA-TESLA-K80``) written where the
    API takes its enum: the enum's name, which a closest-match guess misses when the enum is retired (K80)."""
    enum = name.strip().upper().replace("-", "_")
    if enum == name or enum not in ctx.catalog.accelerators:
        return None
    return f"the AcceleratorType enum spells it {enum} ({name} is gcloud's flag spelling, which the API refuses)"


def _gpu_model(words: str) -> tuple[frozenset[str], str | None]:
    """A GPU's model words and memory, from a display name ("A100 40GB") or a name as written
    ("NVIDIA_TESLA_A100_80GB"): NVIDIA and TESLA are no part of the model, "80GB" is its memory."""
    split = [w for w in re.split(r"[\s_-]+", words.upper()) if w and w not in ("NVIDIA", "TESLA")]
    memory = [w for w in split if re.fullmatch(r"\d+GB", w)]
    return frozenset(w for w in split if w not in memory), (memory[0] if memory else None)


def _model_spelling(ctx: Context, name: str, on_machine: list[str]) -> str | None:
    """The enum of the GPU a misspelled name means: NVIDIA_TESLA_L4 is NVIDIA_L4, NVIDIA_H100 is NVIDIA_H100_80GB,
    NVIDIA_A100_40GB is NVIDIA_TESLA_A100 (the enum's names do not follow one pattern; a closest-match guess
    offers T4 for L4), with the machine types that carry it when this pool's does not."""
    model, memory = _gpu_model(name)
    if not model:
        return None
    meant = []
    for acc in current(ctx, ctx.catalog.accelerators):
        info = ctx.catalog.accelerator(acc)
        if info is None or info.kind is not AcceleratorKind.GPU:
            continue
        their_model, their_memory = _gpu_model(info.display)
        their_memory = their_memory or _gpu_model(acc)[1]
        if their_model == model and (memory is None or their_memory in (None, memory)):
            meant.append(acc)
    if not meant:
        return None
    parts = []
    for acc in meant:
        info = ctx.catalog.accelerator(acc)
        machines = None if acc in on_machine else machine_types_of(ctx, acc)
        carried = f", on {machines}" if machines else ""
        parts.append(f"{acc} ({info.display if info else acc}{carried})")
    return f"the AcceleratorType enum names this GPU {join(parts)}"


def machine_types_of(ctx: Context, acc: str) -> str | None:
    """The Vertex AI machine types that carry an accelerator, smallest first ("g2-standard-4, g2-standard-8 ...")."""
    table = ctx.catalog.counts_table("vertex")
    names = [m for m, counts in table.items() if acc in counts]
    names.sort(key=lambda m: [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", m)])
    return join(names[:4]) + (" ..." if len(names) > 4 else "") if names else None


@rule
def accelerator_offered(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """Valid under the seeds, but no longer offered (K80) or past end of support (P100)."""
    seen: set[str] = set()
    for pool in job.pools:
        acc = pool.accelerator
        if acc is None or acc.type in seen:
            continue
        seen.add(acc.type)
        info = ctx.catalog.accelerator(acc.type)
        if info is None:
            continue
        where = path_of(acc, "type") or path_of(pool)
        instead = f"use {join(info.instead)} instead" if info.instead else None
        if info.no_training_machine:
            trainable = sorted(a.name for a in ctx.catalog.accelerators.values() if a.kind is AcceleratorKind.TPU and a.vertex_training)
            yield Finding(
                f"{acc.type} is in Vertex AI's AcceleratorType list, but Vertex AI offers no machine type to train on it",
                where,
                "tpu.offered",
                "tools/catalog/curated/tpu_training.json (" + info.no_training_machine + ")",
                allowed="a TPU Vertex AI trains on: " + join(trainable),
                severity=ctx.offering_severity,
            )
        elif not info.vertex_training:
            yield Finding(
                f"{written(pool, acc.type)} is valid under AI Platform Training (seed 001) but Vertex AI no longer "
                f"offers it ({info.display}: end of support)",
                where,
                "gpu.offered",
                MACHINE_SPEC + " (AcceleratorType enum: deprecated)",
                allowed=instead,
                severity=ctx.offering_severity,
            )
        elif info.end_of_support and dt.date.fromisoformat(info.end_of_support) <= ctx.today:
            yield Finding(
                f"{written(pool, acc.type)} reached end of support on {info.end_of_support}; new jobs may not get it",
                where,
                "gpu.end_of_support",
                MACHINE_SPEC + " (accelerator_capacity_notes)",
                allowed=instead,
                severity=Severity.WARNING,
            )


def _accelerators(ctx: Context, job: TrainingJob) -> list[tuple[str, WorkerPool]]:
    out = []
    for pool in job.pools:
        if pool.accelerator is not None:
            out.append((pool.accelerator.type, pool))
        else:
            implied = ctx.catalog.implied_accelerator(pool.machine_type)
            if implied:
                out.append((implied, pool))
    return out


@rule
def accelerator_in_region(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """The accelerator is offered for training in the job's region (seed 001, Vertex locations)."""
    region = ctx.catalog.region(job.region or "")
    if region is None:
        return
    for acc, pool in _accelerators(ctx, job):
        info = ctx.catalog.accelerator(acc)
        # Every pool is reported, each at its own accelerator; an unknown one was reported once
        # (hardware.py), and one Vertex AI offers nowhere by accelerator_offered.
        if acc not in region.vertex_accelerators and info is not None and info.vertex_training:
            yield _not_in_region(ctx, job, pool, acc, region)


def _not_in_region(ctx: Context, job: TrainingJob, pool: WorkerPool, acc: str, region: Region) -> Finding:
    where = path_of(pool.accelerator, "type") if pool.accelerator else path_of(pool, "machine_type")
    offering = join(sorted(r.name for r in ctx.catalog.regions.values() if acc in r.vertex_accelerators)) or "none"
    here = f"accelerators in {job.region}: " + (join(current(ctx, region.vertex_accelerators)) or "none")
    info = ctx.catalog.accelerator(acc)
    if info is not None and info.retired(ctx.today):
        instead = f"use {join(current(ctx, info.instead))} instead; " if info.instead else ""
        return Finding(f"{written(pool, acc)} is past its end of support and not offered for training in {job.region}",
                       where, "gpu.region", REGIONS, allowed=instead + here)
    if acc in region.ai_platform_gpus or acc in region.ai_platform_tpus:
        return Finding(
            f"{written(pool, acc)} was offered for AI Platform training in {job.region}, but Vertex AI does not "
            "offer it for training there",
            where, "gpu.region", REGIONS, allowed="regions that offer it: " + offering,
            severity=ctx.offering_severity)
    return Finding(f"{written(pool, acc)} is not offered for training in {job.region}", where, "gpu.region",
                   SEED_001 + "; " + REGIONS, allowed="regions that offer it: " + offering + "; " + here)


@rule
def gpus_in_one_zone(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """All GPU types of one job must be available in a single zone of the region (seed 001)."""
    gpus = sorted({p.accelerator.type for p in job.pools if p.accelerator and p.gpus})
    if len(gpus) < 2 or job.region is None:
        return
    for statement in ctx.catalog.zone_statements(job.region):
        if set(statement["gpus"]) <= set(gpus):
            yield Finding(
                f"no zone of {job.region} offers all of {join(gpus, 'and')}; a job's GPU types must share one zone",
                path_of(job, "pools"),
                "gpu.zone",
                f"{statement['source']} (GPUs of one job in one zone)",
                allowed=f"GPU types that share a zone of {job.region}; the docs name {join(statement['gpus'], 'and')} "
                "as a combination no zone offers",
            )
            return
    zones = ctx.catalog.zones(job.region)
    known = {g for z in zones.values() for g in z["gpus"]}
    if not zones or not set(gpus) <= known:
        return  # the catalog cannot tell; say nothing rather than guess
    if any(set(gpus) <= set(z["gpus"]) for z in zones.values()):
        return
    unverified = any(set(z.get("unverified", [])) & set(gpus) for z in zones.values())
    by_zone = "; ".join(f"{name}: {join(z['gpus'], 'and')}" for name, z in sorted(zones.items()))
    yield Finding(
        f"no zone of {job.region} offers all of {join(gpus, 'and')}; a job's GPU types must share one zone",
        path_of(job, "pools"),
        "gpu.zone",
        SEED_001 + " (GPUs of one job in one zone)" + ("; zone data partly unverified" if unverified else ""),
        allowed=f"GPU types that share a zone: {by_zone}",
    )
