"""Which job a reference names: the one algorithm for every backend (``status``, ``logs``, ``cancel``...).

A reference (``trainjobs status REF``) is, in this order:

1. a full id or resource name, taken as it is (the backend says what a full id of its own looks like);
2. digits: a unique prefix of the id of one of the jobs seen (two or more: ambiguous, said so);
3. a job name: the newest of the jobs seen whose display name it is.

"The jobs seen" are the jobs carrying ``labels`` (a stack's jobs, with ``--stack``), newest first,
for the local backend and Vertex AI alike. Anything else is NotFound, with what was looked for
and where.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from provider.backends.base import NotFound
from provider.core.record import Record


class Seen(Record):
    """A job as resolution sees it: its id, the name to return for it, and its display name."""

    id: str  # 8123 (local), 1234567890123456789 (Vertex AI)
    name: str  # what ``resolve`` answers: the id (local) or the resource name (Vertex AI)
    display_name: str


def resolve(ref: str, jobs: Callable[[], Iterable[Seen]], full_id: Callable[[str], bool], noun: str,
            where: str) -> str:
    """The job ``ref`` names among ``jobs()`` (newest first; read only when ``ref`` is not a full id).
    ``noun`` and ``where`` word the errors: "no local job 'x' in the local backend ..."."""
    if "/" in ref or full_id(ref):
        return ref
    seen = list(jobs())
    if ref.isdigit():
        matches = [j for j in seen if j.id.startswith(ref)]
        if len(matches) == 1:
            return matches[0].name
        if len(matches) > 1:
            raise NotFound(f"{ref!r} matches {len(matches)} {noun}s in {where} "
                           f"({', '.join(j.id for j in matches[:5])}{' ...' if len(matches) > 5 else ''}); give more digits")
    named = next((j for j in seen if j.display_name == ref), None)
    if named is not None:
        return named.name
    raise NotFound(f"no {noun} {ref!r} in {where}: give a job id, a unique id prefix, a resource name or a job "
                   f"name (see `trainjobs jobs list`)")
