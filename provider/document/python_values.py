"""The values of a notebook's (or a Python file's) top-level variables, read statically: nothing is run.

``statements(sources)`` walks the top-level statements of each source in order (a notebook's code
cells, or one .py file), giving each with the Scope as it is just before it runs; ``Scope.evaluate``
gives an expression's value there (provider.document.python_eval says what it evaluates), or an
``Unknown`` that says why it cannot be known. What a statement does to the scope:

* ``x = ...``, ``x: T = ...``, ``a, b = ...``, ``x += ...``, ``d[k] = ...`` (``d[i][k] = ...``, ``d[k] += ...``,
  ``del d[k]``: one that cannot be done makes ``d`` Unknown), ``del x``, imports: as Python does
  (``os.environ[K] = ...`` and ``%env K=V`` set the environment that later reads see);
* ``if``/``elif``/``else`` whose test is known: only the branch taken runs; whose test is not known:
  every name any branch binds becomes Unknown, naming the ``if``;
* ``for``, ``while``, ``with``, ``try``, ``match``: every name they bind or change (``args.append(...)``,
  ``d[k] = ...`` inside) becomes Unknown (python_flow.flow
  reads a ``try``'s body, and a function where it is called, as running instead); ``def`` and
  ``class`` bind an Unknown ("a function defined at ..."), and so does every name a function
  declares ``global``;
* ``x.append(...)``, ``x[0]["args"].extend(...)`` and the like on a known list, dict or set: done, when its
  arguments are known (provider.document.python_mutate); any other call that may change one (``y = x.pop()``,
  ``d.setdefault(k, []).append(v)``) makes the variable Unknown; ``:=`` makes the name it sets Unknown;
* IPython's lines (provider.document.python_cells): ``x = !cmd`` makes x a shell command's output;
  a cell that still does not parse makes every name written in it Unknown ("cell N does not parse").

``__name__`` is ``"__main__"``, as in a notebook and in a script that is run.
"""

from __future__ import annotations

import ast
import copy
import keyword
import os
import re
from collections.abc import Iterable, Iterator

from provider.document import ipython_run, python_eval, python_modules, python_mutate, python_passed, python_taken
from provider.document.ipython_expand import env_magic
from provider.document.python_cells import MAGIC, ipython_line, python_text
from provider.document.python_enum import EnumMember, Enums
from provider.document.python_names import bound_names, changed_names, globals_of, root_name, walrus_names
from provider.document.python_unknown import Unknown, Where

__all__ = ["Scope", "Unknown", "Where", "scope_after", "statements"]

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_KEYWORDS = frozenset(keyword.kwlist)
_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.TryStar, ast.Match,
             ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class Scope:
    """The top-level variables, imports and environment as they are at one statement."""

    def __init__(self, enums: Enums | None = None) -> None:
        self._enums = enums  # the API's enum members, as the reader building this scope knows them (python_enum)
        self._values: dict[str, object] = {"__name__": "__main__"}
        self._imports: dict[str, str] = {}
        self._star: Unknown | None = None
        self._environ: dict[str, object] = {}
        self._environ_unknown: Unknown | None = None
        self._environ_read: dict[str, str] = {}  # what the code read from this process's environment
        self._may_share: dict[str, set[int]] = {}  # an Unknown variable -> the lists and dicts it may hold (their ids)
        self._where = Where("", 1)
        self._modules = python_modules.Modules()  # the code's own modules it imports (each read once)

    # reading ----------------------------------------------------------------------------------------

    def evaluate(self, node: ast.expr) -> object:
        """``node``'s value (str, int, float, bool, None, list, tuple, dict, set), or an Unknown."""
        return python_eval.evaluate(self, node)

    def get(self, name: str) -> object:
        """The value of variable ``name``, or an Unknown that says why it is not known."""
        if name in self._values:
            return self._values[name]
        if name in self._imports:
            return Unknown(f"{name} is {self._imports[name]}, imported", None, name)
        if self._star is not None:
            return Unknown(f"{name} may come from {self._star.why}", self._star.where, name)
        return Unknown(f"{name} is not assigned before {self._where}", self._where, name)

    def qualified(self, node: ast.expr) -> str | None:
        """The dotted import path of a Name/Attribute chain (``aip.CustomJob`` after ``from google.cloud
        import aiplatform as aip``: "google.cloud.aiplatform.CustomJob"), or None."""
        if isinstance(node, ast.Attribute):
            base = self.qualified(node.value)
            return None if base is None else f"{base}.{node.attr}"
        if isinstance(node, ast.Name) and node.id not in self._values:
            return self._imports.get(node.id)
        return None

    def enum(self, dotted: str) -> EnumMember | str | None:
        """The enum member the dotted import path ``dotted`` names (python_enum.Enums says what comes back)."""
        return None if self._enums is None else self._enums(dotted)

    def environ(self, name: str, node: ast.AST | None = None) -> object:
        """Environment variable ``name`` as the code would read it: str, None when unset, or Unknown."""
        if name in self._environ:
            return self._environ[name]
        if self._environ_unknown is not None:
            return self._environ_unknown
        value = os.environ.get(name)
        if value is not None and node is not None:
            self._environ_read[name] = value
        return value

    def taken(self) -> list[python_taken.Taken]:
        """What the code has taken from outside itself so far, in order (python_taken: one list for the whole run)."""
        return self._modules.taken

    def environ_read(self) -> dict[str, str]:
        """The variables of this process's environment the code has read so far, with their values (the caller
        keeps a secret's value out of what it writes)."""
        return dict(self._environ_read)

    def where_of(self, node: ast.AST) -> Where:
        """Where ``node`` is, in the source being read."""
        return Where(self._where.label, getattr(node, "lineno", self._where.line))

    def names(self) -> list[str]:
        """Every variable assigned so far (known or not)."""
        return [name for name in self._values if name != "__name__"]

    def _snapshot(self) -> Scope:
        twin = copy.copy(self)
        memo: dict[int, object] = {}
        twin._values = copy.deepcopy(self._values, memo)
        twin._modules = self._modules.copied(memo) if self._modules.read or self._modules.written else self._modules
        twin._imports = dict(self._imports)
        twin._environ = dict(self._environ)
        twin._environ_read = dict(self._environ_read)
        twin._may_share = {}  # its values are copies: no id of this scope's is theirs
        return twin

    # running one statement ---------------------------------------------------------------------------

    def _set(self, name: str, value: object, where: Where) -> None:
        if isinstance(value, Unknown):
            if value.name is not None and value.name != name:
                value = Unknown(f"{name} is set from {value.name} at {where}; {value.why}", where, name)
            elif value.name is None:
                value = Unknown(f"{name} is set from {value.why} at {value.where or where}", where, name)
        self._values[name] = value
        self._imports.pop(name, None)

    def _shares(self, names: Iterable[str], shared: set[int]) -> None:
        """Each of ``names`` left Unknown may hold ``shared`` (what the statement read: ``x = helper(B)`` may return B
        itself; what it held, if the statement may not run): a change through it later may be one to them."""
        for name in names:
            if isinstance(self._values.get(name), Unknown):
                self._may_share[name] = shared
            else:
                self._may_share.pop(name, None)

    def _changed(self, names: list[str], why: str, where: Where) -> None:
        """``names`` may be changed in place: Unknown, and so is every variable sharing a list or dict with one (or
        that one, Unknown, may hold: _shares)."""
        extra = set().union(*(self._may_share.get(n, set()) for n in names))
        for other in python_mutate.holders(self._values, names, extra):
            self._set(other, Unknown(f"{other} shares a list or dict with {', '.join(names)}, which {why}", where,
                                     other), where)
        self._unknown(names, why, where)

    def _unknown(self, names: Iterable[str], why: str, where: Where) -> None:
        for name in names:
            self._set(name, Unknown(f"{name} {why}", where, name), where)

    def _bind(self, target: ast.expr, value: object, where: Where) -> None:
        if isinstance(target, ast.Name):
            self._set(target.id, value, where)
        elif isinstance(target, (ast.Tuple, ast.List)):
            self._unpack(target, value, where)
        elif isinstance(target, ast.Starred):
            self._bind(target.value, value, where)
        elif isinstance(target, ast.Subscript) and self.qualified(target.value) == "os.environ":
            key = self.evaluate(target.slice)
            if isinstance(key, Unknown):
                self._environ_unknown = Unknown(f"the environment, set from {key.why} at {where}", where)
            else:
                self._environ[str(key)] = value
        elif isinstance(target, ast.Subscript):
            if not python_mutate.store(self, target, value):
                self._changed(root_name(target, self._imports), f"is changed at {where}", where)
        else:
            self._changed(root_name(target, self._imports), f"is changed at {where}", where)

    def _unpack(self, target: ast.Tuple | ast.List, value: object, where: Where) -> None:
        names = bound_names(target)
        if isinstance(value, Unknown):
            for name in names:
                self._set(name, value, where)
            return
        try:
            items = list(value)  # type: ignore[call-overload]
        except TypeError:
            self._unknown(names, f"is unpacked from a {type(value).__name__} at {where}", where)
            return
        starred = [i for i, elt in enumerate(target.elts) if isinstance(elt, ast.Starred)]
        count = len(target.elts)
        if (len(items) != count) if not starred else (len(items) < count - 1):
            self._unknown(names, f"is unpacked at {where} from {len(items)} values (Python raises ValueError)", where)
            return
        if starred:
            at, rest = starred[0], len(items) - (count - 1)
            items = items[:at] + [items[at:at + rest]] + items[at + rest:]
        for elt, item in zip(target.elts, items):
            self._bind(elt, item, where)

    def _apply(self, stmt: ast.stmt, where: Where, read: ast.AST | None = None) -> None:
        bound = bound_names(stmt)
        held = bound if isinstance(stmt, _COMPOUND) else []  # one that may not run: its names may keep theirs
        shared = python_mutate.reads(self._values, self._may_share, stmt, held)
        self._dispatch(stmt, where)
        self._shares(bound, shared)
        self._unknown(walrus_names(stmt), f"is set by := at {where}", where)  # the evaluator does not run it
        if not isinstance(stmt, _COMPOUND):  # x = args.pop(): a change the evaluator does not make
            for name, call in python_mutate.changes(self, stmt, stmt.value if isinstance(stmt, ast.Expr) else None):
                self._changed([name], f"may be changed by {call}() at {where}", where)
            for name, function in python_passed.passed(self, stmt, read):  # tweak(pools): a function not read here
                self._changed([name], f"may be changed by {function}(), which it is passed to at {where}", where)

    def _dispatch(self, stmt: ast.stmt, where: Where) -> None:
        if isinstance(stmt, ast.Assign):
            value = python_eval.unpacked(self, stmt.value, stmt.targets)
            for target in stmt.targets:
                self._bind(target, value, where)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self._bind(stmt.target, self.evaluate(stmt.value), where)
        elif isinstance(stmt, ast.AugAssign):
            self._augment(stmt, where)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            python_modules.imported(self, stmt, where)
        elif isinstance(stmt, ast.If):
            self._branch(stmt, where)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self._define(stmt, where)
        elif isinstance(stmt, ast.Delete):
            self._delete(stmt, where)
        elif isinstance(stmt, ast.Expr):
            self._expression(stmt, where)
        elif not isinstance(stmt, (ast.Pass, ast.Global, ast.Nonlocal, ast.Assert, ast.Return, ast.Break,
                                   ast.Continue, ast.Raise)):
            kind = type(stmt).__name__.lower().removeprefix("async")
            imported = self._not_run(stmt, f"inside the {kind} at {where}", where)
            self.unknown_after(stmt, imported, f"is set inside the {kind} at {where}", where)

    def unknown_after(self, stmt: ast.stmt, imported: set[str], why: str, where: Where) -> None:
        """Every variable ``stmt``, a statement that may or may not run, may set or change (python_names.changed_names
        says which) becomes Unknown, less ``imported``; with what shares a list or dict with one it changes."""
        bound, in_place = changed_names(stmt, self._values, self._imports)
        shared = python_mutate.reads(self._values, self._may_share, stmt, bound)  # bound may keep theirs
        self._changed([n for n in in_place if n not in imported], why, where)
        self._unknown([n for n in bound if n not in imported], why, where)
        self._shares(bound, shared)

    def _delete(self, stmt: ast.Delete, where: Where) -> None:
        for target in stmt.targets:
            if isinstance(target, ast.Subscript):
                if not python_mutate.store(self, target, None, delete=True):
                    self._changed(root_name(target, self._imports), f"is changed at {where}", where)
            else:
                self._unknown(bound_names(target) or root_name(target, self._imports), f"is deleted at {where}", where)

    def _branch(self, stmt: ast.If, where: Where) -> None:
        """An ``if`` whose test is known runs the branch taken; one whose test is not leaves its names unknown."""
        test = self.evaluate(stmt.test)
        if isinstance(test, Unknown):
            said = f"in the if at {where}, whose test is not known: {test.why}"
            imported = self._not_run(stmt, said, where)
            self.unknown_after(stmt, imported, f"is set {said}", where)
            return
        for inner in stmt.body if test else stmt.orelse:
            self._apply(inner, Where(where.label, inner.lineno))

    def _define(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, where: Where) -> None:
        """A function or class: its name, and every name it declares global, are known only when it runs."""
        kind = "class" if isinstance(stmt, ast.ClassDef) else "function"
        self._unknown(globals_of(stmt), f"is set by the {kind} {stmt.name} defined at {where}", where)
        self._unknown([stmt.name], f"is a {kind} defined at {where}", where)

    def _augment(self, stmt: ast.AugAssign, where: Where) -> None:
        target = stmt.target
        if isinstance(target, ast.Attribute):
            self._changed(root_name(target, self._imports), f"is changed at {where}", where)
            return
        old = self.get(target.id) if isinstance(target, ast.Name) else self.evaluate(ast.Subscript(
            target.value, target.slice, ast.Load()))
        new = self.evaluate(stmt.value)
        unknown = next((v for v in (old, new) if isinstance(v, Unknown)), None)
        value = python_eval.binary(self, stmt, stmt.op, old, new, inplace=True) if unknown is None else unknown
        if isinstance(target, ast.Name):
            self._set(target.id, value, where)
        else:
            self._bind(target, value, where)

    def _not_run(self, stmt: ast.stmt, said: str, where: Where) -> set[str]:
        """What a statement that may or may not run leaves: its imports, as if it ran (a name it imports then
        means that module: the names are returned), and an Unknown for each environment variable it sets
        (``%env``, ``os.environ[K] =``)."""
        imported: set[str] = set()
        for inner in ast.walk(stmt):
            if isinstance(inner, (ast.Import, ast.ImportFrom)):
                self._apply(inner, self.where_of(inner))
                imported.update(bound_names(inner))
            line = ipython_line(inner) if isinstance(inner, ast.stmt) else None
            if line is not None and line[0] == MAGIC:  # a %run that may run: any variable may be set
                ipython_run.maybe(self, line[1], self.where_of(inner))
            names: list[object] = []
            if line is not None and line[0] == MAGIC and line[1].split(None, 1)[0] in ("%env", "%set_env"):
                rest = line[1].split(None, 1)[1] if len(line[1].split(None, 1)) > 1 else ""
                names.append(rest.split("=" if "=" in rest else " ", 1)[0].strip())
            elif isinstance(inner, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = inner.targets if isinstance(inner, ast.Assign) else [inner.target]
                names += [self.evaluate(t.slice) for t in targets
                          if isinstance(t, ast.Subscript) and self.qualified(t.value) == "os.environ"]
            for name in names:
                unknown = Unknown(f"the environment variable {name}, set {said}", where)
                if isinstance(name, str) and name:
                    self._environ[name] = unknown
                elif names:
                    self._environ_unknown = unknown
        return imported

    def _expression(self, stmt: ast.Expr, where: Where) -> None:
        line = ipython_line(stmt)
        if line is not None:
            found = env_magic(line[1], self, where) if line[0] == MAGIC else None  # %env NAME=VALUE
            if found is not None:
                self._environ[found[0]] = found[1]
            if line[0] == MAGIC:  # %run FILE: the names the file binds
                ipython_run.magic(self, line[1], where)
            return
        call = stmt.value
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
            return
        receiver, method = call.func.value, call.func.attr
        if self.qualified(receiver) == "sys.path":  # a folder modules are then looked for in
            return python_modules.sys_path(self, call, method)
        if self.qualified(receiver) == "os.environ" and method in ("update", "setdefault", "pop", "clear"):
            self._environ_unknown = Unknown(f"the environment, changed by os.environ.{method}() at {where}", where)
            return
        name = python_mutate.root(receiver)
        if name is None or self.qualified(name) is not None:
            return
        if isinstance(self.get(name.id), Unknown):  # what it may hold (_shares) may be changed
            if method in python_mutate.MUTATOR_NAMES:
                self._changed([name.id], f"may be changed by {ast.unparse(call.func)}() at {where}", where)
        elif not python_mutate.done(self, call):
            self._changed([name.id], f"may be changed by {ast.unparse(call.func)}() at {where}", where)

    def environ_set(self) -> dict[str, object]:
        """The environment variables the code has set so far (``%env``, ``os.environ[...] = ``): str or Unknown."""
        return dict(self._environ)


def statements(sources: Iterable[tuple[str, str]],
               enums: Enums | None = None) -> Iterator[tuple[Where, ast.stmt, Scope]]:
    """Each top-level statement of ``sources`` ((label, Python text) in order), with where it is and the
    Scope just before it runs (a copy of its own); then the statement is applied. A notebook's IPython
    lines are statements too (provider.document.python_cells.ipython_line reads them)."""
    yield from _walk(Scope(enums), sources)


def parsed(scope: Scope, sources: Iterable[tuple[str, str]]) -> Iterator[tuple[str, ast.Module]]:
    """Each source that parses, (label, its module), in order; one that does not makes every name written in it
    Unknown in ``scope``."""
    for label, text in sources:
        python = python_text(text)
        if python is None:  # a cell magic's: %%writefile writes the run's file
            ipython_run.written(scope, text)
            continue
        try:
            yield label, ast.parse(python)
        except SyntaxError as error:
            scope._where = where = Where(label, error.lineno or 1)
            names = dict.fromkeys(n.group() for n in _IDENTIFIER.finditer(python) if n.group().isidentifier())
            scope._unknown([n for n in names if n not in _KEYWORDS],
                           f"may be set in {label}, which does not parse as Python ({error.msg} at line "
                           f"{error.lineno})", where)


def _walk(scope: Scope, sources: Iterable[tuple[str, str]]) -> Iterator[tuple[Where, ast.stmt, Scope]]:
    for label, tree in parsed(scope, sources):
        for stmt in tree.body:
            scope._where = where = Where(label, stmt.lineno)
            yield where, stmt, scope._snapshot()
            scope._apply(stmt, where)


def scope_after(sources: Iterable[tuple[str, str]], enums: Enums | None = None, name: str = "__main__",
                modules: python_modules.Modules | None = None) -> Scope:
    """The Scope once every statement of ``sources`` has run (as the module ``name``, importing the code's own
    ``modules``: an imported module's, python_modules)."""
    scope = Scope(enums)
    scope._values["__name__"] = name
    scope._modules = modules if modules is not None else scope._modules
    for _ in _walk(scope, sources):
        pass
    return scope

