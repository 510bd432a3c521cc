"""Team policy as code: each stack's quotas and rules, checked against its jobs.

One implementation serves ``trainjobs validate``, ``trainjobs plan``, the provider's check()
and the Pulumi policy pack. A violation names the rule, the limit and the value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from provider.core.record import Record
from provider.spec.hardware import held, held_by, shapes
from provider.spec.model import DocPath, TrainingJob, path_of
from provider.spec.reader import format_duration
from provider.stack.config import StackConfig


class Violation(Record):
    """A broken quota or policy rule: the rule, the job (None: the whole stack), the limit and the value."""

    rule: str  # quotas.maxGpusPerJob, policy.requiredLabels ...
    job: str | None  # None for stack-wide rules
    limit: str
    value: str
    message: str
    path: DocPath = ()

    def text(self) -> str:
        return f"{self.message} (rule {self.rule}: limit {self.limit}, value {self.value})"


def gpus_at_once(job: TrainingJob) -> int:
    """GPUs a job holds at the same time (provider.spec.hardware: a tuning job runs maxParallelTrials at once)."""
    return held_by(job).gpus


def _accelerators(job: TrainingJob) -> list[tuple[str, DocPath]]:
    return [(p.accelerator.type, path_of(p.accelerator, "type") or path_of(p)) for p in job.pools if p.accelerator]


def _gpus_per_job(job: TrainingJob, stack: StackConfig) -> list[Violation]:
    limit, gpus = stack.quotas.max_gpus_per_job, gpus_at_once(job)
    if limit is None or gpus <= limit:
        return []
    hp = job.hyperparameters
    per_trial = f" ({held(shapes(job)).gpus} per trial x {hp.max_parallel_trials} parallel trials)" \
        if hp and hp.max_parallel_trials > 1 else ""
    return [Violation("quotas.maxGpusPerJob", job.name, str(limit), str(gpus),
                      f"{job.name} holds {gpus} GPUs at once{per_trial}, more than stack {stack.name} allows per job",
                      path_of(job, "pools"))]


def _accelerators_allowed(job: TrainingJob, stack: StackConfig) -> list[Violation]:
    allowed = stack.quotas.allowed_accelerators
    if allowed is None:
        return []
    return [Violation("quotas.allowedAccelerators", job.name, ", ".join(allowed) or "none", acc,
                      f"{job.name} uses {acc}, which stack {stack.name} does not allow", where)
            for acc, where in _accelerators(job) if acc not in allowed]


def _region_allowed(job: TrainingJob, stack: StackConfig) -> list[Violation]:
    allowed = stack.quotas.allowed_regions
    if allowed is None or job.region in allowed:
        return []
    return [Violation("quotas.allowedRegions", job.name, ", ".join(allowed), str(job.region),
                      f"{job.name} runs in {job.region}, which stack {stack.name} does not allow",
                      path_of(job, "region"))]


def _running_time(job: TrainingJob, stack: StackConfig) -> list[Violation]:
    most = stack.quotas.max_running_seconds
    if most is None:
        return []
    running, limit = job.scheduling.max_running_seconds, format_duration(most)
    if running is None:
        return [Violation("quotas.maxRunningTime", job.name, limit, "unset (7 days by default)",
                          f"{job.name} sets no maxRunningTime; stack {stack.name} needs one of at most {limit}",
                          path_of(job, "scheduling") or path_of(job))]
    if running <= most:
        return []
    return [Violation("quotas.maxRunningTime", job.name, limit, format_duration(running),
                      f"{job.name} may run {format_duration(running)}, longer than stack {stack.name} allows",
                      path_of(job.scheduling, "max_running"))]


def _required_labels(job: TrainingJob, stack: StackConfig) -> list[Violation]:
    labels = {**job.labels_dict, **stack.labels_dict}
    missing = [k for k in stack.policy.required_labels if k not in labels]
    if not missing:
        return []
    return [Violation("policy.requiredLabels", job.name, ", ".join(stack.policy.required_labels),
                      ", ".join(sorted(labels)) or "no labels",
                      f"{job.name} lacks the label(s) {', '.join(missing)} that stack {stack.name} requires",
                      path_of(job, "labels") or ("metadata",))]


# The per-job rules, in the order their violations are reported.
JOB_RULES: tuple[Callable[[TrainingJob, StackConfig], list[Violation]], ...] = (
    _gpus_per_job, _accelerators_allowed, _region_allowed, _running_time, _required_labels)


def check_job(job: TrainingJob, stack: StackConfig) -> list[Violation]:
    """The per-job rules of ``stack``."""
    return [v for rule in JOB_RULES for v in rule(job, stack)]


def check_stack(jobs: Iterable[TrainingJob], stack: StackConfig) -> list[Violation]:
    """Per-job rules for every job, and the stack-wide GPU quota."""
    jobs = list(jobs)
    out = [v for job in jobs for v in check_job(job, stack)]
    total = sum(gpus_at_once(j) for j in jobs)
    limit = stack.quotas.max_gpus_per_stack
    if limit is not None and total > limit:
        detail = ", ".join(f"{j.name} {gpus_at_once(j)}" for j in jobs if gpus_at_once(j))
        out.append(Violation("quotas.maxGpusPerStack", None, str(limit), str(total),
                             f"the jobs of stack {stack.name} hold {total} GPUs at once ({detail})"))
    return out


def owners_for(path: str, stacks: Iterable[StackConfig]) -> list[str]:
    """Who owns a specs/ path: the owners of its longest matching folder, across stacks."""
    best: tuple[int, list[str]] = (-1, [])
    for stack in stacks:
        for folder, owners in stack.policy.owners:
            if path.startswith(folder) and len(folder) > best[0]:
                best = (len(folder), list(owners))
            elif path.startswith(folder) and len(folder) == best[0]:
                best = (best[0], sorted(set(best[1]) | set(owners)))
    return best[1]
