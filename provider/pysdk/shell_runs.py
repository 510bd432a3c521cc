"""Python that runs a command: ``subprocess.run/call/check_call/check_output/Popen(...)``, ``os.system(...)`` and
``get_ipython().system(...)`` (a notebook's ``!`` line in the .py nbconvert exports, its line expanded with the code's
values as IPython expands it: provider.document.ipython_expand), each call's command line read statically
(provider.document.python_values), never run.

The line is what the shell reads: a list (or tuple) of words gives each word shlex-quoted, as the process gets
them with no shell between; a string given with ``shell=True``, or to ``os.system``, is the line itself. A call
whose command cannot be known (a value the code gives only when it runs, a call inside a loop, a ``with``, an
``except`` clause, an ``if`` whose test is not known or a function not called at top level, a string without
``shell=True``, ``env=`` or ``cwd=``) carries why, for the caller to refuse by name when the call is the one it
converts (cli/convert_shell_runs.py: a gcloud training command). The code is followed as it runs
(provider.document.python_flow: the branch taken of an ``if`` whose test is known, a ``try``'s body, a function
called at top level); a call in a branch not taken carries ``skipped``, why it does not run.
"""

from __future__ import annotations

import ast
import itertools
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING

from provider.core.record import Record
from provider.spec.formats.vertex import api_enums

if TYPE_CHECKING:
    from provider.document.python_values import Scope

_RUNS = frozenset(f"subprocess.{name}" for name in ("run", "call", "check_call", "check_output", "Popen"))
_SYSTEM = "os.system"
_IPYTHON = ("system", "getoutput")  # get_ipython().system(LINE): a notebook's ! line, as nbconvert writes it


def _ipython_system(node: ast.Call) -> bool:
    """``get_ipython().system('...')`` or ``.getoutput('...')``: what nbconvert writes for a ``!`` line (``x = !cmd``)
    of a notebook exported as a .py script; IPython expands the line with the code's values when it runs it."""
    func = node.func
    return (isinstance(func, ast.Attribute) and func.attr in _IPYTHON and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Name) and func.value.func.id == "get_ipython" and len(node.args) == 1)


class ShellRun(Record):
    """One call that runs a command: where it is, its command's source text, and the line the shell reads
    (``line``), or why it cannot be known (``why``)."""

    label: str  # the source's label: the file, or a notebook's "cell 4"
    where: str  # "train.py:12:5", or "NB.ipynb cell 4, line 3, column 1"
    source: str
    line: str | None
    why: str | None
    scope: Scope  # the code's values where the call runs (the environment it sets, for the shell)
    skipped: str | None = None  # why the call does not run (the branch not taken of an if whose test is known)
    assigned: str = ""  # where the line is not known: the source of what the code assigns the command's variable


def _line(node: ast.Call, shell: bool, scope: object) -> tuple[str | None, str | None]:
    from provider.document.python_values import Scope, Unknown

    assert isinstance(scope, Scope)
    if not (node.args or any(k.arg == "args" for k in node.keywords)):
        return None, "the call gives no command"
    command = node.args[0] if node.args else next(k.value for k in node.keywords if k.arg == "args")
    value = scope.evaluate(command)
    if isinstance(value, Unknown):
        return None, f"its command cannot be known without running the code: {value.why}"
    if isinstance(value, (list, tuple)) and all(isinstance(w, str) for w in value) and value:
        if shell:
            return None, "a list of words with shell=True runs only its first word as the shell's line"
        return " ".join(shlex.quote(w) for w in value), None
    if isinstance(value, str) and _ipython_system(node):  # IPython's var_expand, as for the ! line it was
        return _expanded(value, scope)
    if isinstance(value, str):
        if not shell:
            return None, "a string without shell=True names one program, the whole string (Python raises " \
                         "FileNotFoundError)"
        return value, None
    return None, f"its command is a {type(value).__name__}, not a list of words or a string"


def _expanded(line: str, scope: Scope) -> tuple[str | None, str | None]:
    """A ``get_ipython().system`` line as IPython expands it with the code's values, or why it cannot be known."""
    from provider.document.ipython_expand import var_expand

    expanded = var_expand(line, scope)
    if expanded.failed is None and expanded.unknown is not None:
        return None, f"its line is expanded by IPython with a value known only when the code runs: " \
                     f"{expanded.unknown[1].why}"
    return expanded.text, None


def _call(node: ast.Call, scope: object) -> tuple[bool, str | None] | None:
    """(whether the shell reads the line, why the call is not read) for a call that runs a command, else None."""
    from provider.document.python_values import Scope

    assert isinstance(scope, Scope)
    qualified = scope.qualified(node.func)
    if qualified == _SYSTEM or _ipython_system(node):
        return True, None
    if qualified not in _RUNS:
        return None
    shell: object = False
    for keyword in node.keywords:
        if keyword.arg == "shell":
            shell = scope.evaluate(keyword.value)
        elif keyword.arg in ("env", "cwd", "executable"):
            return False, f"{keyword.arg}= is not read (the command runs with this process's environment and folder)"
    if not isinstance(shell, bool):
        return False, "its shell= cannot be known without running the code"
    return shell, None


def _assigned(stmt: ast.stmt, node: ast.Call) -> str:
    """The source of the last ``NAME = ...`` in ``stmt`` before the call ``node`` whose command is ``NAME``: what it
    runs, for a call whose line is not known (in a function never called: ``cmd = [...]; subprocess.run(cmd)``)."""
    command = node.args[0] if node.args else None
    if not isinstance(command, ast.Name):
        return ""
    values = [n.value for n in ast.walk(stmt) if isinstance(n, ast.Assign) and n.lineno < node.lineno
              and any(isinstance(t, ast.Name) and t.id == command.id for t in n.targets)]
    return ast.unparse(max(values, key=lambda v: v.lineno)) if values else ""


def shell_runs(sources: Sequence[tuple[str, str]], shown: str, cells: bool = False) -> list[ShellRun]:
    """Every call of ``sources`` ((label, text), as provider.pysdk.program.read takes them) that runs a command."""
    from provider.document.python_flow import flow, unfollowed

    found: dict[object, ShellRun] = {}  # a call in a function: by the call's node, until the function is called
    count = itertools.count()
    for step in flow(sources, api_enums.member):
        stmt, scope = step.stmt, step.scope
        nested = not isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign))
        for node in ast.walk(stmt):
            if not isinstance(node, ast.Call):
                continue
            kind = _call(node, scope)
            if kind is None:
                continue
            line = getattr(node, "lineno", 0)
            column = getattr(node, "col_offset", 0) + 1
            place = f"{shown} {step.where.label}, line {line}, column {column}" if cells else f"{shown}:{line}:{column}"
            shell, why = kind
            if nested and step.skipped is None:  # a function never called runs nothing: that is the cause
                why = f"it is inside {unfollowed(stmt, scope)}" + (
                    "" if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) else
                    ", whose values are known only when it runs")
            text, reason = (None, why) if why or step.skipped else _line(node, shell, scope)
            found.pop(node, None)
            key: object = node if isinstance(stmt, ast.FunctionDef) else next(count)
            found[key] = ShellRun(step.where.label, place, ast.unparse(node), text, reason, scope, step.skipped,
                                  _assigned(stmt, node) if text is None else "")
    return list(found.values())
