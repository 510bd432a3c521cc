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
import itertools
import re
import tokenize

SHELL = "_ipython_system_"
MAGIC = "_ipython_magic_"

_ESCAPED = re.compile(r"([ \t]*)((?:[A-Za-z_]\w*[ \t]*,[ \t]*)*[A-Za-z_]\w*[ \t]*=[ \t]*)?([!%].*)\Z")
_PYTHON_CELL_MAGIC = re.compile(r"%%(time|capture)\b[ \t]*(.*)\Z")


def python_text(cell: str) -> str | None:
    """The cell as Python text with the same lines, or None when a cell magic makes it something else."""
    lines = _dedented(cell)
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
    return "\n".join(_placeheld(lines))


def escape_rows(cell: str) -> list[int]:
    """The rows (0-based) of the cell's IPython lines (``!cmd``, ``%magic``, ``x = !cmd``), as IPython finds them:
    only where a logical line starts, not inside brackets or a string (the one reading of this, for every reader)."""
    rows: list[int] = []
    _placeheld(_dedented(cell), rows)
    return rows


def _dedented(cell: str) -> list[str]:
    """The cell's lines with the first written line's indentation taken off each line that starts with it, as
    IPython does before it reads a cell (its leading_indent: a cell pasted from inside a block). Blank lines stay,
    so that each line keeps its row; a column is then counted from the indentation taken off."""
    lines = cell.split("\n")
    first = next((line for line in lines if line.strip()), "")
    space = first[:len(first) - len(first.lstrip(" \t"))]
    if not space:
        return lines
    return [line[len(space):] if line.startswith(space) else line for line in lines]

def _placeheld(lines: list[str], rows: list[int] | None = None) -> list[str]:
    """The cell's lines with each IPython line, one at a time and first to last, as its placeholder statement: as
    IPython's TransformerManager does, the cell is read into logical lines again after each (``!echo (`` no longer
    opens a bracket once it is a string). ``rows``: given, each such line's row is added to it.

    The lines before a placeholder read as they did, and the placeholder is a whole statement, so each reading
    goes on from the line after it, with the indentation it had there: every line is read about once."""
    out = list(lines)
    row, indents = 0, tuple[str, ...]()
    last = len(out) - (2 if len(out) > 1 and out[-1] == "" else 1)
    while (found := _next_escape(out, row, indents)) is not None:
        row, m, indents = found
        if rows is not None:
            rows.append(row)
        end = row
        while end < last and out[end].endswith("\\"):  # continued, up to the cell's last line (not the "" after it)
            end += 1
        written = "\n".join([m.group(3)] + out[row + 1:end + 1])
        call = SHELL if written.startswith("!") else MAGIC
        out[row:end + 1] = [f"{m.group(1)}{m.group(2) or ''}{call}({written!r})"] + [""] * (end - row)
        row = end + 1
    return out


def _next_escape(lines: list[str], first: int,
                 indents: tuple[str, ...]) -> tuple[int, re.Match[str], tuple[str, ...]] | None:
    """The first row from ``first`` on that starts a logical line (IPython's make_tokens_by_line: a NEWLINE, or an NL
    outside brackets, ends one; a line inside brackets or a string continues it) with ``!``, ``%`` or ``x = !``,
    with the indentation levels open there. ``first`` starts a logical line; ``indents``: the levels open there
    (the leading whitespace of each), set up again by a line of each before the reading goes on."""
    text = itertools.chain((f"{ws}x\n" for ws in indents),
                           (f"{line}\n" for line in itertools.islice(lines, first, None)))
    depth, fresh, open_levels = 0, True, []
    try:
        for token in tokenize.generate_tokens(lambda: next(text, "")):
            if token.type == tokenize.INDENT:
                open_levels.append(token.string)
            elif token.type == tokenize.DEDENT:
                open_levels.pop()
            elif fresh:
                fresh = False
                row = token.start[0] - 1 - len(indents) + first
                if first <= row < len(lines) and (m := _ESCAPED.match(lines[row])) is not None:
                    return row, m, tuple(open_levels)
            if token.type == tokenize.NEWLINE or (token.type == tokenize.NL and depth <= 0):
                fresh = True
            elif token.string in ("(", "[", "{"):
                depth += 1
            elif token.string in (")", "]", "}"):
                depth = max(depth - 1, 0)
    except (tokenize.TokenError, SyntaxError):  # a string or bracket open at the end: the lines so
        pass  # far, as IPython
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
