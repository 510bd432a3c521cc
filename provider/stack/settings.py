"""The closed choices of a stack's settings, as enums: what ``pulumi up`` waits for, and what
``pulumi destroy`` does with job records.

One definition serves the stack config (provider.stack.config), the provider's check and its
create/delete (provider.resources), and the schema generator (provider/stack/schema.py), which lists
each enum's values in the stack file's JSON Schema. They are ``StrEnum``: a value compares equal
to, and serializes as, the string written in the stack file.
"""

from __future__ import annotations

import enum


class WaitUntil(enum.StrEnum):
    """``trainjobs:wait.until``: how long ``pulumi up`` waits for each job it starts."""

    NONE = "none"  # submit and go on
    RUNNING = "running"  # until the job runs (the default)
    COMPLETION = "completion"  # until the job ends

    @classmethod
    def values(cls) -> tuple[str, ...]:
        return tuple(m.value for m in cls)


class Retention(enum.StrEnum):
    """``trainjobs:retention``: on destroy (or when a spec goes), keep or delete the job records."""

    KEEP = "keep"  # the default: the job is cancelled, its record stays
    DELETE = "delete"

    @classmethod
    def values(cls) -> tuple[str, ...]:
        return tuple(m.value for m in cls)


DEFAULT_WAIT_UNTIL = WaitUntil.RUNNING
DEFAULT_WAIT_TIMEOUT_SECONDS = 1800.0
DEFAULT_RETENTION = Retention.KEEP
