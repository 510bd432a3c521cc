"""The value of a comprehension (``[f"--size={n}" for n in [12, 16]]``, ``{k: v for k, v in d.items()}``, a
generator expression), read for provider.document.python_eval as Python computes it: each ``for`` over what a
``for`` loop goes through where it is known (provider.document.python_loops.iterated: a known list, tuple, str or
dict, its views, range/enumerate/zip/reversed/sorted), its variables bound to each item in turn over the scope around
it (never seen outside), each ``if`` tested. A loop of more than LIMIT turns, in all, is not computed."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from provider.document import python_loops

if TYPE_CHECKING:
    from provider.document.python_values import Scope

Known = Callable[["Scope", ast.expr], Any]  # python_eval's: a node's known value, or it raises
Give = Callable[["Scope", ast.AST, str], Exception]  # python_eval's: the exception that makes the node Unknown
Evaluate = Callable[["Scope", ast.expr], object]  # python_eval's: a node's value or an Unknown
KINDS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _Bound:
    """The comprehension's own variables over the scope around it."""

    def __init__(self, outer: Scope, names: dict[str, Any], evaluate: Evaluate) -> None:
        self._outer, self._names, self._evaluate = outer, names, evaluate

    def evaluate(self, node: ast.expr) -> object:
        return self._evaluate(cast("Scope", self), node)

    def get(self, name: str) -> object:
        return self._names[name] if name in self._names else self._outer.get(name)

    def qualified(self, node: ast.expr) -> str | None:
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        return None if isinstance(root, ast.Name) and root.id in self._names else self._outer.qualified(node)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._outer, attr)


def value(scope: Scope, node: ast.expr, known: Known, give: Give, evaluate: Evaluate, limit: int) -> Any:
    """``node``'s value (a GeneratorExp's as a list of its items)."""
    assert isinstance(node, KINDS)
    out: list[Any] = []
    turns = [0]

    def walk(inner: Scope, names: dict[str, Any], at: int) -> None:
        if at == len(node.generators):
            out.append((known(inner, node.key), known(inner, node.value)) if isinstance(node, ast.DictComp)
                       else known(inner, node.elt))
            return
        loop = node.generators[at]
        if loop.is_async:
            raise give(scope, node, f"{ast.unparse(node)[:80]}, an async comprehension trainjobs does not evaluate")
        items = python_loops.iterated(inner, loop.iter)
        if items is None:
            called = loop.iter.func if isinstance(loop.iter, ast.Call) else None
            if not (isinstance(called, ast.Name) and called.id in python_loops.BUILTINS):
                known(inner, loop.iter)  # raises where the value is not known (f(): a call to f())
            raise give(scope, loop.iter, f"{ast.unparse(loop.iter)[:80]}, whose items trainjobs does not go through "
                       f"(range() of more than {python_loops.MAX_ITEMS}; a set: its order is Python's hash order)")
        for item in items:
            turns[0] += 1
            if turns[0] > limit:
                raise give(scope, node, f"{ast.unparse(node)[:80]}, a value too large to compute here")
            bound = dict(names)
            _bind(scope, loop.target, item, bound, give)
            local = cast("Scope", _Bound(scope, bound, evaluate))
            if all(known(local, test) for test in loop.ifs):
                walk(local, bound, at + 1)

    walk(scope, {}, 0)
    if isinstance(node, ast.DictComp):
        return dict(out)
    return set(out) if isinstance(node, ast.SetComp) else out


def _bind(scope: Scope, target: ast.expr, item: Any, bound: dict[str, Any], give: Give) -> None:
    if isinstance(target, ast.Name):
        bound[target.id] = item
    elif isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
        items = list(item)
        if len(items) != len(target.elts):
            raise ValueError(f"cannot unpack {len(items)} values into {len(target.elts)}")
        for sub, each in zip(target.elts, items):
            _bind(scope, sub, each, bound, give)
    else:
        raise give(scope, target, f"{ast.unparse(target)}, a loop target trainjobs does not bind")
