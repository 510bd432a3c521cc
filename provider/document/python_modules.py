"""Imports (``imported``: what an import statement binds), and the code's own modules: what ``from config import
REGION`` and ``import config`` (then ``config.REGION``) give when ``config`` is a file beside the code being read,
as Python finds it.

Python looks for a module first in the folder of the script it runs (``sys.path[0]``); a notebook's kernel starts
in the notebook's folder, which it looks in first too. A launcher often keeps its project, region, bucket and image
in such a module (``config.py``, ``constants.py``, ``src/settings.py``). While ``beside(folder)`` is open (convert
opens it on the folder of the file it reads), a module there is read as its top level leaves it
(python_values.scope_after, with its own ``__name__``): a value it gives is known, any other is an Unknown that says
why, naming the module's file and line.

As Python does, each module is read once (sys.modules): every import of it shares its values. A file the code
wrote itself (a notebook's ``%%writefile``, provider.document.ipython_run) is read as written; one on disk is read
safely (provider.document.files.read_inside: a regular file, inside the repository, a symlink only to one inside
it, 1 MiB at most). Modules importing modules are read 8 deep at most; one imported while it is being read (a
circular import) is Unknown, as Python would have it part-run. A module is looked for in the folder only (every
part of its import path a Python identifier); a file ``%run`` names may be anywhere in the repository.
"""

from __future__ import annotations

import ast
import copy
import os
import posixpath
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from provider.document import python_taken
from provider.document.python_enum import Enums
from provider.document.python_unknown import Unknown, Where

if TYPE_CHECKING:
    from provider.document.python_taken import Taken
    from provider.document.python_values import Scope

NOT_LOCAL = object()  # the import path names nothing in a module of the code's own
_DEPTH = 8


class Modules:
    """The modules of the code's own that one run of the code imports (its sys.modules), each read once: shared by
    the scope of the code and the scope of each module. A snapshot of a scope takes a copy (``copied``)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder if folder is not None else _BESIDE.get()
        self.read: dict[str, Scope | Unknown] = {}  # module name -> its top level's scope once read, or why not read
        self.reading: list[str] = []  # the modules being read now, outermost first
        self.circular: set[str] = set()  # the modules found importing themselves through others
        self.written: dict[str, str] = {}  # the files the code has written (a notebook's %%writefile), by path
        self.unsure: list[str] = []  # the paths, as written, of files the code wrote where it is not known
        self.search: list[str] = [""]  # the folders of sys.path modules are looked for in, from the folder ("": it)
        self.taken: list[Taken] = python_taken.collected()  # what the code takes from outside: one list
        self._on_disk: dict[str, bool] = {}

    def path(self, parts: list[str]) -> str | None:
        """The file of the module ``parts`` names, from the folder (``a/b.py``, or the package's ``a/b/__init__.py``)
        in the first folder of sys.path that has it: one the code wrote, else one on disk (looked up once per run:
        an attribute of an import is read often)."""
        base = "/".join(parts)
        return next((r for d in self.search for r in (_joined(d, base + ".py"), _joined(d, base + "/__init__.py"))
                     if self.exists(r)), None)

    def exists(self, relative: str) -> bool:
        """Whether the code wrote a file at ``relative`` (from the folder), or one is on disk there."""
        if relative not in self.written and relative not in self._on_disk:
            self._on_disk[relative] = self.folder is not None and (self.folder / relative).is_file()
        return relative in self.written or self._on_disk[relative]

    def text(self, relative: str) -> str | Unknown:
        """The Python text of the file at ``relative`` (a path from the folder): the one the code wrote there last,
        else the file on disk, read safely (provider.document.files: a regular file, a symlink only to one inside
        the repository, 1 MiB at most); an Unknown that says why it was not read."""
        if relative in self.written:
            return self.written[relative]
        if (maybe := self._maybe_written(relative)) is not None:
            return Unknown(f"which the notebook may have written with %%writefile {maybe} (a path not known here): "
                           "the file on disk may not be what the code reads", Where(relative, 1))
        from provider.document.boundary import inside, repository_root
        from provider.document.files import Refused, read_inside, real_path

        folder = real_path(Path(os.path.abspath(self.folder or ".")))
        root = repository_root(folder)  # the repository of the code's folder; the folder itself when it is in none
        root = root if inside(folder, root) else folder
        path = folder / relative
        try:
            if not path.is_symlink() and not inside(real_path(path), root):  # by "..", or a folder linked out
                raise Refused("file.symlink", f"the file is outside {root} (by '..' or a folder that is a symlink); "
                                              "it was not read")
            return read_inside(path, root=root).decode("utf-8")
        except (Refused, OSError, UnicodeDecodeError) as error:
            why = getattr(error, "message", None) or getattr(error, "strerror", None) or str(error)
            return Unknown(f"which was not read: {why}", Where(relative, 1))

    def _maybe_written(self, relative: str) -> str | None:
        """A write the code made to a path not known (``%%writefile {SRC}/config.py``) that may be ``relative``: its
        last part is the file's name, or itself not known (``{NAME}``, ``$NAME``)."""
        name = relative.rsplit("/", 1)[-1]
        for path in self.unsure:
            last = path.rstrip("/").rsplit("/", 1)[-1]
            if last == name or any(c in last for c in "{$"):
                return path
        return None

    def copied(self, memo: dict[int, object]) -> Modules:
        """A copy whose modules' values are copied with ``memo`` (the one the scope's own values are copied with: a
        list the code and a module share stays one list)."""
        twin = Modules(self.folder)
        twin.circular, twin.written, twin._on_disk = set(self.circular), dict(self.written), self._on_disk
        twin.unsure = list(self.unsure)
        twin.search, twin.taken = list(self.search), self.taken
        for name, scope in self.read.items():
            if isinstance(scope, Unknown):
                twin.read[name] = scope
                continue
            module = copy.copy(scope)
            module._values = copy.deepcopy(scope._values, memo)
            module._modules = twin
            twin.read[name] = module
        return twin


_BESIDE: ContextVar[Path | None] = ContextVar("python_modules", default=None)


@contextmanager
def beside(folder: Path) -> Iterator[None]:
    """Within this block, the code read is run from ``folder``: its own modules are the files there."""
    token = _BESIDE.set(folder)
    try:
        yield
    finally:
        _BESIDE.reset(token)


def value(dotted: str, scope: Scope) -> object:
    """What the import path ``dotted`` (``config.REGION``, ``src.settings.BUCKET``: a module of the code's own, then
    one name) gives: the value its module's top level leaves, or an Unknown that says why it is not known;
    NOT_LOCAL when no module of the code's own is named (a package installed, a submodule, no folder given)."""
    modules = scope._modules
    parts = dotted.split(".")
    if len(parts) < 2 or not all(p.isidentifier() for p in parts):
        return NOT_LOCAL
    module, name = ".".join(parts[:-1]), parts[-1]
    path = modules.path(parts[:-1])
    if path is None:
        return NOT_LOCAL
    read = _read(modules, module, path, scope._enums)
    if isinstance(read, Unknown):
        return Unknown(f"{dotted}, from {path}, {read.why}", read.where)
    if name in read._values or name in read._imports:
        found = read.get(name)
        return Unknown(f"{dotted}, set in {path}: {found.why}", found.where) if isinstance(found, Unknown) \
            else found
    if modules.path(parts) is not None:
        return NOT_LOCAL  # ``from src import config``: the submodule src.config, read when its names are
    return Unknown(f"{dotted}, which {path} does not assign at its top level (Python raises ImportError or "
                   "AttributeError)", Where(path, 1))


def names(module: str, scope: Scope) -> dict[str, object] | None:
    """``from module import *`` of a module of the code's own: each public name its top level binds, with its value
    (or Unknown); None when ``module`` is not one."""
    modules = scope._modules
    parts = module.split(".")
    if not all(p.isidentifier() for p in parts):
        return None
    path = modules.path(parts)
    read = None if path is None else _read(modules, module, path, scope._enums)
    if read is None or isinstance(read, Unknown):
        return None
    bound = [n for n in [*read._values, *read._imports] if not n.startswith("_")]
    return {n: value(f"{module}.{n}", scope) for n in dict.fromkeys(bound)}


def sys_path(scope: Scope, call: ast.Call, method: str) -> None:
    """``sys.path.append(FOLDER)``, ``insert(I, FOLDER)`` or ``extend([...])``: a folder modules are then looked for
    in (from the folder the code runs in: ``".."``, ``"../src"``, ``os.path.abspath("..")``). One that cannot be
    known is not looked in: a module only it has is then an import path, not known, as any module not read."""
    modules = scope._modules
    given = call.args[1:] if method == "insert" else call.args
    index = scope.evaluate(call.args[0]) if method == "insert" and call.args else len(modules.search)
    folders: list[object] = []
    for arg in given:
        value = scope.evaluate(arg)
        if isinstance(arg, ast.Call) and scope.qualified(arg.func) in ("os.path.abspath", "os.path.realpath") \
                and len(arg.args) == 1:
            value = scope.evaluate(arg.args[0])  # a relative folder made absolute: from the folder the code runs in
        folders.extend(value if method == "extend" and isinstance(value, (list, tuple)) else [value])
    if method not in ("append", "insert", "extend") or not isinstance(index, int):
        return
    at = min(max(index, 0), len(modules.search))
    modules.search[at:at] = [f for f in folders if isinstance(f, str)]


def imported(scope: Scope, stmt: ast.Import | ast.ImportFrom, where: Where) -> None:
    """An import statement run in ``scope`` (the one home of what an import binds). ``import a.b [as c]`` binds the
    module's path (``a.b.X`` is then read by ``value``); ``from MODULE import NAME [as N]`` (or ``*``) of a module of
    the code's own binds its values, of another module the import path (of a relative one, an Unknown: a script run
    as such has no package)."""
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            name = alias.asname or alias.name.split(".")[0]
            scope._values.pop(name, None)
            scope._imports[name] = alias.name if alias.asname else name
        return
    module = "." * stmt.level + (stmt.module or "")
    for alias in stmt.names:
        if alias.name == "*":
            local = None if stmt.level else names(module, scope)
            for name, found in (local or {}).items():  # an Unknown said as the named import says it
                scope._imports.pop(name, None)
                scope._set(name, Unknown(f"{name} is {found.why}", where, name) if isinstance(found, Unknown) else found,
                           where)
            if local is None:
                scope._star = Unknown(f"from {module} import * at {where}", where)
            continue
        name = alias.asname or alias.name
        scope._values.pop(name, None)
        scope._imports.pop(name, None)
        found = NOT_LOCAL if stmt.level else value(f"{module}.{alias.name}", scope)
        if stmt.level:
            scope._unknown([name], f"is imported from the relative module {module} at {where}", where)
        elif isinstance(found, Unknown):
            scope._set(name, Unknown(f"{name} is {found.why}", where, name), where)
        elif found is not NOT_LOCAL:
            scope._set(name, found, where)
        else:
            scope._imports[name] = f"{module}.{alias.name}"




def _read(modules: Modules, module: str, path: str, enums: Enums | None) -> Scope | Unknown:
    """The scope the top level of ``module`` (its file at ``path``) leaves, read once per run, or why not."""
    if module in modules.read:
        return modules.read[module]
    if module in modules.reading:  # each module of the cycle is then not known (Python gives the part run so far)
        modules.circular.update(modules.reading[modules.reading.index(module):])
        return _circular(path)
    if len(modules.reading) >= _DEPTH:
        return Unknown(f"imported through {_DEPTH} modules of the code's own ({' -> '.join(modules.reading)}): "
                       "trainjobs reads no deeper", Where(path, 1))
    text = modules.text(path)
    if isinstance(text, Unknown):
        modules.read[module] = text
        return text
    modules.reading.append(module)
    try:
        read = run(modules, path, text, enums, module)
    finally:
        modules.reading.pop()
    modules.read[module] = _circular(path) if module in modules.circular else read
    return modules.read[module]


def run(modules: Modules, path: str, text: str, enums: Enums | None, name: str = "__main__") -> Scope:
    """The scope the file at ``path`` (its ``text``) leaves, run as the module ``name`` with ``modules``."""
    from provider.document.python_values import scope_after

    return scope_after([(path, text)], enums, name, modules)


def _joined(folder: str, relative: str) -> str:
    """A path from the code's folder: ``relative`` in the sys.path entry ``folder`` (itself from the code's folder)."""
    return posixpath.normpath(posixpath.join(folder, relative)).removeprefix("./") if folder else relative


def _circular(shown: str) -> Unknown:
    return Unknown("which imports itself through another module (a circular import: Python gives each module of "
                   "the cycle only the part of it run so far, or raises ImportError; trainjobs does not read it)",
                   Where(shown, 1))
