"""A call of a function of the code's own, bound as Python binds it: its parameters' expressions (``parameters``), as
assignments at the call (``assignments``); and the calls an expression makes, in the order Python makes them
(``run_calls``). provider.document.python_flow reads the function's body there.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator


def run_calls(node: ast.AST) -> Iterator[ast.Call]:
    """The calls ``node`` makes each time it is evaluated, in the order Python makes them (an argument's first); none
    inside a lambda or comprehension (run later, or per item) or a part run only on a condition (``a if t else b``,
    ``a or b``: past the first operand)."""
    if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return
    if isinstance(node, ast.IfExp):
        yield from run_calls(node.test)
        return
    if isinstance(node, ast.BoolOp):
        yield from run_calls(node.values[0])
        return
    for child in ast.iter_child_nodes(node):
        yield from run_calls(child)
    if isinstance(node, ast.Call):
        yield node


def parameters(args: ast.arguments, call: ast.Call) -> list[tuple[str, ast.expr]] | None:
    """Each parameter of a function with the expression it gets from ``call`` (or its default); None where the
    call cannot be bound statically or Python would raise TypeError."""
    if args.vararg or args.kwarg or any(isinstance(a, ast.Starred) for a in call.args) \
            or any(k.arg is None for k in call.keywords):
        return None
    positional = [*args.posonlyargs, *args.args]
    if len(call.args) > len(positional):
        return None
    given: dict[str, ast.expr] = {p.arg: a for p, a in zip(positional, call.args)}
    named = {p.arg for p in [*args.args, *args.kwonlyargs]}
    for keyword in call.keywords:
        if keyword.arg in given or keyword.arg not in named:
            return None
        given[str(keyword.arg)] = keyword.value
    defaults: dict[str, ast.expr] = {p.arg: d for p, d in zip(positional[len(positional) - len(args.defaults):],
                                                               args.defaults)}
    defaults.update({p.arg: d for p, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    bound: list[tuple[str, ast.expr]] = []
    for param in [*positional, *args.kwonlyargs]:
        value = given.get(param.arg, defaults.get(param.arg))
        if value is None:
            return None
        bound.append((param.arg, value))
    return bound


def assignments(bound: list[tuple[str, ast.expr]], call: ast.Call) -> list[ast.stmt]:
    """The parameters' binding as assignments at the call: one per parameter, or one of them all together where
    an argument reads a parameter's name (``f(b, a)`` for ``def f(a, b)``)."""
    names = {name for name, _ in bound}
    pairs: list[tuple[ast.expr, ast.expr]]
    together = any(isinstance(n, ast.Name) and n.id in names for _, value in bound for n in ast.walk(value))
    if together and len(bound) > 1:
        targets: list[ast.expr] = [ast.Name(name, ast.Store()) for name, _ in bound]
        pairs = [(ast.Tuple(targets, ast.Store()), ast.Tuple([value for _, value in bound], ast.Load()))]
    else:
        pairs = [(ast.Name(name, ast.Store()), value) for name, value in bound]
    made: list[ast.stmt] = []
    for target, value in pairs:
        made.append(ast.fix_missing_locations(ast.copy_location(ast.Assign([target], value), call)))
    return made
