"""Which top-level names a statement binds or changes, for provider.document.python_values (a statement it does
not run makes each of them Unknown)."""

from __future__ import annotations

import ast
from collections.abc import Container, Mapping


def bound_names(node: ast.AST) -> list[str]:
    """The names ``node`` binds at the top level (not those local to a function or class in it), in order."""
    found: dict[str, None] = {}

    def visit(inner: ast.AST) -> None:
        if isinstance(inner, ast.Name) and isinstance(inner.ctx, (ast.Store, ast.Del)):
            found[inner.id] = None
        elif isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found[inner.name] = None
            found.update(dict.fromkeys(globals_of(inner)))
            return
        elif isinstance(inner, (ast.Import, ast.ImportFrom)):
            found.update(dict.fromkeys((a.asname or a.name.split(".")[0]) for a in inner.names if a.name != "*"))
        elif isinstance(inner, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and inner.name:
            found[inner.name] = None
        elif isinstance(inner, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return
        for child in ast.iter_child_nodes(inner):
            visit(child)

    visit(node)
    return list(found)


def globals_of(node: ast.AST) -> list[str]:
    """The names a function or class declares ``global`` in its body."""
    return [name for inner in ast.walk(node) if isinstance(inner, ast.Global) for name in inner.names]


def root_name(node: ast.expr, modules: Container[str] = ()) -> list[str]:
    """The variable an attribute or subscript chain changes (``x`` of ``x[0]["a"].b = ...``), as a list; none where
    it is one of ``modules`` (``sys.argv[1] = ...`` changes what the module holds, not the name ``sys``)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return [node.id] if isinstance(node, ast.Name) and node.id not in modules else []


def changed_names(stmt: ast.AST, values: Mapping[str, object], modules: Container[str]) -> tuple[list[str], list[str]]:
    """The variables a statement may set, and those it may change in place, each in order: the names it binds;
    and those it changes through a subscript, an attribute or a method (``d[k] = ...``, ``x.append(...)``, a loop's
    ``for pool in pools: pool["x"] = 1``), but for a value no method or subscript changes (a str's, a tuple's in
    ``values``: ``x.lower()`` in a loop leaves ``x`` as it was). Never ``modules``."""
    changed: list[str] = []
    for node in ast.walk(stmt):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            changed += root_name(node)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            changed += root_name(node.func.value)
        elif isinstance(node, (ast.For, ast.AsyncFor)) and _changes_something(node):
            changed += [n.id for n in ast.walk(node.iter) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    in_place = [n for n in dict.fromkeys(changed) if n not in modules
                and not isinstance(values.get(n), (str, bytes, int, float, tuple, type(None)))]
    return [n for n in bound_names(stmt) if n not in modules], in_place


def walrus_names(stmt: ast.AST) -> list[str]:
    """The names ``:=`` binds in ``stmt`` (in a comprehension too, where it binds the enclosing scope's name)."""
    found: dict[str, None] = {}
    todo = [stmt]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            found[node.target.id] = None
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))
    return list(found)


def _changes_something(loop: ast.For | ast.AsyncFor) -> bool:
    """Whether a loop's body may change a value in place (a subscript or attribute set, a method called, +=)."""
    return any((isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, (ast.Store, ast.Del)))
               or isinstance(n, ast.AugAssign) or (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute))
               for body in (loop.body, loop.orelse) for stmt in body for n in ast.walk(stmt))
