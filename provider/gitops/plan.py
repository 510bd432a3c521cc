"""The plan: for each stack a change touches, what ``pulumi up`` would do to each job.

A job is known in its stack by its ``metadata.name``. Both sides build each job's Vertex AI
request, and provider.submission.diffing decides: created, replaced (anything that runs changed),
cancelled (``desiredState: CANCELLED``), deleted (its spec is gone from the stack, or no longer
matched by the stack's globs), or unchanged (also when only labels or the description changed,
or when its file moved). The head's jobs are checked against their stack's policy
(provider.stack.policy), and each violation is marked new or already there at the base.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from provider.core.backend_registry import capabilities
from provider.core.problem import Problem
from provider.core.record import Record
from provider.gitops.capacity import Capacity, capacity
from provider.gitops.codeowners import stack_file_owners
from provider.gitops.cost import CostTotal, Estimate, estimate, total
from provider.gitops.side import Side, SideJob, StackSide
from provider.stack.config import StackConfig
from provider.stack.policy import Violation, check_stack, owners_for
from provider.submission.diffing import Action, FieldChange, diff, field_changes
from provider.validation.names import NO_STACK, duplicate_names


class JobPlan(Record):
    """What ``pulumi up`` would do to one job of a stack, what the job holds, and what it may cost."""

    stack: str
    name: str
    action: Action
    file: str  # the spec file (for a deleted job, where it was)
    moved_from: str | None
    changes: tuple[FieldChange, ...]  # what runs differently (every field, for a new job)
    no_op_changes: tuple[FieldChange, ...]  # changed without changing what runs (labels)
    capacity: Capacity
    cost: Estimate
    live: SideJob  # the job as deployed after the change (as it was, for a deleted job)
    owners: tuple[str, ...]
    replace_order: str | None = None  # for a replace: deleteFirst or createFirst (trainjobs:replace)

    @property
    def starts(self) -> bool:
        """The change starts this job (it runs, and is billed, from the beginning)."""
        return self.action in (Action.CREATE, Action.REPLACE)

    @property
    def touched(self) -> bool:
        return self.action is not Action.UNCHANGED or self.moved_from is not None or bool(self.no_op_changes)


class Totals(Record):
    """Summed over jobs: GPUs and vCPUs held at once, maximum GPU-hours, estimated maximum cost."""

    jobs: int
    gpus_at_once: int
    vcpus_at_once: float | None
    max_gpu_hours: float
    cost: CostTotal  # provider.gitops.cost.total: priced jobs summed, unpriced ones named apart

    @property
    def usd(self) -> float | None:
        return self.cost.usd

    @property
    def unpriced(self) -> tuple[str, ...]:
        return self.cost.unpriced

    @property
    def unverified(self) -> bool:
        return self.cost.unverified

    @property
    def billed_jobs(self) -> int:
        """Jobs that are billed (a local stack's jobs cost nothing)."""
        return self.cost.billed_jobs

    @classmethod
    def of(cls, jobs: Iterable[JobPlan]) -> Totals:
        jobs = list(jobs)
        vcpus = [j.capacity.vcpus_at_once for j in jobs]
        return cls(
            jobs=len(jobs),
            gpus_at_once=sum(j.capacity.gpus_at_once for j in jobs),
            vcpus_at_once=None if None in vcpus else sum(v for v in vcpus if v is not None),
            max_gpu_hours=sum(j.capacity.max_gpu_hours for j in jobs),
            cost=total((j.name, j.cost) for j in jobs),
        )


class Finding(Record):
    """A policy violation of the head, and whether the base had it already."""

    violation: Violation
    new: bool


class StackPlan(Record):
    """A stack the change affects: its settings changes, its jobs' plans, policy findings and GPUs held."""

    name: str
    file: str
    status: str  # "added", "removed", "changed", "unreadable" (the head's file: nothing is planned)
    backend: str | None
    settings_changes: tuple[FieldChange, ...]  # the stack file's config: what changed
    jobs: tuple[JobPlan, ...]  # every job of the stack, on either side
    findings: tuple[Finding, ...]
    gpus_held: int  # by every job of the stack after the change
    gpu_quota: int | None  # maxGpusPerStack
    owners: tuple[str, ...]  # who owns the stack file

    @property
    def started(self) -> Totals:
        return Totals.of(j for j in self.jobs if j.starts)

    def count(self, action: Action) -> int:
        return sum(1 for j in self.jobs if j.action is action)


class Plan(Record):
    """The plan of a change from base to head: the stacks it affects, the head's errors, who must review."""

    base: str
    head: str
    stacks: tuple[StackPlan, ...]  # the stacks the change affects
    unaffected: tuple[str, ...]
    problems: tuple[Problem, ...]  # errors in the head's specs and stack files
    owners: tuple[str, ...]  # who must review: owners of every touched spec and stack file

    @property
    def started(self) -> Totals:
        return Totals.of(j for s in self.stacks for j in s.jobs if j.starts)

    @property
    def violations(self) -> list[Finding]:
        return [f for s in self.stacks for f in s.findings]

    @property
    def ok(self) -> bool:
        return not self.problems and not self.violations


def _with_parent(job: SideJob) -> dict[str, Any]:
    """The request with where it goes: a new project or region replaces the job too."""
    return {"parent": job.request.parent, **job.request.body}


def _job_plan(old: SideJob | None, new: SideJob | None, billed: bool, stacks: list[StackConfig],
              order: str = "deleteFirst") -> JobPlan:
    d = diff(_with_parent(old) if old else None, _with_parent(new) if new else None,
             old.cancelled if old else False, new.cancelled if new else False)
    live = new or old
    assert live is not None
    moved = old.file if old and new and old.file != new.file else None
    cap = capacity(live.job)
    return JobPlan(
        stack=live.stack, name=live.name, action=d.action, file=live.file, moved_from=moved,
        changes=d.changes, no_op_changes=d.no_op_changes, capacity=cap, cost=estimate(live.job, cap, billed),
        live=live, owners=tuple(owners_for(live.file, stacks)),
        replace_order=order if d.action is Action.REPLACE else None,
    )


def _findings(head: list[Violation], base: list[Violation]) -> tuple[Finding, ...]:
    before = {(v.rule, v.job) for v in base}
    return tuple(Finding(v, (v.rule, v.job) not in before) for v in head)


def _unchanged(name: str, base: Side, head: Side, jobs: list[JobPlan]) -> bool:
    """The change leaves the stack as it was: its file, its specs and every job."""
    old_side, new_side = base.stacks.get(name), head.stacks.get(name)
    if old_side is None or new_side is None or old_side.content != new_side.content:
        return False
    if set(old_side.specs) != set(new_side.specs):
        return False
    if any(base.files.get(p) != head.files.get(p) for p in new_side.specs):
        return False
    return not any(j.touched for j in jobs)


def _status(old_side: StackSide | None, new_side: StackSide | None) -> str:
    if new_side is not None and not new_side.readable:
        return "unreadable"
    if old_side is None:
        return "added"
    return "removed" if new_side is None else "changed"


def _config(side: StackSide | None) -> StackConfig | None:
    return side.config if side is not None else None


def _stack_findings(name: str, base: Side, head: Side) -> tuple[Finding, ...]:
    """The head's policy violations, each marked new or already there at the base."""
    new_config, old_config = _config(head.stacks.get(name)), _config(base.stacks.get(name))
    if new_config is None:
        return ()
    old = check_stack([j.job for j in base.jobs(name).values()], old_config) if old_config is not None else []
    return _findings(check_stack([j.job for j in head.jobs(name).values()], new_config), old)


def _stack_jobs(name: str, base: Side, head: Side, configs: list[StackConfig]) -> list[JobPlan]:
    """Every job of the stack on either side; none while the head's stack file is invalid (its
    errors fail the plan, and nothing can be planned until it is fixed)."""
    new_side = head.stacks.get(name)
    if new_side is not None and new_side.config is None:
        return []
    live = new_side or base.stacks.get(name)
    config = _config(live)
    billed = config is None or capabilities(config.backend).billed
    order = config.replace if config else "deleteFirst"
    new_jobs, old_jobs = head.jobs(name), base.jobs(name)
    return [_job_plan(old_jobs.get(n), new_jobs.get(n), billed, configs, order)
            for n in sorted(set(old_jobs) | set(new_jobs))]


def _stack_plan(name: str, base: Side, head: Side, configs: list[StackConfig]) -> StackPlan | None:
    """The stack's plan, or None when the change does not touch it."""
    old_side, new_side = base.stacks.get(name), head.stacks.get(name)
    live: StackSide | None = new_side or old_side
    assert live is not None
    jobs = _stack_jobs(name, base, head, configs)
    if _unchanged(name, base, head, jobs):
        return None
    config = live.config
    same_file = old_side is not None and new_side is not None and old_side.content == new_side.content
    settings = field_changes(old_side.settings if old_side else {}, new_side.settings if new_side else {})
    return StackPlan(
        name=name, file=live.file, status=_status(old_side, new_side), backend=config.backend if config else None,
        settings_changes=tuple(settings) if not same_file else (), jobs=tuple(jobs),
        findings=_stack_findings(name, base, head),
        gpus_held=sum(j.capacity.gpus_at_once for j in jobs if j.action is not Action.DELETE),
        gpu_quota=config.quotas.max_gpus_per_stack if config and new_side else None,
        owners=tuple(stack_file_owners(config, configs)) if config else (),
    )


def _touched_paths(head: Side, base: Side, stacks: list[StackPlan]) -> list[str]:
    """The specs of the affected stacks, and every spec file the change touches."""
    paths = {p for s in stacks if s.name in head.stacks for p in head.stacks[s.name].specs}
    paths |= {p for p in head.spec_paths if head.files.get(p) != base.files.get(p)}
    return sorted(paths)


def _head_problems(head: Side, base: Side, stacks: list[StackPlan]) -> list[Problem]:
    """Errors in the stack files and specs the change touches, as ``trainjobs validate`` reports them."""
    out = list(head.link_problems)
    out += [p for s in stacks if s.name in head.stacks for p in head.stacks[s.name].problems if p.is_error]
    affected = {s.name for s in stacks}
    results = [(p, r) for p in _touched_paths(head, base, stacks) if (r := head.result(p)) is not None]
    out += [problem for _, r in results for problem in r.problems if problem.is_error]

    def groups(path: Path) -> list[str]:
        return [s for s in head.index.groups_for(path) if s in affected or s == NO_STACK]

    files = [head.tree.root / p for p, _ in results]
    out += [p for p in duplicate_names([r for _, r in results], files, groups) if p.is_error]
    return out


def make_plan(base: Side, head: Side, only: str | None = None) -> Plan:
    names = sorted(set(base.stacks) | set(head.stacks))
    if only is not None:
        names = [only]
    configs = [s.config for s in head.stacks.values() if s.config is not None]
    if head.tree.shared is not None:  # every folder both sides may digest, proven alike at once
        head.tree.shared.prepare(head.local_folders(names) | base.local_folders(names))
    plans, unaffected = [], []
    for name in names:
        plan = _stack_plan(name, base, head, configs)
        if plan is None:
            unaffected.append(name)
        else:
            plans.append(plan)
    owners = {o for s in plans for j in s.jobs if j.touched for o in j.owners}
    owners |= {o for s in plans if s.settings_changes or s.status != "changed" for o in s.owners}
    return Plan(
        base=base.tree.label, head=head.tree.label, stacks=tuple(plans), unaffected=tuple(unaffected),
        problems=tuple(_head_problems(head, base, plans)), owners=tuple(sorted(owners)),
    )
