"""``trainjobs convert NOTEBOOK.ipynb``: the notebook's one gcloud training command, with its Python values.

A notebook is nbformat 4 JSON: ``cells``, each with ``cell_type`` and ``source`` (a string, or a list
of strings to join). Cells are numbered from 1 in the file, markdown cells included (``--cell N``
counts the same way). A training command is a ``!`` line (``x = !...`` too, with the lines its
trailing backslashes continue) or a ``%%bash`` cell that runs ``gcloud [beta] ai custom-jobs create``,
``gcloud [beta] ai hp-tuning-jobs create`` or ``gcloud [beta] ai-platform jobs submit training``.

A ``!`` line is expanded as IPython expands it (provider.gcloud.notebook_expand) with the values the
notebook's code cells give its variables by then (provider.document.python_values: read, never run),
and handed to the gcloud reader as the line the shell gets; a ``%%bash`` cell expands nothing and
is read as written (provider.gcloud.notebook).
"""

from __future__ import annotations

import json
import re

from provider.core.errors import UserError
from provider.core.record import Record
from provider.document.python_values import Scope, scope_after, statements
from provider.gcloud.cloud_build import TRAINING
from provider.gcloud.notebook import bash_cell

ALLOWED = ('a Jupyter notebook in nbformat 4: a JSON object with "nbformat": 4 and "cells", a list of objects each '
           'with "cell_type" ("code", "markdown" or "raw") and "source" (a string or a list of strings)')
# IPython's escapes: ``!`` or ``!!`` at a line's start, or one ``!`` after ``x =`` (what follows is the command, as is)
_BANG = re.compile(r"[ \t]*(?:!!?|(?:[A-Za-z_]\w*[ \t]*,[ \t]*)*[A-Za-z_]\w*[ \t]*=[ \t]*!)")
_GCLOUD = re.compile(r"(?:^|[\s;&|(`])gcloud\s")


class Cell(Record):
    """One cell: its number (from 1, every kind counted), its kind and its text."""

    number: int
    kind: str
    text: str


class Command(Record):
    """A training command in a cell: the ``!`` line's first line in the cell (``line``, from 1), the command
    IPython hands on (the ``!`` and the space after it taken off, continued lines joined), and where each
    physical line begins in it (``starts``: (offset in ``text``, line in the cell, column)). A ``%%bash``
    cell: the whole cell as ``text``, ``bash`` True."""

    cell: Cell
    line: int
    text: str
    starts: tuple[tuple[int, int, int], ...]
    bash: bool

    def place(self, offset: int) -> str:
        """Where character ``offset`` of ``text`` is in the cell: "cell 7, line 2, column 15"."""
        at, line, column = next(s for s in reversed(self.starts) if s[0] <= offset)
        return f"cell {self.cell.number}, line {line}, column {column + offset - at}"


def read_cells(raw: bytes, shown: str) -> list[Cell]:
    """The notebook's cells; UserError saying what is wrong, for a file that is no nbformat 4 notebook."""
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise UserError(f"{shown}: not UTF-8 ({exc.reason} at byte {exc.start}); allowed: {ALLOWED}", exit_code=1) from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{shown}:{exc.lineno}:{exc.colno}: not JSON ({exc.msg}); allowed: {ALLOWED}", exit_code=1) from None
    except (ValueError, RecursionError) as exc:
        raise UserError(f"{shown}: not JSON ({type(exc).__name__}); allowed: {ALLOWED}", exit_code=1) from None
    if not isinstance(data, dict) or "cells" not in data:
        raise UserError(f"{shown}: a JSON {type(data).__name__} without \"cells\", not a notebook; allowed: {ALLOWED}",
                        exit_code=1)
    if data.get("nbformat") != 4 or isinstance(data.get("nbformat"), bool):
        raise UserError(f"{shown}: \"nbformat\" is {json.dumps(data.get('nbformat'))}, a notebook format trainjobs does "
                        f"not read (save it again with Jupyter 4 or later); allowed: {ALLOWED}", exit_code=1)
    cells = data["cells"]
    if not isinstance(cells, list):
        raise UserError(f"{shown}: \"cells\" is a {type(cells).__name__}; allowed: {ALLOWED}", exit_code=1)
    return [_cell(cell, number, shown) for number, cell in enumerate(cells, 1)]


def _cell(cell: object, number: int, shown: str) -> Cell:
    where = f"{shown}: cell {number} (cells[{number - 1}])"
    if not isinstance(cell, dict):
        raise UserError(f"{where} is a {type(cell).__name__}, not an object; allowed: {ALLOWED}", exit_code=1)
    kind, source = cell.get("cell_type"), cell.get("source")
    if kind not in ("code", "markdown", "raw"):
        raise UserError(f"{where} has \"cell_type\": {json.dumps(kind)}; allowed: {ALLOWED}", exit_code=1)
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        source = "".join(source)
    if not isinstance(source, str):
        raise UserError(f"{where} has \"source\": {json.dumps(source)[:60]}; allowed: {ALLOWED}", exit_code=1)
    return Cell(number, str(kind), source.replace("\r\n", "\n"))


def commands(cell: Cell) -> list[Command]:
    """The training commands of a code cell."""
    if cell.kind != "code":
        return []
    if bash_cell(cell.text):
        return [Command(cell, 1, cell.text, ((0, 1, 1),), True)] if TRAINING.search(cell.text) else []
    found = []
    lines = cell.text.split("\n")
    i = 0
    while i < len(lines):
        bang = _BANG.match(lines[i])
        if bang is None:
            i += 1
            continue
        parts = [lines[i][bang.end():]]
        starts = [(0, i + 1, bang.end() + 1)]
        end = i
        while end < len(lines) - 1 and lines[end].endswith("\\"):  # IPython's assemble_continued_line
            end += 1
            starts.append((sum(len(p.rstrip()) for p in parts), end + 1, 1))
            parts.append(lines[end])
        text = " ".join([p.rstrip()[:-1] for p in parts[:-1]] + [parts[-1].rstrip()])
        if TRAINING.search(text) and _GCLOUD.search(" " + text):
            found.append(Command(cell, i + 1, text, tuple(starts), False))
        i = end + 1
    return found


def scope_at(cells: list[Cell], command: Command) -> Scope:
    """The notebook's Python values where the command's line runs: after every code cell before its cell and
    the statements of its cell before it."""
    label = f"cell {command.cell.number}"
    sources = [(f"cell {c.number}", c.text) for c in cells if c.kind == "code" and c.number <= command.cell.number]
    for where, stmt, scope in statements(sources):
        if where.label == label and stmt.lineno <= command.line <= (stmt.end_lineno or stmt.lineno):
            return scope
    # the command's cell does not parse as Python: what its lines before the command set
    before = "\n".join(command.cell.text.split("\n")[:command.line - 1])
    return scope_after(sources[:-1] + [(label, before)])


def describe(cells: list[Cell]) -> str:
    """What a notebook without a training command holds, for the refusal: its cells and gcloud lines (a notebook
    that builds a job with the Vertex AI SDK is read by provider/pysdk instead: cli/convert_notebook.py)."""
    code = [c for c in cells if c.kind == "code"]
    said = [f"{len(cells)} cells, {len(code)} of them code"]
    gcloud = [f"cell {c.number}: {m.group().strip()[:60]}" for c in code
              for m in re.finditer(r"(?m)^[ \t]*!.*\bgcloud\b.*$", c.text)]
    if gcloud:
        said.append("gcloud lines that submit no training job (" + "; ".join(gcloud[:3]) + ("..." if gcloud[3:] else "")
                    + ")")
    return "; ".join(said)


def chosen(cells: list[Cell], shown: str, pick: int | None) -> Command:
    """The one training command to convert (``pick``: the cell given with --cell); UserError naming none or
    each of several."""
    what = ("gcloud ai custom-jobs create, gcloud ai hp-tuning-jobs create or gcloud ai-platform jobs submit "
            "training, in a ! line or a %%bash cell")
    found = [c for cell in cells for c in commands(cell)]
    if pick is not None:
        if not 1 <= pick <= len(cells):
            raise UserError(f"{shown}: --cell {pick}: the notebook has cells 1 to {len(cells)}", exit_code=1)
        others = sorted({c.cell.number for c in found} - {pick})
        found = [c for c in found if c.cell.number == pick]
        if not found:
            raise UserError(f"{shown}: --cell {pick}: cell {pick} ({cells[pick - 1].kind}) runs no {what}"
                            + (f"; cells that do: {', '.join(map(str, others))}" if others else ""), exit_code=1)
    if not found:
        raise UserError(f"{shown}: no cell submits a training job with gcloud ({what}); the notebook holds "
                        f"{describe(cells)}", exit_code=1)
    if len(found) > 1:
        listed = "; ".join(f"cell {c.cell.number}, line {c.line}" for c in found)
        fix = ("give the cell to convert with --cell N" if len({c.cell.number for c in found}) == len(found)
               else "put the one to convert in a cell of its own and give it with --cell N")
        raise UserError(f"{shown}: {len(found)} commands submit a training job ({listed}); {fix}", exit_code=1)
    return found[0]
