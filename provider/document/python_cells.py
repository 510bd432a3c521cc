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
import re

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


def _placeheld(lines: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = _ESCAPED.match(lines[i])
        if m is None:
            out.append(lines[i])
            i += 1
            continue
        end = i
        while end < len(lines) - 1 and lines[end].endswith("\\"):
            end += 1
        written = "\n".join([m.group(3)] + lines[i + 1:end + 1])
        call = SHELL if written.startswith("!") else MAGIC
        out.append(f"{m.group(1)}{m.group(2) or ''}{call}({written!r})")
        out.extend([""] * (end - i))
        i = end + 1
    return out


def ipython_line(stmt: ast.stmt) -> tuple[str, str] | None:
    """``(SHELL or MAGIC, the line as written)`` when ``stmt`` is a placeholder statement of an
    IPython line (its output unused), else None."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in (SHELL, MAGIC)
            and len(call.args) == 1 and isinstance(call.args[0], ast.Constant)
            and isinstance(call.args[0].value, str)):
        return call.func.id, call.args[0].value
    return None
