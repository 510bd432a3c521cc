"""The notes that say how a flag and the ``--config`` met: what a flag replaced, and what gcloud left unapplied.

gcloud's help for all three commands: "If an option is specified both in the configuration file
and via command line arguments, the command line arguments override the configuration file." A
flag that replaces a different value of the config is named with both values, so the spec's
reader sees which one runs; a flag that gcloud reads but does not apply is named with the value
that runs instead and the fix. Nothing the user wrote disappears without a word.
"""

from __future__ import annotations


def replaced(notes: list[str], flag: str, field: str, old: object, new: object) -> None:
    """``flag``'s value ``new`` replaces the config's ``field`` (when the config held another value)."""
    if old is not None and old != new:
        notes.append(f"{flag} replaces the config's {field} ({old!r} -> {new!r}), as gcloud does")


def not_applied(notes: list[str], flag: str, why: str, fix: str) -> None:
    """``flag`` is read by gcloud but does not reach the job; the spec does what gcloud sends."""
    notes.append(f"{flag} is not applied: {why}; the spec keeps what gcloud sends. {fix}")
