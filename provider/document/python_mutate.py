"""What a method call or an item's assignment does to a known list, dict or set, for provider.document.python_values.

A statement that is a method call on a variable or on a part of one (``args.append("--x")``,
``pools[0]["container_spec"]["args"].extend([...])``, ``cfg["env"].update(A="1")``) is done on the known value,
as Python does it, when its arguments are known (``done``). Any other call that may change a known list, dict or
set (``x = args.pop()``, ``d.setdefault("a", []).append(1)``, a call whose arguments are not known) leaves the
variable it starts from Unknown (``changes``): it is never read as it was before the call. ``x[k] = v`` and
``del x[k]`` are done on a known list or dict (``store``). ``holders`` says which other variables share what
changed: each of them changed too.

An ``argparse.ArgumentParser()`` is a known object too: its ``add_argument`` / ``set_defaults`` statements are
recorded, and ``parse_args()`` (``parse_known_args``, an explicit list of arguments) is argparse's own parse of
them, as ``python FILE`` runs it with no arguments: each option's default, converted as argparse converts it. A
required option missing, a ``type=`` other than int/float/str/bool, subcommands: Unknown, saying why.
"""

from __future__ import annotations

import argparse
import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING, NoReturn

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
    if isinstance(value, ArgParser):
        if method in ("add_argument", "set_defaults"):
            value.record(scope, call)
        elif method not in ("parse_args", "parse_known_args", "print_help", "print_usage", "format_help"):
            parser_call(scope, call, value, method)  # add_subparsers: the parser is no longer known
        return True
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


def calls_in(stmt: ast.AST) -> Iterator[ast.Call]:
    """Each call ``stmt`` makes when it runs: not those in a function, class or lambda it defines."""
    todo: list[ast.AST] = [stmt]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Call):
            yield node


def changes(scope: Scope, stmt: ast.AST, skip: ast.AST | None = None) -> list[tuple[str, str]]:
    """(variable, the call) for each method call in ``stmt`` (not in a function or lambda it defines; ``skip``: a
    call already done) that may change a known list, dict or set the variable holds."""
    found: list[tuple[str, str]] = []
    for node in calls_in(stmt):
        if node is skip or not isinstance(node.func, ast.Attribute):
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


# argparse: a parser the code builds, and what parse_args() gives when the script runs with no arguments -----------

_ARG_KEYS = frozenset({"action", "nargs", "const", "default", "type", "choices", "required", "dest"})  # help: unread
_TYPES = {"int": int, "float": float, "str": str, "bool": bool}


class _Later:
    """A default known only when the code runs, standing in for it inside argparse: its value is ``unknown``."""

    def __init__(self, unknown: Unknown) -> None:
        self.unknown = unknown


class ArgParser:
    """An ``argparse.ArgumentParser()`` as the code builds it: each ``add_argument``/``set_defaults`` in order, its
    arguments known (a default may be Unknown); ``unknown``: why the parser itself cannot be known."""

    def __init__(self) -> None:
        self.steps: list[tuple[str, list[object], dict[str, object]]] = []
        self.unknown: Unknown | None = None

    def record(self, scope: Scope, call: ast.Call) -> None:
        """``parser.add_argument(...)``, ``parser.set_defaults(...)`` (the call, a statement), recorded."""
        where, method = scope.where_of(call), call.func.attr  # type: ignore[attr-defined]
        if self.unknown is not None:
            return
        args = [scope.evaluate(a) for a in call.args if not isinstance(a, ast.Starred)]
        kwargs = {str(k.arg): _keyword(scope, method, k) for k in call.keywords
                  if k.arg is not None and (method == "set_defaults" or k.arg in _ARG_KEYS)}  # not help=, metavar=
        bad = next((v for v in [*args, *kwargs.values()] if isinstance(v, Unknown)), None)
        if bad is not None or len(args) != len(call.args) or any(k.arg is None for k in call.keywords):
            why = bad.why if bad is not None else "arguments spread with * or **"
            self.unknown = Unknown(f"the parser's {method}() at {where} is not known: {why}", where)
        else:
            self.steps.append((method, args, kwargs))

    def parse(self, scope: Scope, node: ast.Call, argv: object, known: bool) -> object:
        """``parse_args(argv)`` (``parse_known_args`` when ``known``) as argparse gives it: a Namespace of dest ->
        value (Unknown where the default is), or an Unknown (argparse exits: a required argument not given ...)."""
        where = scope.where_of(node)
        if self.unknown is not None:
            return self.unknown
        if argv is None and where.label.startswith("cell "):
            return Unknown(f"parse_args() at {where} reads the notebook kernel's own command line (-f ...), and "
                           "argparse exits on it", where)
        if isinstance(argv, Unknown):
            return argv
        real = _Parser(add_help=False, exit_on_error=False)
        try:
            for method, args, kwargs in self.steps:
                if kwargs.get("action") == "BooleanOptionalAction":
                    kwargs = {**kwargs, "action": argparse.BooleanOptionalAction}
                if isinstance(kwargs.get("type"), _Later):  # applied to a str default only: that value is unknown
                    kwargs = {**kwargs, "type": _Unapplied(kwargs["type"])}  # type: ignore[arg-type]
                getattr(real, method)(*args, **kwargs)
            parsed = real.parse_known_args([] if argv is None else list(argv))  # type: ignore[call-overload]
        except (argparse.ArgumentError, TypeError, ValueError) as error:
            return Unknown(f"parse_args(), where argparse exits when the script runs with no arguments ({error})",
                           where)
        if parsed[1] and not known:
            return Unknown(f"parse_args(), where argparse exits (unrecognized arguments: {' '.join(parsed[1])})",
                           where)
        values = {k: v.unknown if isinstance(v, _Later) else v for k, v in vars(parsed[0]).items()}
        return (Namespace(values), parsed[1]) if known else Namespace(values)


class _Parser(argparse.ArgumentParser):
    """argparse's own parser, which raises where it would print its usage and exit."""

    def error(self, message: str) -> NoReturn:
        raise argparse.ArgumentError(None, message)


class _Unapplied:
    """A ``type=`` trainjobs does not run: what it gives for a str default is unknown."""

    def __init__(self, later: _Later) -> None:
        self.later = later

    def __call__(self, text: str) -> _Later:
        return self.later


class Namespace:
    """What ``parse_args()`` gives: dest -> value, or an Unknown (the default was one)."""

    def __init__(self, values: dict[str, object]) -> None:
        self.values = values


def _keyword(scope: Scope, method: str, keyword: ast.keyword) -> object:
    """One keyword's value for argparse: a default (or type=) known only when the code runs as a _Later."""
    if keyword.arg == "action" and scope.qualified(keyword.value) == "argparse.BooleanOptionalAction":
        return "BooleanOptionalAction"
    value = _type(scope, keyword.value) if keyword.arg == "type" else scope.evaluate(keyword.value)
    later = keyword.arg in ("default", "type") or method == "set_defaults"
    return _Later(value) if isinstance(value, Unknown) and later else value


def _type(scope: Scope, node: ast.expr) -> object:
    """``type=int`` (``float``, ``str``, ``bool``: Python's own) as the function; any other as an Unknown."""
    if isinstance(node, ast.Name) and node.id in _TYPES and str(getattr(scope.get(node.id), "why", "")).startswith(
            f"{node.id} is not assigned"):
        return _TYPES[node.id]
    return Unknown(f"type={ast.unparse(node)}, a conversion trainjobs does not run", scope.where_of(node))


def parser_call(scope: Scope, node: ast.Call, receiver: ArgParser, method: str) -> object:
    """A parser's method's value: parse_args / parse_known_args; a group of it (the same parser, as its arguments
    are the parser's own); else Unknown."""
    if method in ("add_argument_group", "add_mutually_exclusive_group"):
        return receiver
    if method in ("parse_args", "parse_known_args"):
        given = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "args"), None)
        argv = None if given is None else scope.evaluate(given)
        return receiver.parse(scope, node, argv, method == "parse_known_args")
    if method == "add_subparsers":  # subcommands: which one runs, and its arguments, are the command line's
        receiver.unknown = Unknown(f"the parser has subcommands (add_subparsers at {scope.where_of(node)})",
                                   scope.where_of(node))
    return Unknown(f"a call to .{method}() of an argparse parser", scope.where_of(node))


def new_parser(scope: Scope, node: ast.Call) -> object:
    """``argparse.ArgumentParser(...)``: an empty ArgParser; one built from parents or with its own defaults or
    prefixes is not read."""
    odd = [k.arg for k in node.keywords if k.arg in (None, "parents", "argument_default", "prefix_chars",
                                                         "fromfile_prefix_chars")]
    if odd:
        return Unknown(f"argparse.ArgumentParser({odd[0] or '**'}=...), a parser trainjobs does not read",
                       scope.where_of(node))
    return ArgParser()
