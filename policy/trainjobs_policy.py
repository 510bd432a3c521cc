"""The trainjobs policies: provider.stack.policy, the code behind ``trainjobs validate`` and ``plan``,
applied to the TrainingJob resources of a ``pulumi preview`` or ``pulumi up``.

* ``trainjobs-job-policy`` (a resource policy): each job against its stack's per-job rules:
  maxGpusPerJob, allowedAccelerators, allowedRegions, maxRunningTime, requiredLabels.
* ``trainjobs-stack-gpu-quota`` (a stack policy): the GPUs all the jobs of a stack hold at once
  against its maxGpusPerStack.

Both are mandatory: a violation stops the update. Each message says where, as ``trainjobs validate``
does (the spec file, line and column of the value, when the file is in this project), then names
the rule, the limit and the value.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parents[1]
if str(PROJECT) not in sys.path:
    sys.path.insert(0, str(PROJECT))  # the provider package of this checkout

from pulumi_policy import (  # noqa: E402
    EnforcementLevel,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)

from provider.resources.job_args import JobArgs  # noqa: E402
from provider.stack.policy import check_job, check_stack  # noqa: E402
from provider.stack.policy_inputs import TYPE_TOKEN, stack_config, training_job  # noqa: E402

Report = Callable[..., Any]


def _unreadable(name: str, problems: list[Any]) -> str:
    first = f" ({problems[0].where}: {problems[0].message})" if problems else ""
    return f"{name}: the spec cannot be read, so its stack's policy cannot be checked{first}; run trainjobs validate"


def _where(args: JobArgs, violation: Any) -> str:
    """``file:line:column: `` of the value a violation is about, as validate places it; the file alone
    when it is not in this project (or no longer has the value where the resource's spec had it)."""
    spec_file = str(args.spec_file or "")
    if not spec_file:
        return ""
    path = (PROJECT / spec_file).resolve()
    if not path.is_relative_to(PROJECT) or not path.is_file():
        return f"{spec_file}: "
    from provider.stack.check import validate_in, violation_problem

    stack = stack_config(args)
    return f"{violation_problem(violation, stack, validate_in(path, stack, shown=spec_file)).where}: "


def validate_job(args: ResourceValidationArgs, report_violation: Report) -> None:
    if args.resource_type != TYPE_TOKEN:
        return
    inputs = JobArgs.from_props(args.props)
    job, problems = training_job(inputs)
    if job is None:
        report_violation(_unreadable(args.name, problems))
        return
    for violation in check_job(job, stack_config(inputs)):
        report_violation(_where(inputs, violation) + violation.text())


def validate_stack(args: StackValidationArgs, report_violation: Report) -> None:
    by_stack: dict[str, list[JobArgs]] = {}
    for resource in args.resources:
        if resource.resource_type == TYPE_TOKEN:
            inputs = JobArgs.from_props(resource.props)
            by_stack.setdefault(str(inputs.stack), []).append(inputs)
    for stack_jobs in by_stack.values():
        jobs = [job for inputs in stack_jobs if (job := training_job(inputs)[0]) is not None]
        for violation in check_stack(jobs, stack_config(stack_jobs[0])):
            if violation.job is None:  # per-job rules are the resource policy's
                report_violation(violation.text())


JOB_POLICY = ResourceValidationPolicy(
    name="trainjobs-job-policy",
    description="A training job keeps to its stack's quotas and rules: GPUs per job, accelerators, regions, "
                "maximum running time, required labels.",
    validate=validate_job,
    enforcement_level=EnforcementLevel.MANDATORY,
)

STACK_POLICY = StackValidationPolicy(
    name="trainjobs-stack-gpu-quota",
    description="The training jobs of a stack hold at most its maxGpusPerStack GPUs at once.",
    validate=validate_stack,
    enforcement_level=EnforcementLevel.MANDATORY,
)

POLICIES = [JOB_POLICY, STACK_POLICY]
