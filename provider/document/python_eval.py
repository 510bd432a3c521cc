"""The value of one Python expression, read (never run) against a Scope of provider.document.python_values.

What is evaluated: constants; list/tuple/set/dict displays (``*`` and ``**`` in them); f-strings (``!s !r !a``,
format specs); arithmetic, comparisons, ``and``/``or``/``not``, ``x if c else y``; subscripts and slices; ``str()
int() float() bool() len()`` and a few more pure builtins; the pure methods of str (``format``, ``join``...),
``dict.get``, ``.items()`` ``.keys()`` ``.values()`` (as lists); ``os.path.join`` and its kin; ``os.environ.get``,
``os.getenv``, ``os.environ[...]``, ``"NAME" in os.environ``, read from this process's environment; an API enum
member (``aip.gapic.AcceleratorType.NVIDIA_TESLA_T4``, ``.name``, ``.value``: provider.document.python_enum); an
argparse parser and ``parse_args()`` as the script gets it with no arguments (provider.document.python_mutate);
comprehensions (python_comprehension); the clock, as the time of the conversion (python_clock); gcloud's
configuration a command prints (``!gcloud config get-value project``, ``subprocess.check_output([...])``:
python_shell). Each is computed by Python itself on the known values, so it agrees with Python; a very large
result (``"x" * 10**9``) is not computed. Anything else is an Unknown that says why: a call (``uuid``/``random``:
a random value), a lambda, an attribute.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import PurePosixPath
from string import Formatter
from typing import TYPE_CHECKING, Any

from provider.document import (
    python_builtins,
    python_clock,
    python_comprehension,
    python_loops,
    python_modules,
    python_mutate,
)
from provider.document.python_enum import EnumMember
from provider.document.python_shell import PLACEHOLDERS, SUBPROCESS, output, subprocess_output
from provider.document.python_unknown import Unknown

if TYPE_CHECKING:
    from provider.document.python_values import Scope

LIMIT = 100_000  # the longest str/list a result may be, and the widest a format may pad (a notebook of many
# statements cannot make this process hold much more than its statements times this)
_BITS = 100_000  # the largest int, in bits
_WIDE = re.compile(r"\d{6,}")  # a width of 100000 or more

class _Give(Exception):
    """An operand is Unknown: so is the whole expression."""

    def __init__(self, unknown: Unknown) -> None:
        self.unknown = unknown


def evaluate(scope: Scope, node: ast.expr) -> object:
    """``node``'s value, or an Unknown."""
    try:
        return _checked(_eval(scope, node), scope, node)
    except _Give as give:
        return give.unknown
    except (ArithmeticError, LookupError, TypeError, ValueError) as error:
        said = str(error)[:200]
        return Unknown(f"{_shown(node)} raises {type(error).__name__}" + (f": {said}" if said else ""),
                       scope.where_of(node))


def unpacked(scope: Scope, node: ast.expr, targets: list[ast.expr]) -> object:
    """The value assigned to ``targets``: where each unpacks a display (``a, b = x, f()``), its items each evaluated on
    its own, as Python binds them one by one (a stays known where b is not); else the value."""
    if isinstance(node, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in node.elts) \
            and all(isinstance(t, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in t.elts)
                    for t in targets):  # a, *b = ...: b would be a list holding an unknown item
        return [evaluate(scope, item) for item in node.elts]
    return evaluate(scope, node)


def binary(scope: Scope, node: ast.AST, op: ast.operator, a: object, b: object, inplace: bool = False) -> object:
    """``a op b`` (``a op= b`` when ``inplace``) as Python computes it, or an Unknown."""
    try:
        return _checked(_binary(scope, node, op, a, b, inplace), scope, node)
    except _Give as give:
        return give.unknown
    except (ArithmeticError, LookupError, TypeError, ValueError) as error:
        return Unknown(f"{_shown(node)} raises {type(error).__name__}: {str(error)[:200]}", scope.where_of(node))


def _shown(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 80 else text[:77] + "..."


def _unknown(scope: Scope, node: ast.AST, why: str) -> _Give:
    return _Give(Unknown(why, scope.where_of(node)))


def _checked(value: object, scope: Scope, node: ast.AST) -> object:
    if isinstance(value, (str, bytes, list, tuple, dict, set)) and len(value) > LIMIT:
        raise _unknown(scope, node, f"{_shown(node)}, a value too large to compute here")
    if isinstance(value, int) and value.bit_length() > _BITS:
        raise _unknown(scope, node, f"{_shown(node)}, a number too large to compute here")
    return value


def _given(value: object) -> Any:
    if isinstance(value, Unknown):
        raise _Give(value)
    return value


def _known(scope: Scope, node: ast.expr) -> Any:
    value = _checked(_eval(scope, node), scope, node)
    if isinstance(value, Unknown):
        raise _Give(value)
    return value


def _items(scope: Scope, nodes: list[ast.expr]) -> list[Any]:
    out: list[Any] = []
    for node in nodes:
        if isinstance(node, ast.Starred):
            out.extend(_known(scope, node.value))
        else:
            out.append(_known(scope, node))
    return out


def _eval(scope: Scope, node: ast.expr) -> Any:
    kind = _KINDS.get(type(node))
    if kind is not None:
        return kind(scope, node)
    raise _unknown(scope, node, f"{_shown(node)}, an expression trainjobs does not evaluate")


def _name(scope: Scope, node: ast.Name) -> Any:
    value = scope.get(node.id)
    if isinstance(value, Unknown):
        raise _Give(value)
    return value


def _dict(scope: Scope, node: ast.Dict) -> dict[Any, Any]:
    out: dict[Any, Any] = {}
    for key, value in zip(node.keys, node.values):
        if key is None:
            out.update(_known(scope, value))
        else:
            out[_known(scope, key)] = _known(scope, value)
    return out


def _bool(scope: Scope, node: ast.BoolOp) -> Any:
    value = _known(scope, node.values[0])
    for operand in node.values[1:]:
        if bool(value) == isinstance(node.op, ast.Or):
            return value
        value = _known(scope, operand)
    return value


def _attribute(scope: Scope, node: ast.Attribute) -> Any:
    dotted = scope.qualified(node)
    if dotted is not None and (local := python_modules.value(dotted, scope)) is not python_modules.NOT_LOCAL:
        if isinstance(local, Unknown):  # config.REGION of the code's own config.py: what its top level leaves
            raise _unknown(scope, node, local.why)
        return local
    if dotted in python_clock.CONSTANTS:
        return python_clock.CONSTANTS[dotted]
    if dotted is not None:
        found = scope.enum(dotted)
        if isinstance(found, str):
            raise _unknown(scope, node, found)
        if found is not None:
            return found
        base = scope.enum(dotted.rsplit(".", 1)[0])  # aip.gapic.AcceleratorType.NVIDIA_TESLA_T4.name
    else:
        base = _known(scope, node.value)
    if isinstance(base, EnumMember) and node.attr in ("name", "value"):
        return base.attribute(node.attr)
    if isinstance(base, python_mutate.Namespace):  # args.region, after args = parser.parse_args()
        if node.attr not in base.values:
            raise _unknown(scope, node, f"{_shown(node)}: the parser has no argument {node.attr} (AttributeError)")
        return base.values[node.attr]
    if isinstance(base, python_clock.TYPES) and (got := python_clock.attribute(base, node.attr)) is not python_clock.NOT_CLOCK:
        return got
    if isinstance(base, PurePosixPath) and node.attr in python_builtins.PATH_ATTRIBUTES:  # Path("a/t.py").stem
        return getattr(base, node.attr)
    raise _unknown(scope, node, f"{dotted or _shown(node)}, an attribute trainjobs does not read")


_KINDS: dict[type[ast.expr], Callable[[Scope, Any], Any]] = {
    ast.Constant: lambda scope, node: node.value,
    ast.Name: _name,
    ast.JoinedStr: lambda scope, node: "".join(_piece(scope, part) for part in node.values),
    ast.List: lambda scope, node: _items(scope, node.elts),
    ast.Tuple: lambda scope, node: tuple(_items(scope, node.elts)),
    ast.Set: lambda scope, node: set(_items(scope, node.elts)),
    ast.Dict: _dict,
    ast.BinOp: lambda scope, node: _binary(scope, node, node.op, _known(scope, node.left),
                                           _known(scope, node.right), False),
    ast.UnaryOp: lambda scope, node: python_builtins.UNARY[type(node.op)](_known(scope, node.operand)),
    ast.BoolOp: _bool,
    ast.Compare: lambda scope, node: _compare(scope, node),
    ast.IfExp: lambda scope, node: _known(scope, node.body if _known(scope, node.test) else node.orelse),
    ast.Subscript: lambda scope, node: _subscript(scope, node),
    ast.Call: lambda scope, node: _call(scope, node),
    ast.Attribute: _attribute,
    **{kind: lambda scope, node: python_comprehension.value(scope, node, _known, _unknown, evaluate, LIMIT)
       for kind in python_comprehension.KINDS},
}


def _piece(scope: Scope, part: ast.expr) -> str:
    if not isinstance(part, ast.FormattedValue):
        return str(_known(scope, part))
    value = _known(scope, part.value)
    if part.conversion != -1:
        convert: dict[int, Callable[[object], str]] = {ord("s"): str, ord("r"): repr, ord("a"): ascii}
        value = convert[part.conversion](value)
    spec = "" if part.format_spec is None else str(_known(scope, part.format_spec))
    if _WIDE.search(spec):
        raise _unknown(scope, part, f"{_shown(part)}, a value too large to compute here")
    return python_clock.formatted(scope, part, value, format(value, spec))


def _binary(scope: Scope, node: ast.AST, op: ast.operator, a: Any, b: Any, inplace: bool) -> Any:
    if _too_large(op, a, b):
        raise _unknown(scope, node, f"{_shown(node)}, a value too large to compute here")
    return python_builtins.BINARY[type(op)][1 if inplace else 0](a, b)


def _too_large(op: ast.operator, a: Any, b: Any) -> bool:
    """Whether ``a op b`` is a result not worth computing (checked before Python computes it)."""
    sized = (str, bytes, list, tuple)
    if isinstance(op, ast.Mult):
        seq, times = (a, b) if isinstance(a, sized) else (b, a)
        return isinstance(seq, sized) and isinstance(times, int) and len(seq) * times > LIMIT
    if isinstance(op, ast.Pow):
        return isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1 and abs(a).bit_length() * b > _BITS
    if isinstance(op, ast.LShift):
        return isinstance(b, int) and b > _BITS
    if isinstance(op, ast.Mod) and isinstance(a, (str, bytes)):
        return bool(_WIDE.search(str(a))) or "*" in str(a)
    return False


def _compare(scope: Scope, node: ast.Compare) -> bool:
    left = _known(scope, node.left)
    for op, right_node in zip(node.ops, node.comparators):
        if isinstance(op, (ast.In, ast.NotIn)) and _environ(scope, right_node):  # "KEY" in os.environ
            if not isinstance(left, str) or right_node is not node.comparators[-1]:
                raise _unknown(scope, node, f"{_shown(node)}: a test of os.environ trainjobs does not read")
            value = scope.environ(left, node)
            if isinstance(value, Unknown):
                raise _Give(value)
            return (value is None) != isinstance(op, ast.In)
        right = _known(scope, right_node)
        if isinstance(op, (ast.Is, ast.IsNot)) and not any(v is None or isinstance(v, bool) for v in (left, right)):
            raise _unknown(scope, node, f"{_shown(node)}: 'is' between values that are not None, True or False")
        if not python_builtins.COMPARE[type(op)](left, right):
            return False
        left = right
    return True


def _environ(scope: Scope, node: ast.expr) -> bool:
    """Whether ``node`` is ``os.environ`` or ``os.environ.keys()``."""
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        return scope.qualified(node.func) == "os.environ.keys"
    return scope.qualified(node) == "os.environ"


def _subscript(scope: Scope, node: ast.Subscript) -> Any:
    if scope.qualified(node.value) == "os.environ":
        name = _known(scope, node.slice)
        value = scope.environ(str(name), node)
        if value is None:
            raise _unknown(scope, node, f"the environment variable {name}, which is not set")
        return value
    container = _known(scope, node.value)
    index = node.slice
    if isinstance(index, ast.Slice):
        bounds = [None if n is None else _known(scope, n) for n in (index.lower, index.upper, index.step)]
        return container[slice(*bounds)]
    return container[_known(scope, index)]


def _arguments(scope: Scope, node: ast.Call) -> tuple[list[Any], dict[str, Any]]:
    args = _items(scope, node.args)
    kwargs: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            kwargs.update(_known(scope, keyword.value))
        else:
            kwargs[keyword.arg] = _known(scope, keyword.value)
    return args, kwargs


def _call(scope: Scope, node: ast.Call) -> Any:
    func = node.func
    if isinstance(func, ast.Name) and func.id in PLACEHOLDERS:  # x = !cmd: its output (python_shell)
        return _given(output(scope, node))
    dotted = scope.qualified(func)
    if dotted is not None:
        return _call_dotted(scope, node, dotted)
    if isinstance(func, ast.Name):
        return _call_name(scope, node, func.id)
    if isinstance(func, ast.Attribute):
        return _call_method(scope, node, func)
    raise _unknown(scope, node, f"{_shown(node)}, a call trainjobs does not evaluate")


def _call_dotted(scope: Scope, node: ast.Call, dotted: str) -> Any:
    if dotted in python_builtins.PATHS:
        args, kwargs = _arguments(scope, node)
        return python_builtins.PATHS[dotted](*args, **kwargs)
    if dotted == "argparse.ArgumentParser":
        return python_mutate.new_parser(scope, node)
    if dotted in ("os.environ.get", "os.getenv"):
        args, kwargs = _arguments(scope, node)
        name, default = (list(args) + [kwargs.get("default")])[:2] if args else (kwargs.get("key"), None)
        value = scope.environ(str(name), node)
        return default if value is None else value
    if dotted.startswith(python_clock.MODULES) and (got := python_clock.call(
            scope, node, dotted, *_arguments(scope, node))) is not python_clock.NOT_CLOCK:  # the conversion's time
        return got
    if dotted in SUBPROCESS:  # subprocess.check_output(["gcloud", "config", "get-value", "project"])
        return _given(subprocess_output(scope, node, dotted))
    why = next((why for starts, why in python_builtins.SOURCES if (dotted + ".").startswith(starts)), None)
    raise _unknown(scope, node, why or f"a call to {dotted}()")


def _call_name(scope: Scope, node: ast.Call, name: str) -> Any:
    bound = scope.get(name)
    if isinstance(bound, Unknown) and bound.why.startswith(f"{name} is not assigned"):
        if name == "input":
            raise _unknown(scope, node, "what the user types")
        if name in python_builtins.BUILTINS:
            args, kwargs = _arguments(scope, node)
            return python_builtins.BUILTINS[name](*args, **kwargs)
    raise _unknown(scope, node, f"a call to {name}()" + (f" ({bound.why})" if isinstance(bound, Unknown) else ""))


def _call_method(scope: Scope, node: ast.Call, func: ast.Attribute) -> Any:
    receiver = _known(scope, func.value)
    if isinstance(receiver, str) and func.attr in python_builtins.STR_METHODS:
        args, kwargs = _arguments(scope, node)
        _bounded_str_call(scope, node, receiver, func.attr, args)
        return getattr(receiver, func.attr)(*args, **kwargs)
    if isinstance(receiver, python_clock.TYPES) and (got := python_clock.method(
            scope, node, receiver, func.attr, *_arguments(scope, node))) is not python_clock.NOT_CLOCK:
        return got
    if (isinstance(receiver, bytes) and func.attr in python_builtins.BYTES_METHODS) or (
            isinstance(receiver, PurePosixPath) and func.attr in python_builtins.PATH_METHODS):
        args, kwargs = _arguments(scope, node)
        return getattr(receiver, func.attr)(*args, **kwargs)
    if isinstance(receiver, python_mutate.ArgParser):
        return python_mutate.parser_call(scope, node, receiver, func.attr)
    if isinstance(receiver, dict) and func.attr == "get":
        args, kwargs = _arguments(scope, node)
        return receiver.get(*args, **kwargs)
    if isinstance(receiver, dict) and func.attr in python_loops.VIEWS and not node.args and not node.keywords:
        return python_loops.VIEWS[func.attr](receiver)  # a view as a list: what the code goes through or sends
    raise _unknown(scope, node, f"a call to .{func.attr}() of {type(receiver).__name__}")


def _bounded_str_call(scope: Scope, node: ast.AST, text: str, method: str, args: list[Any]) -> None:
    """_Give where the call would build a very large string, or read attributes of its arguments."""
    large = False
    if method == "format":
        for _, field, spec, _ in Formatter().parse(text):
            if (field and ("." in field or "[" in field)) or (spec and ("{" in spec or _WIDE.search(spec))):
                raise _unknown(scope, node, f"{_shown(node)}, a format trainjobs does not evaluate")
    elif method in ("zfill", "ljust", "rjust", "center"):
        large = bool(args) and isinstance(args[0], int) and args[0] > LIMIT
    elif method == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        large = len(text) + (len(text) + 1) * len(args[1]) > LIMIT
    elif method == "join" and args and isinstance(args[0], (list, tuple)):
        large = len(text) * len(args[0]) > LIMIT
    if large:
        raise _unknown(scope, node, f"{_shown(node)}, a value too large to compute here")
