"""What provider.document.python_values says about a value: where it is, and why it cannot be known.

Kept apart so that the evaluator's modules share them without importing each other.
"""

from __future__ import annotations

from provider.core.record import Record


class Where(Record):
    """A place in what the user wrote: ``label`` names the cell or file ("cell 5", "train.py"),
    ``line`` counts from 1 in it."""

    label: str
    line: int

    def __str__(self) -> str:
        return f"{self.label}, line {self.line}"


class Unknown(Record):
    """A value that cannot be known without running the code, and why ("REGION is set from a shell
    command's output at cell 3, line 4"). ``name``: the variable this says why about, when it is one
    (so that a variable set from it can say "B is set from A at ...; A is set from ...")."""

    why: str
    where: Where | None = None
    name: str | None = None

    def __str__(self) -> str:
        return self.why
