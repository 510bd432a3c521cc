"""What a stack holds now: its jobs' GPUs against ``maxGpusPerStack``, GPU-hours and estimated cost.

The figures are ``trainjobs plan``'s (provider.gitops.capacity and provider.gitops.cost) for
each job that runs now (not in a terminal state), computed from the stack's spec of that job:
the spec file the stack holds whose ``metadata.name`` gives the job's ``trainjobs-job`` label.
A job with no such spec (started by hand) counts its GPUs from its request, with no estimate: the
stack's cost is the plan's total (provider.gitops.cost.total), the jobs with an estimate summed and
the others named as unpriced.
"""

from __future__ import annotations

from pathlib import Path

from provider.backends.base import JobStatus
from provider.core.backend_registry import capabilities
from provider.core.labels import label_value
from provider.core.record import Record
from provider.document.files import read_file
from provider.gitops.capacity import Capacity, capacity
from provider.gitops.cost import CostTotal, Estimate, estimate, total, unpriced
from provider.spec.model import TrainingJob
from provider.stack.config import StackConfig
from provider.stack.membership import StackIndex, spec_files


class StackSpec(Record):
    """A job of a stack as its spec file says it: the model, and the file (shown on the job's page)."""

    job: TrainingJob
    path: Path
    text: str


def stack_models(index: StackIndex, stack: StackConfig) -> dict[str, StackSpec]:
    """The stack's valid jobs, keyed by the label value of their name (the ``trainjobs-job`` label), each
    read in the stacks of its workspace as every entry point reads it (provider.stack.check.validate_in)."""
    from provider.stack.check import SpecBytes, validate_in

    out: dict[str, StackSpec] = {}
    for path in spec_files(stack, index.root):
        raw, _ = read_file(path, index.shown(path))
        if raw is None:
            continue
        result = validate_in(SpecBytes(raw, index.shown(path), path.parent), index.stacks_of(path))
        if result.job is not None:
            out[label_value(result.job.name)] = StackSpec(result.job, path, raw.decode("utf-8", errors="replace"))
    return out


def spec_of(job: JobStatus, models: dict[str, StackSpec]) -> StackSpec | None:
    name = job.labels_dict.get("trainjobs-job")
    return models.get(name) if name else None


def model_of(job: JobStatus, models: dict[str, StackSpec]) -> TrainingJob | None:
    spec = spec_of(job, models)
    return spec.job if spec else None


class JobUsage(Record):
    """A job that runs now: the GPUs it holds, its cost estimate and, when the stack has its spec, its capacity."""

    job: JobStatus
    gpus: int | None
    capacity: Capacity | None
    cost: Estimate | None  # None: the stack has no spec of the job, so no estimate (unpriced when billed)


class StackUsage(Record):
    """What a stack holds now: its jobs that run, and their GPUs, GPU-hours and estimated cost in all."""

    stack: StackConfig
    jobs: tuple[JobUsage, ...]  # the jobs that run now

    @property
    def gpus_held(self) -> int:
        return sum(j.gpus or 0 for j in self.jobs)

    @property
    def gpu_quota(self) -> int | None:
        return self.stack.quotas.max_gpus_per_stack

    @property
    def max_gpu_hours(self) -> float:
        return sum(j.capacity.max_gpu_hours for j in self.jobs if j.capacity is not None)

    @property
    def billed(self) -> bool:
        return capabilities(self.stack.backend).billed

    @property
    def cost(self) -> CostTotal:
        """The estimated maximum cost of what runs, as ``trainjobs plan`` totals it."""
        return total((j.job.display_name, j.cost or unpriced(self.billed, "no spec of it in the stack"))
                     for j in self.jobs)

    @property
    def usd(self) -> float | None:
        return self.cost.usd

    @property
    def unverified(self) -> bool:
        return self.cost.unverified

    @property
    def unpriced(self) -> tuple[str, ...]:
        return self.cost.unpriced


def usage(stack: StackConfig, jobs: list[JobStatus], models: dict[str, StackSpec]) -> StackUsage:
    from provider.console.views import hardware

    running = []
    for job in jobs:
        if job.state.terminal:
            continue
        model = model_of(job, models)
        if model is None:
            running.append(JobUsage(job, hardware(job).gpus, None, None))
            continue
        cap = capacity(model)
        running.append(JobUsage(job, cap.gpus_at_once, cap, estimate(model, cap, billed=capabilities(stack.backend).billed)))
    return StackUsage(stack, tuple(running))
