"""What a ``for`` loop goes through, where it is known without running the code (python_flow unrolls such a loop).

``items(scope, stmt)`` gives the values Python binds the loop's target to, in order, or None:

* a known list, tuple or str; a dict (its keys); ``D.items()``, ``D.keys()``, ``D.values()`` of a known dict;
* ``range(...)`` of known ints, ``enumerate(X[, start])``, ``zip(X, Y, ...)``, ``reversed(X)``, ``sorted(X)`` of
  what is known here;
* at most 100 items (a longer loop is read as before: whole, what it sets not known).

None too where the loop cannot be followed turn by turn: a target other than names (``for d["k"] in ...``), a
``break`` or ``continue`` in its body (outside loops of its own), an ``else`` with them, a set (its order is
Python's hash order), anything else. A list is gone through as Python does, one item after the other, each the very
object the list holds (``for pool in pools: pool["x"] = 1`` changes the pools).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from provider.document.python_unknown import Unknown

if TYPE_CHECKING:
    from provider.document.python_values import Scope

MAX_ITEMS = 100  # also what a comprehension goes through (python_comprehension)
VIEWS = {"items": lambda d: list(d.items()), "keys": lambda d: list(d), "values": lambda d: list(d.values())}


def items(scope: Scope, stmt: ast.For, defs: Mapping[str, ast.FunctionDef] | None = None) -> list[object] | None:
    """The values ``stmt``'s target takes, in order; None where they are not known or the loop is not followed.
    ``defs``: the functions the code's calls are followed into (python_flow), whose bodies the loop's runs too."""
    if not _names_only(stmt.target) or _leaves_turn(stmt.body) or _may_change(scope, stmt, defs or {}):
        return None
    found = iterated(scope, stmt.iter)
    return found if found is not None and len(found) <= MAX_ITEMS else None


def _may_change(scope: Scope, stmt: ast.For, defs: Mapping[str, ast.FunctionDef]) -> bool:
    """Whether the loop's body (or a function it calls) names a list, dict or set the loop goes through: Python goes
    through it as it is at each turn (``for x in L: L.pop()`` stops early), so the items are not taken before."""
    held = [scope.get(n.id) for n in ast.walk(stmt.iter) if isinstance(n, ast.Name)]
    mutable = [v for v in held if isinstance(v, (list, dict, set))]
    if not mutable:
        return False
    names: set[str] = set()
    todo: list[ast.AST] = list(stmt.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name) and node.id not in names:
            names.add(node.id)
            if node.id in defs:
                todo.extend(defs[node.id].body)
        todo.extend(ast.iter_child_nodes(node))
    return any(scope._values.get(name) is value for name in names for value in mutable)


def iterated(scope: Scope, node: ast.expr) -> list[object] | None:
    """The items Python goes through for ``node`` (a loop's or a comprehension's iterable), or None (not known here;
    a set: its order is Python's hash order)."""
    if isinstance(node, ast.Call) and not node.keywords:
        called = _call(scope, node)
        if called is not NotImplemented:
            return called  # type: ignore[return-value]
    value = scope.evaluate(node)
    return _listed(value)


def _listed(value: object) -> list[object] | None:
    if isinstance(value, (list, tuple, str)):
        return list(value)
    if isinstance(value, dict):
        return list(value)
    return None


def _call(scope: Scope, node: ast.Call) -> object:
    """The items of ``range``/``enumerate``/``zip``/``reversed``/``sorted``/a dict view; NotImplemented when the call
    is none of those (the evaluator reads it); None when one of those whose items are not known."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in VIEWS and not node.args:
        base = scope.evaluate(func.value)
        return VIEWS[func.attr](base) if isinstance(base, dict) else None
    if not isinstance(func, ast.Name) or func.id not in BUILTINS or func.id in scope._values \
            or func.id in scope._imports:
        return NotImplemented
    args = [_argument(scope, a) for a in node.args]
    if any(a is None or isinstance(a, Unknown) for a in args):
        return None
    return BUILTINS[func.id](args)


def _range(args: list[object]) -> list[object] | None:
    bounds = [a for a in args if type(a) is int]
    if len(bounds) != len(args) or not 1 <= len(bounds) <= 3 or (len(bounds) == 3 and bounds[2] == 0):
        return None
    stepped = range(*bounds)
    return list(stepped) if len(stepped) <= MAX_ITEMS else None


def _lists(args: list[object]) -> list[list[object]] | None:
    found = [_listed(a) for a in args]
    lists = [x for x in found if x is not None]
    return lists if lists and len(lists) == len(found) else None


def _enumerate(args: list[object]) -> list[object] | None:
    lists, start = _lists(args[:1]), args[1] if len(args) == 2 else 0
    return list(enumerate(lists[0], start)) if lists and type(start) is int and len(args) <= 2 else None


def _zip(args: list[object]) -> list[object] | None:
    lists = _lists(args)
    return list(zip(*lists)) if lists else None


def _reversed(args: list[object]) -> list[object] | None:
    lists = _lists(args)
    return list(reversed(lists[0])) if lists and len(lists) == 1 else None


def _sorted(args: list[object]) -> list[object] | None:
    lists = _lists(args)
    if not lists or len(lists) != 1:
        return None
    try:
        return sorted(lists[0])  # type: ignore[type-var]  # whatever Python can order
    except TypeError:  # sorted() of values Python cannot order: it raises; not followed here
        return None


BUILTINS: dict[str, Callable[[list[object]], list[object] | None]] = {
    "range": _range, "enumerate": _enumerate, "zip": _zip, "reversed": _reversed, "sorted": _sorted}


def _argument(scope: Scope, node: ast.expr) -> object:
    """An argument's value: the items of a call of the kind read here (``zip(x, reversed(y))``), else its value."""
    called = _call(scope, node) if isinstance(node, ast.Call) and not node.keywords else NotImplemented
    return scope.evaluate(node) if called is NotImplemented else called


def _names_only(target: ast.expr) -> bool:
    if isinstance(target, ast.Name):
        return True
    return isinstance(target, (ast.Tuple, ast.List)) and all(_names_only(t) for t in target.elts)


def _leaves_turn(body: list[ast.stmt]) -> bool:
    """A ``break`` or ``continue`` of this loop (not of a loop, function or class inside it)."""
    todo: list[ast.AST] = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Break, ast.Continue)):
            return True
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            todo.extend(node.orelse)  # a loop's else is this loop's: its break leaves this one
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return False
