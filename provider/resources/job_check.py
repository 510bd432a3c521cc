"""TrainingJob.check(): the spec, the stack's quotas and the resource's settings, per property.

Failures come back as data (property, reason), which ``pulumi preview`` shows. During a
preview an input may be unknown (provider.resources.unknowns): a check that needs it is left to
``pulumi up``, whose Check sees every value, and an unknown never fails a check nor raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi.dynamic import CheckFailure

from provider.resources.job_diff import REPLACE_ORDERS
from provider.resources.unknowns import has_unknown, is_unknown

REQUIRED = ("jobName", "backend", "spec", "request", "requestKind", "parent", "identity")
# What the spec's validation and the quotas read: all must be known to run them.
STACK_INPUTS = ("jobName", "backend", "spec", "specFile", "stack", "team", "project", "region", "quotas", "policy",
                "stackLabels")
WAIT_UNTIL = ("none", "running", "completion")
RETENTION = ("keep", "delete")
TIMEOUT_KEYS = ("create", "update", "delete")


def _spec_failures(props: Mapping[str, Any]) -> list[CheckFailure]:
    from provider.policy import check_job
    from provider.policy_inputs import stack_config
    from provider.validation.rules import Context, Target
    from provider.validation.validator import validate_data

    stack = stack_config(props)
    target = Target.VERTEX if props["backend"] == "vertex" else Target.LOCAL
    ctx = Context(target=target, staging_bucket=f"gs://{stack.bucket}",
                  bucket_regions=tuple(stack.bucket_regions.items()))
    spec_file = str(props.get("specFile") or props["jobName"])
    result = validate_data(props["spec"], spec_file, ctx)
    failures = []
    for p in result.problems:
        if p.is_error:
            where = f" at {p.path}" if p.path else ""
            allowed = f" (allowed: {p.allowed})" if p.allowed else ""
            failures.append(CheckFailure("spec", f"{spec_file}{where}: {p.message}{allowed}"))
    if result.job is not None:
        if result.job.name != props["jobName"]:
            failures.append(CheckFailure("jobName", f"jobName {props['jobName']!r} differs from the spec's "
                                                    f"metadata.name {result.job.name!r}"))
        failures += [CheckFailure("quotas", v.text()) for v in check_job(result.job, stack)]
    return failures


def _one_of(props: Mapping[str, Any], key: str, value: Any, allowed: tuple[str, ...],
            default: str | None = None) -> list[CheckFailure]:
    if is_unknown(value) or (value is None and default is not None) or value in allowed:
        return []
    return [CheckFailure(key, f"{key} is {value!r}; allowed: {', '.join(allowed)}")]


def _settings_failures(props: Mapping[str, Any]) -> list[CheckFailure]:
    failures: list[CheckFailure] = []
    wait = props.get("wait") or {}
    if isinstance(wait, Mapping) and wait and not is_unknown(wait.get("until")) \
            and wait.get("until") not in WAIT_UNTIL:
        failures.append(CheckFailure("wait", f"wait.until is {wait.get('until')!r}; allowed: {', '.join(WAIT_UNTIL)}"))
    failures += _one_of(props, "retention", props.get("retention", "keep"), RETENTION)
    failures += _one_of(props, "replace", props.get("replace"), REPLACE_ORDERS, default="deleteFirst")
    timeouts = props.get("timeouts")
    if isinstance(timeouts, Mapping):
        for key, value in timeouts.items():
            if is_unknown(value):
                continue
            if key not in TIMEOUT_KEYS or not isinstance(value, (int, float)) or value <= 0:
                failures.append(CheckFailure("timeouts", f"timeouts.{key} is {value!r}; allowed: create, update or "
                                                         "delete, each a number of seconds above 0"))
    return failures


def job_check(props: Mapping[str, Any]) -> list[CheckFailure]:
    """Every failure of the resource's properties (none for what is not known yet)."""
    failures = [CheckFailure(k, f"{k} is required") for k in REQUIRED if props.get(k) in (None, "")]
    if failures:
        return failures
    if not any(has_unknown(props.get(k)) for k in STACK_INPUTS):
        failures += _spec_failures(props)
    return failures + _settings_failures(props)
