"""``trainjobs convert NOTEBOOK.ipynb``: the notebook's one gcloud training command, with its Python values.

A notebook is nbformat 4 JSON: ``cells``, each with ``cell_type`` and ``source`` (a string, or a list
of strings to join). Cells are numbered from 1 in the file, markdown cells included (``--cell N``
counts the same way). A training command is a ``!`` line (``x = !...`` too, with the lines its
trailing backslashes continue) or a ``%%bash`` cell that runs ``gcloud [beta] ai custom-jobs create``,
``gcloud [beta] ai hp-tuning-jobs create`` or ``gcloud [beta] ai-platform jobs submit training``.

A ``!`` line is expanded as IPython expands it (provider.gcloud.notebook_expand) with the values the
notebook's code cells give its variables by then (provider.document.python_values: read, never run), at its
own line when it is inside an ``if`` or a loop (``blocks``; any other block is refused),
and handed to the gcloud reader as the line the shell gets; a ``%%bash`` cell expands nothing and
is read as written (provider.gcloud.notebook).
"""

from __future__ import annotations

import ast
import json
import re

from provider.core.errors import UserError
from provider.core.record import Record
from provider.document.ipython_expand import var_expand
from provider.document.python_cells import escape_rows
from provider.document.python_names import bound_names
from provider.document.python_values import Scope, Unknown, scope_after, statements
from provider.gcloud.cloud_build import TRAINING
from provider.gcloud.notebook import bash_cell
from provider.gcloud.script import position
from provider.spec.formats.vertex import api_enums

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
    cell: the whole cell as ``text``, ``bash`` True, ``line`` the line its training command's gcloud is on."""

    cell: Cell
    line: int
    text: str
    starts: tuple[tuple[int, int, int], ...]
    bash: bool

    def place(self, offset: int) -> str:
        """Where character ``offset`` of ``text`` is in the cell: "cell 7, line 2, column 15"."""
        if self.bash:  # the whole cell
            line, column = position(self.text, offset)
            return f"cell {self.cell.number}, line {line}, column {column}"
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
        training = TRAINING.search(cell.text)
        if training is None:
            return []
        gcloud = cell.text.rfind("gcloud", 0, training.start() + 1)  # the line its gcloud begins on, for messages
        return [Command(cell, cell.text.count("\n", 0, max(gcloud, 0)) + 1, cell.text, ((0, 1, 1),), True)]
    found = []
    lines = cell.text.split("\n")
    ipython = set(escape_rows(cell.text))  # where IPython reads a line as its own: not in brackets or a string
    i = 0
    while i < len(lines):
        bang = _BANG.match(lines[i]) if i in ipython else None
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


def scope_at(cells: list[Cell], command: Command, shown: str = "the notebook") -> Scope:
    """The notebook's Python values where the command's line runs (``blocks``)."""
    return blocks(cells, command, shown)[0]


def blocks(cells: list[Cell], command: Command, shown: str = "the notebook") -> tuple[Scope, list[str]]:
    """The notebook's Python values where the command's line runs, and a note for each loop it is in: after every
    code cell before its cell and the statements of its cell before it, following each ``if`` and loop the line is
    in (IPython runs a ``!`` line in a block at its place: ``get_ipython().system(...)`` at the same indent).
    UserError for a line whose values there cannot be known: in an ``if`` whose test is not known, or in a branch
    not taken, in a ``def``, ``class``, ``with``, ``try`` or ``match``; in a loop, one that reads a name the loop
    sets (each turn has its own value)."""
    label = f"cell {command.cell.number}"
    sources = [(f"cell {c.number}", c.text) for c in cells if c.kind == "code" and c.number <= command.cell.number]
    for where, stmt, scope in statements(sources, api_enums.member):
        if where.label == label and stmt.lineno <= command.line <= (stmt.end_lineno or stmt.lineno):
            return _in_blocks(stmt, scope, sources, command, shown)
    if command.cell.text.split("\n")[command.line - 1][:1] in (" ", "\t") and not command.bash:
        raise UserError(f"{shown} cell {command.cell.number}, line {command.line}: this ! line is indented, in a block "
                        "of a cell that does not parse as Python, so the values it sees there cannot be read; "
                        "allowed: a ! line at the top level of its cell, or in an if whose test is known", exit_code=1)
    # the command's cell does not parse as Python: what its lines before the command set
    before = "\n".join(command.cell.text.split("\n")[:command.line - 1])
    return scope_after(sources[:-1] + [(label, before)], api_enums.member), []


_FOLLOWED = (ast.If, ast.For, ast.AsyncFor, ast.While)


def _chain(stmt: ast.stmt, line: int) -> list[tuple[ast.stmt, str]]:
    """The compound statements ``line`` is in, from ``stmt`` inwards, each with the part that holds it ("body" or
    "orelse"): through each ``if`` and loop, up to the first block of another kind (which is refused)."""
    def holds(node: ast.stmt) -> bool:
        return node.lineno <= line <= (node.end_lineno or node.lineno)

    chain: list[tuple[ast.stmt, str]] = []
    node = stmt
    while hasattr(node, "body") and node.lineno < line:
        part = "orelse" if any(holds(c) for c in getattr(node, "orelse", [])) else "body"
        chain.append((node, part))
        inner = [c for c in getattr(node, part) if holds(c)] if isinstance(node, _FOLLOWED) else []
        if not inner:
            return chain
        node = inner[0]
    return chain


def _before(sources: list[tuple[str, str]], command: Command, line: int) -> Scope:
    """The values just before ``line`` of the command's cell runs: its cell cut there, the line made ``pass``
    (at its own indent, so that the blocks it is in stay open and run as the evaluator follows them)."""
    lines = command.cell.text.split("\n")
    indent = lines[line - 1][:len(lines[line - 1]) - len(lines[line - 1].lstrip())]
    cut = "\n".join(lines[:line - 1] + [indent + "pass"])
    return scope_after(sources[:-1] + [(sources[-1][0], cut)], api_enums.member)


_LOOPS = {ast.For: "for loop", ast.AsyncFor: "async for loop", ast.While: "while loop"}
_WHY = {"with": "what its context manager does (it may set values, or swallow an error and skip the rest) is not read",
        "match": "which case runs is not read",
        "try": "whether it runs, and which lines of the try ran before it, cannot be known (an error skips the rest "
               "of the try)"}


def _in_blocks(stmt: ast.stmt, scope: Scope, sources: list[tuple[str, str]], command: Command,
               shown: str) -> tuple[Scope, list[str]]:
    """The Scope at the command's line and the notes, ``stmt`` being the top-level statement that holds it
    (``scope``: before it)."""
    chain = _chain(stmt, command.line)
    if not chain:
        return scope, []
    cell = command.cell.number
    at = f"{shown} cell {cell}, line {command.line}"
    looped: dict[str, str] = {}  # a name a loop the line is in sets -> that loop
    notes = []
    for node, part in chain:
        block = f"cell {cell}, line {node.lineno}"
        if isinstance(node, ast.If):
            word = "elif" if command.cell.text.split("\n")[node.lineno - 1].lstrip().startswith("elif") else "if"
            _not_looped(node.test, looped, f"{at}: the test of the {word} at {block}")
            test = _before(sources, command, node.lineno).evaluate(node.test)
            if isinstance(test, Unknown):
                raise UserError(f"{at}: this ! line is inside the {word} at {block}, whose test is not known: {test.why}; "
                                "IPython runs the line only when the test holds, with the values the branch sets, "
                                "which cannot be known here; allowed: give the test's values literally before the "
                                "if, or a ! line outside it", exit_code=1)
            if (part == "body") != bool(test):
                raise UserError(f"{at}: this ! line never runs: it is in the {'if' if part == 'body' else 'else'} "
                                f"branch of the {word} at {block}, whose test is {bool(test)} with the notebook's "
                                "values; allowed: the command of the branch that runs", exit_code=1)
        elif type(node) in _LOOPS and part == "body":
            kind = _LOOPS[type(node)]
            looped.update(dict.fromkeys(bound_names(node), f"the {kind} at {block}"))
            notes.append(f"{at} is inside the {kind} at {block}, which runs it once each turn (each turn submits a "
                         "job): the spec is that job, whose values are the same each turn (the line reads none the "
                         "loop sets)")
        elif type(node) not in _LOOPS:
            _refuse(node, at, block)
        elif any(isinstance(inner, ast.Break) for inner in ast.walk(node)):  # a loop's else runs only without break
            raise UserError(f"{at}: this ! line is in the else of the {_LOOPS[type(node)]} at {block}, which runs only "
                            "when the loop ends without its break, which cannot be known here; allowed: a ! line at "
                            "the top level of its cell", exit_code=1)
    scope = _before(sources, command, command.line)
    if looped:
        expanded = var_expand(command.text, scope)
        for field, _ in expanded.replaced:
            _not_looped(ast.parse(field.expression.strip(), mode="eval"), looped, f"{at}: {field.token}")
    return scope, notes


def _not_looped(node: ast.AST, looped: dict[str, str], what: str) -> None:
    """UserError where ``node`` reads a name a loop the line is in sets: each turn has its own value."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name) and inner.id in looped:
            raise UserError(f"{what} reads {inner.id}, which {looped[inner.id]} sets: each turn runs the line with "
                            "its own value, a job each, which cannot be known without running the notebook; "
                            "allowed: one ! line outside the loop, with its values written before it", exit_code=1)


def _refuse(node: ast.stmt, at: str, block: str) -> None:
    """UserError for a ! line inside a block whose values (or whether it runs at all) cannot be known here."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        kind = "class" if isinstance(node, ast.ClassDef) else "function"
        raise UserError(f"{at}: this ! line is inside the {kind} {node.name} defined at {block}: it runs only when "
                        f"the {kind} is called (if ever), with the values of that time, which cannot be known here; "
                        "allowed: a ! line at the top level of its cell", exit_code=1)
    kind = {ast.With: "with", ast.AsyncWith: "async with", ast.Match: "match"}.get(type(node), "try")
    why = _WHY.get(kind.removeprefix("async "), _WHY["try"])
    raise UserError(f"{at}: this ! line is inside the {kind} at {block}: {why}; allowed: a ! line at the top "
                    "level of its cell, or in an if whose test is known", exit_code=1)


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
