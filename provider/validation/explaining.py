"""Which problem is said where two layers find one: a schema problem a later layer explains better is dropped.

The schema speaks first and knows only shapes; a converter's note or a model rule knows what a value means.
Where both find the same spot (or a rule made to say a key's absence finds the key the schema says is
missing), only the better word is kept (provider/validation/validator.py applies it).
"""

from __future__ import annotations

import re
from typing import Any

from provider.core.problem import Problem

# The key a schema "missing the required key" problem names (schema_check._required's wording).
_MISSING_KEY = re.compile(r" is missing the required key '([^']+)'$")


def under(path: str, prefix: str) -> bool:
    """``path`` is ``prefix`` or inside it (``spec.a`` is under ``spec``; ``spec.ab`` is not)."""
    return path == prefix or path.startswith(prefix + ".") or path.startswith(prefix + "[")


def holds(node: Any, part: Any) -> bool:
    """``node`` (a mapping or a list) has ``part``."""
    if isinstance(node, dict):
        return part in node
    return isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)


def explains(better: Problem, schema_problem: Problem, data: Any, conditional: set[str]) -> bool:
    """A later layer's error covers a schema problem at its own spot, or inside a single value.

    Inside a whole mapping (a pool, the application, ``trainingInput``) it covers only what the
    schema found with a cross-field rule (``conditional``), which checks what the model rule
    checks; a wrong value of another key in that mapping is a problem of its own and stays. A key
    the schema finds missing is explained by a rule made to say that key's absence (``*.required``,
    at the key: region.required's "set region", which says where a region comes from).
    """
    if schema_problem.path == better.path:
        return True
    missing = _MISSING_KEY.search(schema_problem.message)
    if missing and better.rule.endswith(".required") and \
            better.path == f"{schema_problem.path}.{missing.group(1)}".lstrip("."):
        return True
    if not under(schema_problem.path, better.path):
        return False
    return not isinstance(_value_at(data, better.path), dict) or schema_problem.path in conditional


def _value_at(data: Any, dotted: str) -> Any:
    node = data
    for part in dotted.replace("[", ".[").split("."):
        if not part:
            continue
        key: Any = int(part[1:-1]) if part.startswith("[") else part
        if not holds(node, key):
            return None
        node = node[key]
    return node
