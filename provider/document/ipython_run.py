"""What a notebook's ``%%writefile`` cells and ``%run`` lines do to its files and names, as IPython runs them
(IPython/core/magics/osm.py ``writefile``, execution.py ``run``).

* ``%%writefile [-a] PATH`` (``%%file``) writes the cell's body to PATH, its arguments expanded with the notebook's
  values first (``{PYTHON_PACKAGE_APPLICATION_DIR}/task.py``); ``-a`` appends. The file is the run's
  (python_modules.Modules.written): a later ``%run`` or ``import`` of it reads what the notebook wrote.
* ``%run [-i] [-n] [-e] [-t] [-d] [-p] [-G] FILE [ARG ...]`` runs the Python file FILE (from the notebook's folder,
  ``FILE.py`` when FILE is not there) as a script: ``__name__`` is ``"__main__"`` (with ``-n``, the file's name), in a
  namespace of its own (with ``-i``, in the notebook's); then every name it bound is the notebook's. ``-m MODULE``
  runs a module of the code's own so.
* With arguments after FILE (the script's ``sys.argv``), each name the file binds is Unknown: trainjobs reads no
  script's command line. A file that is not found or not read, an ``.ipynb``/``.ipy`` file, or arguments whose
  values are not known: every variable of the notebook is Unknown after the line, since the file may set any (the
  modules imported keep their names: a script that rebinds ``aiplatform`` is not what notebooks run).
A ``%run`` in a block that may not run makes every variable Unknown too (``maybe``).
"""

from __future__ import annotations

import ast
import posixpath
import shlex
from typing import TYPE_CHECKING

from provider.document import python_modules
from provider.document.ipython_expand import var_expand
from provider.document.python_names import bound_names
from provider.document.python_unknown import Unknown, Where

if TYPE_CHECKING:
    from provider.document.python_values import Scope

_FLAGS = set("inetdpGr")  # %run's options that take no value (-r: restore the IPython prompt; -d, -p: debugger,
_VALUED = set("NbDlsTm")  # profiler); those that take one


def written(scope: Scope, cell: str) -> None:
    """A ``%%writefile`` (``%%file``) cell: the file it writes, in the run's files. A path that cannot be known is
    kept as written (Modules.unsure): a later read of a file on disk it may have written is not known."""
    head, _, body = cell.lstrip("\n").partition("\n")
    words = head.split(None, 1)
    if not words or words[0] not in ("%%writefile", "%%file") or len(words) < 2:
        return
    expanded = var_expand(words[1], scope)
    try:
        args = shlex.split(expanded.text) if expanded.failed is None and expanded.unknown is None else []
    except ValueError:
        args = []
    append = bool(args) and args[0] in ("-a", "--append")
    paths = args[1:] if append else args
    if len(paths) != 1:
        scope._modules.unsure.append(words[1].split()[-1])
        return
    path = _relative(paths[0])
    files = scope._modules.written
    files[path] = (files.get(path, "") if append else "") + body + ("" if body.endswith("\n") else "\n")


def magic(scope: Scope, line: str, where: Where) -> None:
    """A line magic the notebook runs (``line`` as written): ``%run`` is read here; any other changes no name."""
    words = line.split(None, 1)
    if not words or words[0] != "%run":
        return
    expanded = var_expand(words[1] if len(words) > 1 else "", scope)
    if expanded.failed is not None or expanded.unknown is not None:
        why = expanded.failed[1] if expanded.failed is not None else str(expanded.unknown[1])  # type: ignore[index]
        return _all_unknown(scope, f"{line.strip()!r} at {where}", f"its file cannot be known: {why}", where)
    try:
        words = shlex.split(expanded.text)
    except ValueError as error:
        return _all_unknown(scope, f"{line.strip()!r} at {where}", f"IPython cannot split it ({error})", where)
    parsed = _options(words)
    if isinstance(parsed, str):
        return _all_unknown(scope, f"{line.strip()!r} at {where}", f"trainjobs does not read %run's option -{parsed}",
                            where)
    options, module, i = parsed
    target = module.replace(".", "/") + ".py" if module is not None else (words[i] if i < len(words) else None)
    argv = words[i:] if module is not None else words[i + 1:]
    _run(scope, line.strip(), where, target, argv, options)


def _options(words: list[str]) -> tuple[set[str], str | None, int] | str:
    """%run's options (as its getopt reads them: ``-in``, ``-m MODULE``, ``-N3``): the flags, the module of ``-m``
    and the index of the first word after them; or the letter of an option trainjobs does not read."""
    options: set[str] = set()
    module, i = None, 0
    while i < len(words) and words[i].startswith("-") and len(words[i]) > 1 and module is None:
        for k, letter in enumerate(words[i][1:]):
            if letter in _VALUED:
                value = words[i][k + 2:] or (words[i + 1] if i + 1 < len(words) else "")
                i += 0 if words[i][k + 2:] else 1
                module = value if letter == "m" else module
                break
            if letter not in _FLAGS:
                return letter
            options.add(letter)
        i += 1
    return options, module, i


def maybe(scope: Scope, line: str, where: Where) -> None:
    """A line magic in a block that may or may not run: a ``%run`` there leaves every variable Unknown."""
    if line.split(None, 1)[:1] == ["%run"]:
        _all_unknown(scope, f"{line.strip()!r} at {where}", "in a block that may not run", where)


def _run(scope: Scope, line: str, where: Where, target: str | None, argv: list[str], options: set[str]) -> None:
    modules = scope._modules
    source = f"{line!r} at {where}"
    if target is None:
        return _all_unknown(scope, source, "it names no file", where)
    path = _relative(target)
    if not modules.exists(path) and not path.endswith(".py") and modules.exists(f"{path}.py"):
        path = f"{path}.py"  # IPython's get_py_filename
    text = modules.text(path) if not path.endswith((".ipy", ".ipynb")) else Unknown("which trainjobs does not read")
    if isinstance(text, Unknown):
        return _all_unknown(scope, source, f"{path}, {text.why}", where)
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return  # IPython reports the SyntaxError; the file runs nothing
    if argv:
        said = f"is set by {line!r} at {where}: the script's command line ({' '.join(argv)}) is not read"
        scope._unknown([n for stmt in tree.body for n in bound_names(stmt) if not n.startswith("__")], said, where)
        return
    name = "__main__" if "n" not in options else posixpath.basename(path).removesuffix(".py")
    if "i" in options:  # in the notebook's own namespace: its statements see the notebook's values
        saved, scope._values["__name__"] = scope._values.get("__name__"), name
        for stmt in tree.body:
            scope._apply(stmt, Where(path, stmt.lineno))
        scope._values["__name__"] = saved
        return
    read = python_modules.run(modules, path, text, scope._enums, name)
    for bound, value in read._values.items():
        if not bound.startswith("__"):
            scope._imports.pop(bound, None)
            scope._set(bound, value, where)
    for bound, dotted in read._imports.items():
        scope._values.pop(bound, None)
        scope._imports[bound] = dotted
    scope._environ.update(read._environ)


def _all_unknown(scope: Scope, source: str, reason: str, where: Where) -> None:
    """Every variable of the notebook may be set by the %run ``source``, whose file is not read (``reason``)."""
    scope._unknown([n for n in scope._values if not n.startswith("__")], f"may be set by {source}: {reason}", where)
    scope._star = Unknown(f"{source} ({reason})", where)


def _relative(path: str) -> str:
    """A path as the run's files are keyed: from the notebook's folder, normalized (``./a/../b.py`` is ``b.py``)."""
    return posixpath.normpath(path).removeprefix("./")
