"""The labels trainjobs puts on what it creates: their keys, and Google's rules for their values.

The one owner of the label keys. Every job a stack starts carries ``managed-by=trainjobs``, its
name (``trainjobs-job``) and its stack (``trainjobs-stack``, what ``jobs list --stack`` filters
on); a job the Pulumi provider submits also carries its identity (``trainjobs_id``), so a
resubmission adopts it instead of starting a second one. The team's infrastructure (bucket,
registry, service account) carries ``managed-by``, ``team``, ``environment`` and its stack.

Label values follow Google's rules for labels (https://cloud.google.com/resource-manager/docs/labels-overview):
lowercase letters, digits, ``_`` and ``-``, at most 63 characters; ``label_value`` makes any
text one. The stack's own ``trainjobs:labels`` come first, so trainjobs' keys always win.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

MANAGED_BY_LABEL = "managed-by"
MANAGED_BY = "trainjobs"
JOB_LABEL = "trainjobs-job"
STACK_LABEL = "trainjobs-stack"  # set on every job a stack starts
IDENTITY_LABEL = "trainjobs_id"  # a job's identity: adoption instead of a second submission
TEAM_LABEL = "team"
ENVIRONMENT_LABEL = "environment"

MAX_VALUE_LENGTH = 63
_NOT_ALLOWED = re.compile(r"[^a-z0-9_-]")
# The keys trainjobs sets and filters on: a lowercase letter, then lowercase letters, digits, '_'
# and '-', at most 63 characters (Google's rule, without the international letters it also allows).
KEY = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")


def label_value(text: str) -> str:
    """A Google label value: lowercase letters, digits, '_' and '-', at most 63 characters."""
    return _NOT_ALLOWED.sub("-", text.lower())[:MAX_VALUE_LENGTH]


def stack_labels(stack_name: str) -> dict[str, str]:
    """The labels that mark every job of a stack (what ``jobs list --stack`` filters on)."""
    return {STACK_LABEL: label_value(stack_name)}


def job_labels(job_name: str, stack: str | None = None, identity: str | None = None,
               extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A job's labels: ``extra`` (the stack's labels), then trainjobs' own."""
    labels = {**(extra or {}), MANAGED_BY_LABEL: MANAGED_BY, JOB_LABEL: label_value(job_name)}
    if stack:
        labels.update(stack_labels(stack))
    if identity:
        labels[IDENTITY_LABEL] = identity
    return labels


def team_labels(team: str, environment: str, stack: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The labels of a team's infrastructure (bucket, registry, service account)."""
    return {**(extra or {}), MANAGED_BY_LABEL: MANAGED_BY, TEAM_LABEL: label_value(team),
            ENVIRONMENT_LABEL: label_value(environment), **stack_labels(stack)}
