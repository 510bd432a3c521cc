"""TrainingJob.check(): the spec, the stack's quotas and the resource's settings, per property.

Failures come back as data (property, reason), which ``pulumi preview`` shows. During a
preview an input may be unknown (provider.resources.unknowns): a check that needs it is left to
``pulumi up``, whose Check sees every value, and an unknown never fails a check nor raises.
The inputs are read through JobArgs (provider.resources.job_args); a failure names the property.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pulumi.dynamic import CheckFailure

from provider.core.problem import Problem
from provider.core.record import replace
from provider.resources.job_args import JobArgs
from provider.resources.job_diff import REPLACE_ORDERS
from provider.resources.job_request import MADE_OF, encode
from provider.resources.unknowns import UNKNOWN as UNKNOWN_VALUE
from provider.resources.unknowns import has_unknown, is_unknown
from provider.stack.settings import DEFAULT_RETENTION, Retention, WaitUntil

if TYPE_CHECKING:
    from provider.spec.model import TrainingJob as JobModel
    from provider.stack.config import StackConfig

REQUIRED = ("job_name", "backend", "spec", "request_kind", "parent")
# What the spec's validation and the quotas read: all must be known to run them.
STACK_INPUTS = ("job_name", "backend", "spec", "spec_file", "stack", "team", "project", "region", "quotas", "policy",
                "stack_labels")
REQUEST = JobArgs.prop("request")
WAIT_UNTIL = WaitUntil.values()
RETENTION = Retention.values()
TIMEOUT_KEYS = ("create", "update", "delete")


def _failure_text(problem: Problem) -> str:
    where = f" at {problem.path}" if problem.path else ""
    allowed = f" (allowed: {problem.allowed})" if problem.allowed else ""
    return f"{problem.file}{where}: {problem.message}{allowed}"


def _spec_failures(args: JobArgs) -> tuple[list[CheckFailure], JobModel | None, StackConfig]:
    """The spec checked in its stack (provider.stack.check): its own errors under ``spec``, the
    stack's quotas and policy under ``quotas``; the job it describes, and the stack."""
    from provider.stack.check import SpecDocument, check_in_stack, is_policy
    from provider.stack.policy_inputs import stack_config

    spec_file = str(args.spec_file or args.job_name)
    stack = stack_config(args)
    # the spec's folder: the files it names (its Dockerfile) are judged here as in the program
    spec_dir = Path(args.spec_file).parent if args.spec_file else None
    result = check_in_stack(SpecDocument(args.spec, spec_file, spec_dir), stack)
    failures = [CheckFailure("spec", _failure_text(p)) for p in result.problems if p.is_error and not is_policy(p)]
    if result.job is not None and result.job.name != args.job_name:
        failures.append(CheckFailure("jobName", f"jobName {args.job_name!r} differs from the spec's "
                                                f"metadata.name {result.job.name!r}"))
    failures += [CheckFailure("quotas", _failure_text(p)) for p in result.problems if is_policy(p)]
    return failures, result.job, stack


def _one_of(key: str, value: Any, allowed: tuple[str, ...], default: str | None = None) -> list[CheckFailure]:
    if is_unknown(value) or (value is None and default is not None) or value in allowed:
        return []
    return [CheckFailure(key, f"{key} is {value!r}; allowed: {', '.join(allowed)}")]


def _settings_failures(args: JobArgs) -> list[CheckFailure]:
    failures: list[CheckFailure] = []
    wait = args.wait or {}
    if isinstance(wait, Mapping) and wait and not is_unknown(wait.get("until")) \
            and wait.get("until") not in WAIT_UNTIL:
        failures.append(CheckFailure("wait", f"wait.until is {wait.get('until')!r}; allowed: {', '.join(WAIT_UNTIL)}"))
    retention = DEFAULT_RETENTION.value if args.retention is None else args.retention
    failures += _one_of("retention", retention, RETENTION)
    failures += _one_of("replace", args.replace, REPLACE_ORDERS, default="deleteFirst")
    timeouts = args.timeouts
    if isinstance(timeouts, Mapping):
        for key, value in timeouts.items():
            if is_unknown(value):
                continue
            if key not in TIMEOUT_KEYS or not isinstance(value, (int, float)) or value <= 0:
                failures.append(CheckFailure("timeouts", f"timeouts.{key} is {value!r}; allowed: create, update or "
                                                         "delete, each a number of seconds above 0"))
    return failures


def job_check(props: Mapping[str, Any]) -> tuple[dict[str, Any], list[CheckFailure]]:
    """The checked inputs and every failure of the resource's inputs, as the engine sends them (none
    for what is not known yet). The checked inputs are the news with the job's ``request``, built
    here (provider.resources.job_request) when the program did not carry it: unknown as a whole
    while something it is made of is unknown, left out when the spec fails its checks."""
    args = JobArgs.from_props(props)
    inputs = dict(props)
    failures = [CheckFailure(JobArgs.prop(k), f"{JobArgs.prop(k)} is required") for k in REQUIRED
                if getattr(args, k) in (None, "")]
    if failures:
        return inputs, failures
    job = stack = None
    unknown = {k for k in {*STACK_INPUTS, *MADE_OF} if has_unknown(getattr(args, k))}  # each walked once
    if not unknown & set(STACK_INPUTS):
        spec_failures, job, stack = _spec_failures(args)
        failures += spec_failures
    if args.request is None:  # carried by the program only for a stack with a secret environment
        request = _request(args, job, stack, failures, unknown)
        if request is not None:
            inputs[REQUEST] = request
    failures += _settings_failures(args)
    if not failures and job is not None and not job.names_local_files \
            and not any(has_unknown(v) for v in props.values()):  # a preview's verdict is not one to carry
        from provider.resources.check_carry import STAMP, stamp

        inputs[STAMP] = stamp()  # a verdict the next Check may carry (provider.resources.check_carry)
    return inputs, failures


def _request(args: JobArgs, job: JobModel | None, stack: StackConfig | None, failures: list[CheckFailure],
             unknown: set[str]) -> Any:
    """The job's request as the resource carries it (provider.resources.job_request: its canonical
    JSON): unknown while what it is made of is (``unknown``: the fields holding an unknown), none
    when the spec failed (the engine stops at the failures). ``job`` and ``stack``: the spec's
    check's, when it ran."""
    from provider.resources.job_request import build_request

    if unknown & set(MADE_OF):
        return UNKNOWN_VALUE
    if failures:
        return None
    if job is None or stack is None:  # only the quotas or the policy are unknown: the spec alone gives the job
        _, job, stack = _spec_failures(replace(args, quotas=None, policy=None))
    return None if job is None else encode(build_request(args, job, stack))
