"""What a call of a function the reader does not read may do to a list, dict or set it is passed: change it.

``tweak(pools)``, where ``tweak`` is a function of the code's own (a ``def`` the flow does not follow, one imported
from the code's own module, or a name bound where it cannot be known), may change ``pools`` in place, as
``pools[0]["machine_spec"]["machine_type"] = ...`` in its body does; so, after the call, ``pools`` (and every
variable sharing a part of it) is not known, never read as it was before. Python's builtins and functions of
installed libraries (``print(pools)``, ``json.dumps(cfg)``, ``copy.deepcopy(pools)``, the Vertex AI SDK) do not
change what they are given, and are not counted; a method of a value (``job.run(args=ARGS)``) is
python_mutate's (a known list's or dict's own methods), not this.
"""

from __future__ import annotations

import ast
import builtins
from typing import TYPE_CHECKING

from provider.document.python_mutate import calls_in, parts_of, root

if TYPE_CHECKING:
    from provider.document.python_values import Scope

# The builtins that may change what they are given, or run code that may.
_CHANGING = frozenset({"setattr", "delattr", "exec", "eval", "vars", "globals", "locals", "__import__"})
_BUILTINS = frozenset(dir(builtins)) - _CHANGING | {"display", "get_ipython"}  # IPython's, in a notebook


def passed(scope: Scope, stmt: ast.AST, read: ast.AST | None = None) -> list[tuple[str, str]]:
    """(variable, the function) for each call in ``stmt`` (not in a function or lambda it defines; not ``read``, the
    call whose body the flow read) of a function of the code's own that is passed a known list, dict or set a
    variable holds, or a part of one."""
    found: list[tuple[str, str]] = []
    for node in calls_in(stmt):
        if node is read or (callee := _own(scope, node.func)) is None:
            continue
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            name = root(arg)
            if name is not None and scope.qualified(name) is None and parts_of(scope._values, [name.id]):
                found.append((name.id, callee))
    return found


def _own(scope: Scope, func: ast.expr) -> str | None:
    """The function ``func`` names where it is the code's own (not a builtin, not an installed library's); else None."""
    qualified = scope.qualified(func)
    if qualified is not None:  # imported: a library's, unless the module is one the code's own files hold
        return qualified if qualified.split(".")[0] in scope._modules.read else None
    if isinstance(func, ast.Name):
        return None if _builtin(scope, func.id) else func.id
    return None  # a method of a value


def _builtin(scope: Scope, name: str) -> bool:
    """``name`` is Python's builtin there: not bound by the code."""
    return name in _BUILTINS and name not in scope._values
