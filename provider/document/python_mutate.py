"""What a method call or an item's assignment does to a known list, dict or set, for provider.document.python_values.

A statement that is a method call on a variable or on a part of one (``args.append("--x")``,
``pools[0]["container_spec"]["args"].extend([...])``, ``cfg["env"].update(A="1")``) is done on the known value,
as Python does it, when its arguments are known (``done``). Any other call that may change a known list, dict or
set (``x = args.pop()``, ``d.setdefault("a", []).append(1)``, a call whose arguments are not known) leaves the
variable it starts from Unknown (``changes``): it is never read as it was before the call. ``x[k] = v`` and
``del x[k]`` are done on a known list or dict (``store``). ``holders`` says which other variables share what
changed: each of them changed too.
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
MUTATOR_NAMES = frozenset().union(*_MUTATORS.values(), {"remove"})  # a call of one may change what it is called on
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


def store(scope: Scope, target: ast.Subscript, value: object, delete: bool = False) -> bool:
    """Whether ``x[k] = value`` (``x[i][k]``, ``del x[k]`` when ``delete``) was done on a known list or dict; False:
    the variable the subscript starts from may have changed."""
    container = scope.evaluate(target.value) if isinstance(target.value, (ast.Name, ast.Subscript)) else None
    key = scope.evaluate(target.slice) if not isinstance(target.slice, ast.Slice) else None
    if isinstance(container, (dict, list)) and not isinstance(value, Unknown) and key is not None \
            and not isinstance(key, Unknown):
        try:
            if delete:
                del container[key]  # type: ignore[arg-type,unused-ignore]
            else:
                container[key] = value  # type: ignore[index,call-overload,unused-ignore]
            return True
        except (LookupError, TypeError):
            pass
    return False


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
        if name is None or scope.qualified(name) is not None:
            continue
        if isinstance(scope.get(name.id), Unknown):  # it may hold a list or dict another variable holds
            if node.func.attr in MUTATOR_NAMES:
                found.append((name.id, ast.unparse(node.func)))
            continue
        if not isinstance(scope.get(name.id), _CONTAINERS):
            continue
        value = _receiver(scope, node.func.value)
        if isinstance(value, Unknown) or (isinstance(value, _CONTAINERS)
                                          and node.func.attr not in _PURE[type(value)]):
            found.append((name.id, ast.unparse(node.func)))
    return found


def _parts(value: object) -> set[int]:
    """The ids of the lists, dicts and sets ``value`` is or holds (a change to one of them is seen through it)."""
    found: set[int] = set()
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, _CONTAINERS) and id(item) not in found:
            found.add(id(item))
            todo.extend([*item.keys(), *item.values()] if isinstance(item, dict) else item)
        elif isinstance(item, tuple):
            todo.extend(item)
    return found


def parts_of(values: dict[str, object], names: list[str]) -> set[int]:
    """The ids of the lists, dicts and sets the variables ``names`` hold."""
    return set().union(*(_parts(values.get(name)) for name in names))


def holders(values: dict[str, object], names: list[str], extra: set[int]) -> list[str]:
    """The other variables whose values share a list, dict or set with those of ``names`` or with ``extra`` (``C =
    B["k"]``: a change to C's list is one to B's): when one of ``names`` may be changed in place, so may these."""
    shared = parts_of(values, names) | extra
    return [other for other, value in values.items() if shared and other not in names and _parts(value) & shared]


def reads(values: dict[str, object], may_share: dict[str, set[int]], stmt: ast.AST, held: list[str]) -> set[int]:
    """The lists and dicts (ids) the variables ``stmt`` names hold, or may hold (``may_share``: those Unknown), and
    those the variables ``held`` hold."""
    names = [n.id for n in ast.walk(stmt) if isinstance(n, ast.Name)]
    return parts_of(values, [*names, *held]).union(*(may_share.get(n, set()) for n in names))
