"""TrainingJob.check(): the spec, the stack's quotas and the resource's settings, per property.

Failures come back as data (property, reason), which ``pulumi preview`` shows. During a
preview an input may be unknown (provider.resources.unknowns): a check that needs it is left to
``pulumi up``, whose Check sees every value, and an unknown never fails a check nor raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi.dynamic import CheckFailure

from provider.core.problem import Problem
from provider.resources.job_diff import REPLACE_ORDERS
from provider.resources.unknowns import has_unknown, is_unknown
from provider.stack.settings import DEFAULT_RETENTION, Retention, WaitUntil

REQUIRED = ("jobName", "backend", "spec", "request", "requestKind", "parent", "identity")
# What the spec's validation and the quotas read: all must be known to run them.
STACK_INPUTS = ("jobName", "backend", "spec", "specFile", "stack", "team", "project", "region", "quotas", "policy",
                "stackLabels")
WAIT_UNTIL = WaitUntil.values()
RETENTION = Retention.values()
TIMEOUT_KEYS = ("create", "update", "delete")


def _failure_text(problem: Problem) -> str:
    where = f" at {problem.path}" if problem.path else ""
    allowed = f" (allowed: {problem.allowed})" if problem.allowed else ""
    return f"{problem.file}{where}: {problem.message}{allowed}"


def _spec_failures(props: Mapping[str, Any]) -> list[CheckFailure]:
    """The spec checked in its stack (provider.stack.check): its own errors under ``spec``, the
    stack's quotas and policy under ``quotas``."""
    from provider.stack.check import SpecDocument, check_in_stack, is_policy
    from provider.stack.policy_inputs import stack_config

    spec_file = str(props.get("specFile") or props["jobName"])
    result = check_in_stack(SpecDocument(props["spec"], spec_file), stack_config(props))
    failures = [CheckFailure("spec", _failure_text(p)) for p in result.problems if p.is_error and not is_policy(p)]
    if result.job is not None and result.job.name != props["jobName"]:
        failures.append(CheckFailure("jobName", f"jobName {props['jobName']!r} differs from the spec's "
                                                f"metadata.name {result.job.name!r}"))
    return failures + [CheckFailure("quotas", _failure_text(p)) for p in result.problems if is_policy(p)]


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
    failures += _one_of(props, "retention", props.get("retention", DEFAULT_RETENTION.value), RETENTION)
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
