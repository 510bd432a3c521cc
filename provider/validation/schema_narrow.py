"""The spec schema narrowed to one body: what a document is checked against (issue 13).

Compiling the whole spec schema costs more than checking thousands of documents, and most of
it is the bodies of the formats a document is not written in. A spec whose ``spec`` is a
mapping takes exactly one branch of the schema's choice of body (``registry.body_of``, the
same choice the schema's ``if``/``else`` chain makes), so it is checked by a validator compiled
from the committed schema with the other bodies' ``$defs`` entries as ``true`` (never applied
to it) and without the ``$defs`` that nothing then refers to: the same keywords at the same
schema paths, so the same errors and messages (``tests/test_cold_start.py`` compares them over
every spec of the repository and the tests). Any other document is checked by the whole schema.
"""

from __future__ import annotations

from typing import Any

_DEFS_REF = "#/$defs/"


def narrowed(root: dict[str, Any], keep: str, bodies: frozenset[str]) -> dict[str, Any] | None:
    """``root`` for documents whose ``spec`` takes the body ``keep`` (a ``$defs`` entry of ``bodies``).

    Every other body's entry becomes ``true`` (its branch is never applied to such a document),
    and entries that nothing reaches from the root then are left out. None where a ``$ref`` is
    not of the form ``#/$defs/NAME`` naming an entry: then nothing is narrowed.
    """
    defs: dict[str, Any] = root.get("$defs", {})
    kept = {name: True if name in bodies and name != keep else schema for name, schema in defs.items()}
    reached: set[str] = set()
    todo = _refs({k: v for k, v in root.items() if k != "$defs"})
    while todo:
        ref = todo.pop()
        name = ref[len(_DEFS_REF):].split("/")[0] if ref.startswith(_DEFS_REF) else None
        if name is None or name not in kept:
            return None
        if name not in reached:
            reached.add(name)
            todo |= _refs(kept[name])
    return {**root, "$defs": {name: schema for name, schema in kept.items() if name in reached}}


def _refs(node: Any) -> set[str]:
    """Every ``$ref`` string in a schema node."""
    found: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key == "$ref" and isinstance(value, str):
                    found.add(value)
                elif isinstance(value, (dict, list)):
                    stack.append(value)
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, (dict, list)))
    return found


def body_definition(data: Any) -> str | None:
    """The ``$defs`` entry of the body the spec schema applies to ``data`` (None: not one alone)."""
    from provider.spec.formats.registry import body_of

    body = body_of(data)
    return body.definition if body is not None else None


def definitions() -> frozenset[str]:
    """The ``$defs`` entries of every format's bodies: the branches of the schema's ``spec``."""
    from provider.spec.formats.registry import BODIES

    return frozenset(b.definition for b in BODIES)
