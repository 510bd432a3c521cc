"""Map a JSON path inside a loaded document back to a line and column of the file."""

from __future__ import annotations

import re
from typing import Any

from provider.core.names import snake
from provider.core.problem import Problem, format_path, parse_path
from provider.core.record import replace
from provider.document.loaded import LoadedDocument, Position


def _as_written(node: dict[str, Any], part: str) -> str:
    """The key ``node`` holds for ``part``: itself, or its proto name (snake_case) where a reader gave the
    field its JSON name (provider/spec/formats/*/proto_names.py: the REST API reads a field by either)."""
    if part in node:
        return part
    proto = snake(part)
    return proto if proto in node else part


def locate(doc: LoadedDocument, path: tuple[Any, ...], on_key: bool = False) -> Position | None:
    """The position of ``path``: its value (or its key, with ``on_key``).

    A path that does not exist in the document (a missing key, a value the converter
    inferred) falls back to the deepest container that does exist.
    """
    node: Any = doc.data
    pos: Position | None = doc.starts.get(id(node)) if node is not None else None
    if node is None:
        return None
    if not path:
        return pos or (1, 1)
    for i, part in enumerate(path):
        last = i == len(path) - 1
        if isinstance(node, dict) and isinstance(part, str):
            part = _as_written(node, part)
            if part not in node:
                return pos
            at = _key_position(doc, node, part, on_key and last)
            node = node[part]
            # a mapping placed in a made envelope (convert's bare config) has no key here, but a start
            pos = at or doc.starts.get(id(node)) or pos
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            items = doc.item_positions.get(id(node), [])
            pos = items[part] if part < len(items) else pos
            node = node[part]
        elif part == 0 and not isinstance(node, list):  # a single value where a list goes: gcloud reads it as one item
            continue
        else:
            return pos
    return pos


def _key_position(doc: LoadedDocument, node: dict[str, Any], key: str, on_key: bool) -> Position | None:
    """Where ``node`` writes ``key``: its value (or, ``on_key``, the key itself), else the key."""
    keys = doc.key_positions.get(id(node), {})
    return keys.get(key) if on_key else doc.value_positions.get(id(node), {}).get(key) or keys.get(key)


def _proto_named(node: dict[str, Any]) -> bool:
    """Whether a message's fields are written by their proto names: some key holds ``_``, none is camelCase."""
    keys = [k for k in node if isinstance(k, str)]
    return any("_" in k for k in keys) and all(k == snake(k) for k in keys)


def as_written(written: Any, path: tuple[Any, ...], message: str,
               allowed: str | None) -> tuple[tuple[Any, ...], str, str | None]:
    """``path``, ``message`` and ``allowed`` naming each field on the path as ``written`` (the document as the
    user wrote it) names it: a reader gives a field written by its proto name (``master_config``) its JSON name
    (``masterConfig``) before any check, and a message about it names what the user wrote."""
    node: Any = written
    shown: list[Any] = []
    for part in path:
        if isinstance(node, dict) and isinstance(part, str):
            key = _as_written(node, part)
            if key == part and part not in node and _proto_named(node):
                key = snake(part)  # a field not written, named as its message's other fields are
            if key != part:
                word = re.compile(rf"\b{re.escape(part)}\b")
                message = word.sub(key, message)
                allowed = word.sub(key, allowed) if allowed else allowed
            shown.append(key)
            node = node.get(key)
        else:
            shown.append(part)
            node = node[part] if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node) else None
    return tuple(shown), message, allowed


def problems_as_written(problems: list[Problem], written: Any) -> list[Problem]:
    """Each problem naming its fields as ``written`` names them (``as_written``): the validator's last step,
    so that every check before it compares paths in one spelling, the JSON names."""
    out = []
    for problem in problems:
        if not problem.path:
            out.append(problem)
            continue
        path, message, allowed = as_written(written, parse_path(problem.path), problem.message, problem.allowed)
        shown = format_path(path)
        same = (shown, message, allowed) == (problem.path, problem.message, problem.allowed)
        out.append(problem if same else replace(problem, path=shown, message=message, allowed=allowed))
    return out


def raw_text(doc: LoadedDocument, path: tuple[Any, ...]) -> str | None:
    """The text as written of a plain scalar that YAML read as a non-string (``2.10`` -> 2.1)."""
    if not path:
        return None
    node: Any = doc.data
    for part in path[:-1]:
        if (isinstance(node, dict) and part in node) or (isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)):
            node = node[part]
        else:
            return None
    return doc.raw_plain.get((id(node), path[-1]))
