"""What a method call does to a known list, dict or set, for provider.document.python_values.

A statement that is a method call on a variable or on a part of one (``args.append("--x")``,
``pools[0]["container_spec"]["args"].extend([...])``, ``cfg["env"].update(A="1")``) is done on the known value,
as Python does it, when its arguments are known (``done``). Any other call that may change a known list, dict or
set (``x = args.pop()``, ``d.setdefault("a", []).append(1)``, a call whose arguments are not known) leaves the
variable it starts from Unknown (``changes``): it is never read as it was before the call.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from provider.document.python_unknown import Unknown

if TYPE_CHECKING:
    from provider.document.python_values import Scope

_MUTATORS: dict[type, frozenset[str]] = {
    list: frozenset({"append", "extend", "insert", "remove", "reverse", "sort", "clear", "pop"}),
    dict: frozenset({"update", "setdefault", "clear", "pop", "popitem"}),
    set: frozenset({"add", "discard", "remove", "update", "clear", "pop"}),
}
_PURE: dict[type, frozenset[str]] = {  # the methods that change nothing
    list: frozenset({"index", "count", "copy"}),
    dict: frozenset({"get", "keys", "values", "items", "copy"}),
    set: frozenset({"copy", "union", "intersection", "difference", "issubset", "issuperset", "isdisjoint"}),
}
_CONTAINERS = (list, dict, set)


def root(node: ast.expr) -> ast.Name | None:
    """The variable an expression starts from, through attributes, subscripts and calls (``d`` of
    ``d.setdefault("a", [])["b"]``), or None."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node if isinstance(node, ast.Name) else None


def _receiver(scope: Scope, node: ast.expr) -> object:
    """The object a method is called on, where reading it runs nothing (a name and its subscripts), else Unknown."""
    inner = node
    while isinstance(inner, ast.Subscript):
        inner = inner.value
    return scope.evaluate(node) if isinstance(inner, ast.Name) else Unknown("a call's result", None)


def done(scope: Scope, call: ast.Call) -> bool:
    """Whether the method call ``call`` (a statement) was done on its known receiver, or changes nothing (a str's
    method); False: what it changes is not known."""
    assert isinstance(call.func, ast.Attribute)
    value, method = _receiver(scope, call.func.value), call.func.attr
    if isinstance(value, Unknown):
        return False
    if method in _MUTATORS.get(type(value), frozenset()):
        args = [scope.evaluate(a) for a in call.args if not isinstance(a, ast.Starred)]
        kwargs = {k.arg: scope.evaluate(k.value) for k in call.keywords if k.arg is not None}
        if len(args) == len(call.args) and len(kwargs) == len(call.keywords) \
                and not any(isinstance(a, Unknown) for a in [*args, *kwargs.values()]):
            try:
                getattr(value, method)(*args, **kwargs)
                return True
            except (LookupError, TypeError, ValueError):
                pass
        return False
    return not isinstance(value, _CONTAINERS) or method in _PURE[type(value)]


def changes(scope: Scope, stmt: ast.AST, skip: ast.AST | None = None) -> list[tuple[str, str]]:
    """(variable, the call) for each method call in ``stmt`` (not in a function or lambda it defines; ``skip``: a
    call already done) that may change a known list, dict or set the variable holds."""
    found: list[tuple[str, str]] = []
    todo: list[ast.AST] = [stmt]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(node))
        if node is skip or not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        name = root(node.func.value)
        if name is None or scope.qualified(name) is not None or not isinstance(scope.get(name.id), _CONTAINERS):
            continue
        value = _receiver(scope, node.func.value)
        if isinstance(value, Unknown) or (isinstance(value, _CONTAINERS)
                                          and node.func.attr not in _PURE[type(value)]):
            found.append((name.id, ast.unparse(node.func)))
    return found
