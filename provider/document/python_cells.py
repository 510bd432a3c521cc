"""A notebook cell's text as Python, with IPython's own lines kept as placeholder statements.

IPython reads a cell before Python does (its inputtransformer2): a line that starts with ``!`` (or ``!!``)
runs in a shell, one that starts with ``%`` is a line magic, ``x = !cmd`` / ``x = %magic`` bind their
output, and a cell whose first line starts with ``%%`` is handed whole to a cell magic. Such a line
becomes one statement here, at the same line, so that every line number stays the cell's own:

* ``!cmd`` -> ``_ipython_system_('!cmd')`` (the line and those its trailing backslashes continue,
  as written; the continued lines become blank);
* ``%magic`` -> ``_ipython_magic_('%magic')``;
* ``x = !cmd`` -> ``x = _ipython_system_('!cmd')`` (and ``%`` likewise): x's value is the command's output.

``%%time`` and ``%%capture`` run their body as Python (``%%capture NAME`` binds NAME); any other
cell magic (``%%bash``, ``%%writefile``...) is not Python: ``python_text`` gives None.
A cell that parses as Python as written is left alone.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

SHELL = "_ipython_system_"
MAGIC = "_ipython_magic_"

_ESCAPED = re.compile(r"([ \t]*)((?:[A-Za-z_]\w*[ \t]*,[ \t]*)*[A-Za-z_]\w*[ \t]*=[ \t]*)?([!%].*)\Z")
_PYTHON_CELL_MAGIC = re.compile(r"%%(time|capture)\b[ \t]*(.*)\Z")


def python_text(cell: str) -> str | None:
    """The cell as Python text with the same lines, or None when a cell magic makes it something else."""
    lines = cell.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].startswith("%%"):
        magic = _PYTHON_CELL_MAGIC.match(lines[first].rstrip())
        if magic is None:
            return None
        names = [w for w in magic.group(2).split() if not w.startswith("-")]
        bound = f"{names[0]} = " if magic.group(1) == "capture" and names and names[0].isidentifier() else ""
        lines[first] = f"{bound}{MAGIC}({lines[first]!r})"
        cell = "\n".join(lines)
    try:
        ast.parse(cell)
        return cell
    except SyntaxError:
        pass
    return "\n".join(_placeheld(cell.split("\n")))


def escape_rows(cell: str) -> list[int]:
    """The rows (0-based) of the cell's IPython lines (``!cmd``, ``%magic``, ``x = !cmd``), as IPython finds them:
    only where a logical line starts, not inside brackets or a string (the one reading of this, for every reader)."""
    rows: list[int] = []
    _placeheld(cell.split("\n"), rows)
    return rows


def _placeheld(lines: list[str], rows: list[int] | None = None) -> list[str]:
    """The cell's lines with each IPython line, one at a time and first to last, as its placeholder statement: as
    IPython's TransformerManager does, the cell is read into logical lines again after each (``!echo (`` no longer
    opens a bracket once it is a string). ``rows``: given, each such line's row is added to it."""
    out = list(lines)
    row = 0
    while (found := _next_escape(out, row)) is not None:
        row, m = found
        if rows is not None:
            rows.append(row)
        end = row
        while end < len(out) - 1 and out[end].endswith("\\"):
            end += 1
        written = "\n".join([m.group(3)] + out[row + 1:end + 1])
        call = SHELL if written.startswith("!") else MAGIC
        out[row:end + 1] = [f"{m.group(1)}{m.group(2) or ''}{call}({written!r})"] + [""] * (end - row)
        row = end + 1
    return out


def _next_escape(lines: list[str], first: int) -> tuple[int, re.Match[str]] | None:
    """The first row from ``first`` on that starts a logical line (IPython's make_tokens_by_line: a NEWLINE, or an NL
    outside brackets, ends one; a line inside brackets or a string continues it) with ``!``, ``%`` or ``x = !``."""
    rows: list[int] = []
    depth, fresh = 0, True
    try:
        for token in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline):
            if fresh and token.type not in (tokenize.INDENT, tokenize.DEDENT):
                rows.append(token.start[0] - 1)
                fresh = False
            if token.type == tokenize.NEWLINE or (token.type == tokenize.NL and depth <= 0):
                fresh = True
            elif token.string in ("(", "[", "{"):
                depth += 1
            elif token.string in (")", "]", "}"):
                depth = max(depth - 1, 0)
    except (tokenize.TokenError, SyntaxError):  # a string or bracket open at the end: the lines so far, as IPython
        pass
    for row in rows:
        if first <= row < len(lines) and (m := _ESCAPED.match(lines[row])) is not None:
            return row, m
    return None


def ipython_line(stmt: ast.stmt) -> tuple[str, str] | None:
    """``(SHELL or MAGIC, the line as written)`` when ``stmt`` is a placeholder statement of an
    IPython line (its output unused), else None."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in (SHELL, MAGIC)
            and len(call.args) == 1 and isinstance(call.args[0], ast.Constant)
            and isinstance(call.args[0].value, str)):
        return call.func.id, call.args[0].value
    return None
