"""One problem found in a spec or a stack: where, what is wrong, what is allowed."""

from __future__ import annotations

import enum
import re
from typing import Any

from provider.core.record import Record, replace


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"  # information, not a problem of the file (a spec in no stack)


class Problem(Record):
    """A single finding, ready to print.

    ``path`` is the JSON path inside the document (``spec.workerPools.chief.machineType``);
    ``line`` and ``column`` are 1-based positions in the file, when the input came from a file; in a
    notebook's code cell ``cell`` (its number), they are the line and column in that cell's text. ``via``: how
    the file was reached from the one converted ("read by --config at run.sh:4:52"), for a file another names.
    """

    file: str
    message: str
    path: str = ""
    line: int | None = None
    column: int | None = None
    allowed: str | None = None
    hint: str | None = None
    rule: str = "schema"
    source: str | None = None
    severity: Severity = Severity.ERROR
    cell: int | None = None
    via: str | None = None

    def at(self, **changes: Any) -> Problem:
        return replace(self, **changes)

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    @property
    def where(self) -> str:
        """``train.py:12:5``; in a notebook's cell, ``NB.ipynb cell 3, line 1, column 9`` (as its readers say)."""
        if self.cell is not None:
            inside = f", line {self.line}, column {self.column or 1}" if self.line is not None else ""
            return f"{self.file} cell {self.cell}{inside}"
        if self.line is None:
            return self.file
        return f"{self.file}:{self.line}:{self.column or 1}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "cell": self.cell,
            "via": self.via,
            "path": self.path,
            "severity": self.severity.value,
            "rule": self.rule,
            "message": self.message,
            "allowed": self.allowed,
            "hint": self.hint,
            "source": self.source,
        }


def format_path(parts: tuple[Any, ...] | list[Any]) -> str:
    """``("spec", "workerPoolSpecs", 1, "machineSpec")`` -> ``spec.workerPoolSpecs[1].machineSpec``."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif out:
            out += f".{part}"
        else:
            out = str(part)
    return out


_PART = re.compile(r"\[(\d+)\]|([^.\[\]]+)")


def parse_path(text: str) -> tuple[Any, ...]:
    """``spec.workerPoolSpecs[1].machineSpec`` -> ``("spec", "workerPoolSpecs", 1, "machineSpec")`` (format_path's inverse)."""
    return tuple(int(m.group(1)) if m.group(1) is not None else m.group(2) for m in _PART.finditer(text))
