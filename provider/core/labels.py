"""The labels trainjobs puts on what it creates: their keys, and Google's rules for their values.

The one owner of the label keys. Every job a stack starts carries ``managed-by=trainjobs``, its
name (``trainjobs-job``) and its stack (``trainjobs-stack``, what ``jobs list --stack`` filters
on); a job the Pulumi provider submits also carries its identity (``trainjobs_id``), so a
resubmission adopts it instead of starting a second one. The team's infrastructure (bucket,
registry, service account) carries ``managed-by``, ``team``, ``environment`` and its stack.

Label keys and values follow Google's rules (https://cloud.google.com/resource-manager/docs/labels-overview,
the catalog's ``limits.json`` ``labels``: ``key_regex_unicode`` and ``value_regex_unicode``):
lowercase letters of any script (Unicode Ll and Lo), digits (N), ``_`` and ``-``, at most 63
characters; a key starts with a letter. ``valid_key`` and ``valid_value`` are the one check of
them (the spec's label rule, the Vertex list filter), and ``label_value`` makes any text a valid
value. The stack's own ``trainjobs:labels`` come first, so trainjobs' keys always win.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

MANAGED_BY_LABEL = "managed-by"
MANAGED_BY = "trainjobs"
JOB_LABEL = "trainjobs-job"
STACK_LABEL = "trainjobs-stack"  # set on every job a stack starts
IDENTITY_LABEL = "trainjobs_id"  # a job's identity: adoption instead of a second submission
TEAM_LABEL = "team"
ENVIRONMENT_LABEL = "environment"

MAX_KEY_LENGTH = 63
MAX_VALUE_LENGTH = 63
ALLOWED = "lowercase letters (any script), digits, '_' and '-', at most 63 characters; a key starts with a letter"


def _letter(ch: str) -> bool:
    """A lowercase letter: Unicode Ll, or Lo (letters of scripts without case: 日本, ا)."""
    return unicodedata.category(ch) in ("Ll", "Lo")


def _char(ch: str) -> bool:
    return _letter(ch) or unicodedata.category(ch).startswith("N") or ch in "_-"


def valid_key(text: str) -> bool:
    """``[\\p{Ll}\\p{Lo}][\\p{Ll}\\p{Lo}\\p{N}_-]{0,62}``: the catalog's key rule."""
    return 0 < len(text) <= MAX_KEY_LENGTH and _letter(text[0]) and all(_char(ch) for ch in text)


def valid_value(text: str) -> bool:
    """``[\\p{Ll}\\p{Lo}\\p{N}_-]{0,63}``: the catalog's value rule (an empty value is allowed)."""
    return len(text) <= MAX_VALUE_LENGTH and all(_char(ch) for ch in text)


def label_value(text: str) -> str:
    """Any text as a valid label value: lowercased, each character the rule refuses made '-', cut to 63."""
    return "".join(ch if _char(ch) else "-" for ch in text.lower())[:MAX_VALUE_LENGTH]


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
