"""Run the generated JSON Schema and turn its errors into readable problems.

jsonschema-rs checks a document in microseconds, so every spec is checked against the very
schema an editor uses. Its raw messages ("2 is not one of 4 or 8") are rewritten here into
what / what is allowed / did you mean, using the schema's own descriptions.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator
from functools import cache
from typing import Any

from provider.document.locate import locate, raw_text
from provider.document.yaml_loader import LoadedDocument
from provider.validation.problem import Problem, format_path

MAX_LISTED = 12
# Schema keywords whose failure means a converter cannot read the value at all.
_STRUCTURAL = frozenset({"Type", "AnyOf", "OneOfNotValid", "OneOfMultipleValid", "MinItems", "MaxItems"})


@cache
def _validator(kind: str) -> Any:
    import jsonschema_rs

    from provider import schema

    return jsonschema_rs.Draft202012Validator(schema.spec_schema() if kind == "spec" else schema.stack_schema())


class SchemaIssue:
    """One schema finding, before it is given a file position."""

    __slots__ = ("allowed", "conditional", "hint", "message", "on_key", "path", "structural")

    def __init__(self, path: tuple[Any, ...], message: str, allowed: str | None = None, hint: str | None = None,
                 on_key: bool = False, structural: bool = False) -> None:
        self.path = path
        self.message = message
        self.allowed = allowed
        self.hint = hint
        self.on_key = on_key  # the position is the key itself, not its value
        # The value has the wrong type or shape (not merely a wrong value): a converter cannot read it.
        self.structural = structural
        # Found by a cross-field rule of the schema (an if/then, a "not"): the model rules check the same.
        self.conditional = False


def _node(root: dict[str, Any], path: list[Any]) -> Any:
    node: Any = root
    for part in path:
        if (isinstance(node, dict) and part in node) or (isinstance(node, list) and isinstance(part, int) and part < len(node)):
            node = node[part]
        else:
            return None
    return node


def _description(root: dict[str, Any], schema_path: list[Any]) -> str | None:
    """The description of the nearest schema node around the failing keyword."""
    for end in range(len(schema_path), -1, -1):
        node = _node(root, schema_path[:end])
        if isinstance(node, dict) and isinstance(node.get("description"), str):
            desc: str = node["description"]
            return desc
    return None


def _describe_value(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "null"


def _type_names(types: Any) -> str:
    names = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
             "array": "a list", "object": "a mapping", "null": "null"}
    if isinstance(types, str):
        types = [types]
    return " or ".join(names.get(str(t), str(t)) for t in types)


def _options(options: list[Any]) -> str:
    shown = [json.dumps(o) if not isinstance(o, str) else o for o in options]
    if len(shown) <= MAX_LISTED:
        return "one of: " + ", ".join(shown)
    return f"one of {len(shown)} values, such as " + ", ".join(shown[:6]) + " ..."


def suggest(value: Any, options: list[Any]) -> str | None:
    if not isinstance(value, str):
        return None
    words = [o for o in options if isinstance(o, str)]
    close = difflib.get_close_matches(value, words, n=3, cutoff=0.6)
    if not close:
        lowered = {w.lower(): w for w in words}
        if value.lower() in lowered:
            close = [lowered[value.lower()]]
    if not close:
        return None
    return "did you mean " + " or ".join(repr(c) for c in close) + "?"


def _noun(path: tuple[Any, ...]) -> str:
    """What a value is called: its key, or for a list item the list's key (``packageUris`` item)."""
    if not path:
        return "value"
    if isinstance(path[-1], int):
        return f"{path[-2]} item" if len(path) > 1 else "item"
    return str(path[-1])


def _bound(value: Any, branch_errors: list[Any]) -> str | None:
    """A number outside the bound of the one numeric form of an int64 field (``workerCount: -1``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    for e in branch_errors:
        kind = type(e.kind).__name__
        if kind in ("Minimum", "ExclusiveMinimum"):
            return f"at least {e.kind.limit}" if kind == "Minimum" else f"more than {e.kind.limit}"
        if kind in ("Maximum", "ExclusiveMaximum"):
            return f"at most {e.kind.limit}" if kind == "Maximum" else f"less than {e.kind.limit}"
    return None


def problems(data: Any, filename: str, doc: LoadedDocument | None, kind: str) -> list[Problem]:
    """Schema findings as problems with file positions (when the document came from a file)."""
    out = []
    for issue in check(data, kind):
        pos = locate(doc, issue.path, on_key=issue.on_key) if doc else None
        hint = issue.hint
        if doc is not None and hint is None:
            raw = raw_text(doc, issue.path)
            if raw is not None and "string" in (issue.allowed or "") + issue.message:
                hint = f"quote it: '{raw}' (written without quotes, YAML reads {raw} as a number or boolean)"
        out.append(Problem(
            file=filename,
            line=pos[0] if pos else None,
            column=pos[1] if pos else None,
            path=format_path(issue.path),
            message=issue.message,
            allowed=issue.allowed,
            hint=hint,
            rule="schema",
            source=f"schemas/{'trainingjob' if kind == 'spec' else 'stack'}.schema.json",
        ))
    return out


def check(data: Any, kind: str = "spec") -> Iterator[SchemaIssue]:
    from provider import schema

    root = schema.spec_schema() if kind == "spec" else schema.stack_schema()
    for error in _validator(kind).iter_errors(data):
        structural = type(error.kind).__name__ in _STRUCTURAL
        conditional = type(error.kind).__name__ in ("FalseSchema", "Not") or any(
            part in ("then", "else") for part in error.schema_path)
        for issue in _issues(error, root):
            issue.structural = structural
            issue.conditional = conditional
            yield issue


def _issues(error: Any, root: dict[str, Any]) -> Iterator[SchemaIssue]:
    kind = type(error.kind).__name__
    path = tuple(error.instance_path)
    schema_path = list(error.schema_path)
    value = error.instance
    where = format_path(path) or "the document"
    if kind == "AdditionalProperties":
        props = _node(root, schema_path[:-1] + ["properties"]) or {}
        keys = sorted(props)
        for key in error.kind.unexpected:
            yield SchemaIssue(
                path + (key,),
                f"unknown key {key!r} in {where}",
                ", ".join(keys) if keys else "no other keys",
                suggest(key, keys),
                on_key=True,
            )
        return
    if kind == "Required":
        prop = error.kind.property
        yield SchemaIssue(path, f"{where} is missing the required key {prop!r}", _description(root, schema_path[:-1]))
        return
    if kind == "Enum":
        options = list(error.kind.options)
        if isinstance(value, (list, dict)) and not any(isinstance(o, (list, dict)) for o in options):
            yield SchemaIssue(path, f"{where} is {_describe_value(value)}, expected {_options(options)}",
                              _description(root, schema_path))
            return
        desc = _description(root, schema_path)
        allowed = _options(options)
        if desc and not desc.startswith("a ") and not desc.startswith("an "):
            allowed = f"{allowed} ({desc})" if len(options) <= MAX_LISTED else desc
        yield SchemaIssue(path, f"{json.dumps(value) if not isinstance(value, str) else repr(value)} is not allowed for "
                          f"{path[-1] if path else 'this value'}", allowed, suggest(value, options))
        return
    if kind == "Constant":
        expected = error.kind.expected_value
        yield SchemaIssue(path, f"{where} must be {json.dumps(expected)}", _description(root, schema_path))
        return
    if kind == "Type":
        want = _type_names(error.kind.types)
        yield SchemaIssue(path, f"{where} is {_describe_value(value)}, expected {want}", _description(root, schema_path))
        return
    if kind in ("Pattern", "MinLength", "MaxLength", "Format"):
        shown = value if len(str(value)) <= 80 else str(value)[:77] + "..."
        yield SchemaIssue(path, f"{shown!r} is not a valid {_noun(path)}", _description(root, schema_path))
        return
    if kind == "PropertyNames":
        inner = error.kind.error
        key = inner.instance
        yield SchemaIssue(path + (key,), f"{key!r} is not a valid key in {where}", _description(root, schema_path),
                          on_key=True)
        return
    if kind in ("Minimum", "Maximum", "ExclusiveMinimum", "ExclusiveMaximum"):
        word = "at least" if "Minimum" in kind else "at most"
        yield SchemaIssue(path, f"{where} is {value}, it must be {word} {error.kind.limit}", _description(root, schema_path))
        return
    if kind in ("MinItems", "MaxItems", "MinProperties", "MaxProperties"):
        what = "items" if "Items" in kind else "keys"
        word = "at least" if kind.startswith("Min") else "at most"
        desc = _description(root, schema_path)
        yield SchemaIssue(path, f"{where} has {len(value)} {what}, it must have {word} {error.kind.limit}", desc)
        return
    if kind == "FalseSchema":
        key = path[-1] if path else "this value"
        yield SchemaIssue(path, f"{key!r} is not allowed here", _description(root, schema_path[:-1]), on_key=True)
        return
    if kind == "Not" and not isinstance(value, (dict, list)):
        yield SchemaIssue(path, f"{json.dumps(value)} is not allowed for {_noun(path)} here",
                          _description(root, schema_path[:-2]) or _description(root, schema_path))
        return
    if kind == "Not":
        yield SchemaIssue(path, f"{where} combines keys that exclude each other", _description(root, schema_path))
        return
    if kind in ("AnyOf", "OneOfNotValid", "OneOfMultipleValid"):
        desc = _description(root, schema_path)
        branches = getattr(error.kind, "context", None) or []
        flat = [e for branch in branches for e in branch]
        if flat and all(type(e.kind).__name__ in ("Type", "Pattern") for e in flat):
            yield SchemaIssue(path, f"{where} is {_describe_value(value)} of the wrong form", desc)
            return
        bound = _bound(value, flat)
        if bound is not None:
            yield SchemaIssue(path, f"{where} is {json.dumps(value)}, it must be {bound}", desc)
            return
        missing = sorted({e.kind.property for e in flat if type(e.kind).__name__ == "Required"})
        if missing and len(missing) == len(branches):
            yield SchemaIssue(path, f"{where} needs one of: " + ", ".join(missing), desc)
            return
        yield SchemaIssue(path, f"{where} does not match any allowed form", desc)
        return
    yield SchemaIssue(path, f"{where}: {error.message}", _description(root, schema_path))
