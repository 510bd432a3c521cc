"""Job names are unique within a stack, and among the specs no stack holds (seed 000).

``validate_paths`` compares the names of specs in no stack as it reads each file; ``duplicate_names``
compares a list of results, group by group (a stack's name, or ``NO_STACK``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from provider.core.problem import Problem
from provider.document.loaded import at_position
from provider.document.locate import locate

if TYPE_CHECKING:
    from provider.validation.validator import SpecResult

NO_STACK = "*"  # the name group of the specs no stack holds


def name_problem(result: SpecResult, name: str, group: str, first: str) -> Problem:
    pos = locate(result.document, ("metadata", "name")) if result.document else None
    where = f" of stack {group}" if group != NO_STACK else ""
    return Problem(
        file=result.file, **at_position(pos),
        path="metadata.name", rule="name.unique",
        message=f"job name {name!r} is already used by {first}",
        allowed=f"a name unique across the specs{where} (seeds 000 and 003: unique within the project)",
        source="seed 000 (job names)",
    )


def duplicate_names(
    results: list[SpecResult],
    files: Sequence[Path | None],
    groups_for: Callable[[Path], list[str]] | None,
    others: Iterable[tuple[str, str, str]] = (),
) -> list[Problem]:
    """Job names are unique within a stack (seed 000: unique in the project)."""
    seen: dict[tuple[str, str], str] = {(g, n): f for g, n, f in others}
    problems = []
    for result, path in zip(results, files):
        name = result.name if result.name is not None else result.job.name if result.job is not None else None
        if name is None:
            continue
        for group in (groups_for(path) if groups_for and path is not None else [NO_STACK]):
            key = (group, name)
            first = seen.get(key)
            if first is None:
                seen[key] = result.file
                continue
            problems.append(name_problem(result, name, group, first))
    return problems
