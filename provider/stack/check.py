"""Check a spec inside its stack: the one way every entry point does it.

``trainjobs validate``, ``run`` and ``run --dry-run`` (through provider.workspace, which finds the
stacks that hold a spec file from where it really is), ``plan``, the Pulumi program, the
provider's check(), the policy pack and the emulator (given a workspace) all call these
functions, so a spec gets the same verdict and the same messages wherever it is checked:

* ``context_for(stacks, spec_dir)``: the validation Context a stack gives its specs: the
  target (vertex when a vertex stack holds the spec, local otherwise, any when no stack does),
  the team bucket as the staging location, the regions of the buckets the stack knows, and the
  PersistentResource IDs it declares.
* ``check_in_stack(spec, stack)``: the one validation entry point under that Context, then the
  stack's per-job quotas and policy (provider.stack.policy), as problems (``validate_in``: without
  the policy, for a spec held by several stacks).
* ``violation_problem(violation, stack, result)``: the one conversion of a policy violation
  into a Problem, with file, line and column where the spec has them.
* ``stack_quota_problems(stack, jobs)``: the stack-wide quota (maxGpusPerStack), against the
  stack file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from provider.core.backend_registry import backend_type
from provider.core.problem import Problem, format_path
from provider.core.record import Record, replace
from provider.validation.rules import Context, Target
from provider.validation.validator import SpecResult

if TYPE_CHECKING:  # a spec in no stack is checked without importing the stack config (issue 13)
    from provider.stack.config import StackConfig

POLICY_RULES = ("quotas.", "policy.")  # the rule names of provider.stack.policy's violations
QUOTAS_PATH = "config.trainjobs:quotas"


class SpecDocument(Record):
    """A spec that is already parsed (the provider's inputs, the policy pack's), and its file name."""

    data: Any
    file: str
    spec_dir: Path | None = None  # the provider's Check: where the spec file is, for the files it names


class SpecBytes(Record):
    """A spec file's content, already read (``trainjobs run`` reads it first to refuse what it cannot read)."""

    raw: bytes
    file: str
    spec_dir: Path | None  # None: paths in the spec are not checked on disk (trainjobs plan on a commit)


Stacks: TypeAlias = "StackConfig | Sequence[StackConfig] | None"


def _as_tuple(stacks: Stacks) -> tuple[StackConfig, ...]:
    if stacks is None:
        return ()
    if isinstance(stacks, Sequence):
        return tuple(stacks)
    return (stacks,)


_STRICTEST_FIRST = (Target.VERTEX, Target.LOCAL)  # a spec several stacks hold is checked for the strictest


def _target_of(stacks: tuple[StackConfig, ...]) -> Target:
    """The validation target each stack's backend type declares; the strictest of several."""
    if not stacks:
        return Target.ANY
    targets = {Target(backend_type(s.backend).validation_target) for s in stacks}
    return next(t for t in _STRICTEST_FIRST + (Target.ANY,) if t in targets)


def _persistent_resources(stacks: tuple[StackConfig, ...]) -> tuple[str, ...] | None:
    """The IDs the stacks declare; None when none of them says (then nothing is checked)."""
    declaring = [s for s in stacks if s.persistent_resources is not None]
    if not declaring:
        return None
    return tuple(sorted({r.id for s in declaring for r in s.persistent_resources or ()}))


def context_for(stacks: Stacks, spec_dir: Path | None = None, target: Target | None = None) -> Context:
    """The Context of a spec held by ``stacks`` (one stack, several, or none).

    ``target`` overrides the stacks' (``validate --target``; the emulator judges for Vertex AI).
    """
    held = _as_tuple(stacks)
    if not held:
        return Context(target=target or Target.ANY, spec_dir=spec_dir)
    regions: dict[str, str] = {}
    for stack in held:
        regions.update(stack.bucket_regions)
    return Context(
        target=target or _target_of(held),
        bucket_regions=tuple(sorted(regions.items())),
        staging_bucket=f"gs://{held[0].bucket}",
        spec_dir=spec_dir,
        persistent_resources=_persistent_resources(held),
    )


def is_policy(problem: Problem) -> bool:
    """Whether a problem is a stack's quota or policy (not the spec's own)."""
    return problem.rule.startswith(POLICY_RULES)


def violation_problem(violation: Any, stack: StackConfig, result: SpecResult | None = None) -> Problem:
    """A provider.stack.policy Violation as a Problem: at its spot in the spec when ``result`` holds
    the job's document, else against the stack file (the stack-wide quota)."""
    if result is None:
        return Problem(file=stack.source, message=violation.message, allowed=f"{violation.rule}: at most {violation.limit}",
                       rule=violation.rule, source=f"stack {stack.name}", path=QUOTAS_PATH)
    from provider.document.locate import locate

    pos = locate(result.document, violation.path) if result.document is not None else None
    return Problem(
        file=result.file, line=pos[0] if pos else None, column=pos[1] if pos else None,
        path=format_path(violation.path), message=violation.message,
        allowed=f"{violation.rule} of stack {stack.name}: {violation.limit}",
        rule=violation.rule, source=f"stack {stack.name} ({stack.source})",
    )


def job_policy_problems(result: SpecResult, stack: StackConfig) -> list[Problem]:
    """The stack's per-job quotas and policy for the job of ``result`` (none when it has no job)."""
    from provider.stack.policy import check_job

    if result.job is None:
        return []
    return [violation_problem(v, stack, result) for v in check_job(result.job, stack)]


def stack_quota_problems(stack: StackConfig, results: Iterable[SpecResult]) -> list[Problem]:
    """The stack-wide quota over the jobs of ``results`` (every job the stack holds)."""
    from provider.stack.policy import check_stack

    jobs = [r.job for r in results if r.job is not None]
    return [violation_problem(v, stack) for v in check_stack(jobs, stack) if v.job is None]


Spec = Path | SpecBytes | SpecDocument


def validate_in(spec: Spec, stacks: Stacks, shown: str | None = None, target: Target | None = None) -> SpecResult:
    """The one validation entry point on ``spec`` (a file, its content, or a parsed document) under
    the Context of ``stacks``; a file's own directory is its ``spec_dir``."""
    from provider.document.files import display_name, read_file, real_path
    from provider.validation.validator import validate_bytes, validate_data

    ctx = context_for(stacks, target=target)
    if isinstance(spec, SpecDocument):
        return validate_data(spec.data, spec.file, replace(ctx, spec_dir=spec.spec_dir))
    if isinstance(spec, SpecBytes):
        return validate_bytes(spec.raw, spec.file, replace(ctx, spec_dir=spec.spec_dir))
    name = shown or display_name(spec)
    raw, problem = read_file(spec, name)
    if problem is not None:
        return SpecResult(file=name, problems=[problem], path=real_path(spec))
    assert raw is not None
    result = validate_bytes(raw, name, replace(ctx, spec_dir=spec.parent))
    result.path = real_path(spec)
    return result


def check_in_stack(spec: Spec, stack: StackConfig | None, shown: str | None = None,
                   target: Target | None = None) -> SpecResult:
    """Validate ``spec`` (a file, its content, or a parsed document) as a member of ``stack`` (or of none),
    with the stack's per-job quotas and policy among its problems."""
    result = validate_in(spec, stack, shown, target)
    if stack is not None:
        result.problems.extend(job_policy_problems(result, stack))
    return result
