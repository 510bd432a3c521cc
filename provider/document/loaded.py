"""A YAML document's values, with where each of them was written (what the readers return)."""

from __future__ import annotations

from typing import Any, TypedDict

from provider.core.problem import Problem, Severity
from provider.core.record import Record, field

MAX_BYTES = 1024 * 1024  # a spec file's size limit
MAX_DEPTH = 64  # nesting levels
MAX_NODES = 50_000  # values in a document, aliases expanded

Position = tuple[int, int]  # 1-based line, 1-based column


class CellPosition(tuple[int, int]):
    """A Position in a notebook's code cell: the line and column in the cell's text, and the cell's number."""

    cell: int

    def __new__(cls, cell: int, line: int, column: int) -> CellPosition:
        made = super().__new__(cls, (line, column))
        made.cell = cell
        return made


class Placed(TypedDict):
    """A Problem's fields that say where it is in its file (``Problem(file=..., **at_position(pos), ...)``)."""

    line: int | None
    column: int | None
    cell: int | None


def at_position(pos: Position | None) -> Placed:
    """A Problem's line, column and cell (a CellPosition's; None in a file) at ``pos``."""
    return {"line": pos[0] if pos else None, "column": pos[1] if pos else None,
            "cell": pos.cell if isinstance(pos, CellPosition) else None}


class LoadedDocument(Record, frozen=False):
    """The values of one YAML document and where each of them was written."""

    data: Any
    problems: list[Problem] = field(default_factory=list)
    # id(container) -> start of the container; for mappings also key -> position of the key
    # and key -> position of the value; for sequences the position of each item.
    starts: dict[int, Position] = field(default_factory=dict)
    key_positions: dict[int, dict[str, Position]] = field(default_factory=dict)
    value_positions: dict[int, dict[str, Position]] = field(default_factory=dict)
    item_positions: dict[int, list[Position]] = field(default_factory=dict)
    # (id(container), key-or-index) of plain scalars that were read as non-strings -> raw text.
    raw_plain: dict[tuple[int, Any], str] = field(default_factory=dict)
    # Paths that already have a YAML-level problem (later layers don't repeat them).
    flagged: set[tuple[Any, ...]] = field(default_factory=set)

    @property
    def ok(self) -> bool:
        return not any(p.severity is Severity.ERROR for p in self.problems)
