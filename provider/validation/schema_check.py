"""Run the generated JSON Schema and turn its errors into readable problems.

jsonschema-rs checks a document in microseconds, so every spec is checked against the very
schema an editor uses. Its raw messages ("2 is not one of 4 or 8") are rewritten here into
what / what is allowed / did you mean, using the schema's own descriptions.

A spec is checked by the committed schema narrowed to the body its ``spec`` takes
(``schema_narrow.py``): the same errors and messages, for a fraction of the compile time.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from provider.core.problem import Problem, format_path
from provider.core.suggest import did_you_mean
from provider.document.loaded import LoadedDocument, at_position
from provider.document.locate import locate, raw_text
from provider.validation.schema_hints import exclusive, forms, misplaced, offered, parent_values
from provider.validation.schema_narrow import body_definition, definitions, narrowed

MAX_LISTED = 12
# Schema keywords whose failure means a converter cannot read the value at all.
_STRUCTURAL = frozenset({"Type", "AnyOf", "OneOfNotValid", "OneOfMultipleValid", "MinItems", "MaxItems"})


# The committed schemas (tools/schema/generate.py writes them from provider/spec/schema.py,
# provider/stack/schema.py and the catalog; a test checks that they agree). Loading the file spares
# every start the generation.
_SCHEMA_FILES = {"spec": "trainingjob.schema.json", "stack": "stack.schema.json"}
_PACKAGE = Path(__file__).resolve().parents[1]
# An installed package carries them as provider/schemas/ (setup.py copies them there); a checkout
# has schemas/ beside provider/.
_SCHEMA_DIR = _PACKAGE / "schemas" if (_PACKAGE / "schemas").is_dir() else _PACKAGE.parent / "schemas"


def schema_dir() -> Path:
    """Where the committed schemas this check reads are (provider.resources.check_carry digests them)."""
    return _SCHEMA_DIR


BODIES_DIR = "bodies"  # schemas/bodies/: the spec schema narrowed to each body (schema_narrow)
Generator = Callable[[], dict[str, Any]]


def _spec_schema() -> dict[str, Any]:
    from provider.spec.schema import spec_schema

    return spec_schema()


@cache
def schema_for(kind: str, generate: Generator | None = None) -> dict[str, Any]:
    """The JSON Schema of ``kind`` ("spec" or "stack"): the committed file, else ``generate()``.

    Where the file is missing (a package built without them) it is generated from the catalog, by
    the spec layer's generator for a spec and by the one a caller of a higher layer passes (the
    stack layer passes its own: validation does not import the stack layer).
    """
    try:
        with open(_SCHEMA_DIR / _SCHEMA_FILES[kind], "rb") as f:
            loaded: dict[str, Any] = json.load(f)
        return loaded
    except FileNotFoundError:
        if generate is None and kind == "spec":
            generate = _spec_schema
        if generate is None:
            raise
        return generate()


@cache
def _validator(kind: str, generate: Generator | None = None, body: str | None = None) -> Any:
    """The compiled schema of ``kind``; with ``body``, narrowed to a spec of that body (``narrowed``)."""
    import jsonschema_rs

    root = body_schema(body) if body is not None else None
    if root is None:
        root = schema_for(kind, generate)
        if body is not None:
            root = narrowed(root, body, definitions()) or root
    return jsonschema_rs.Draft202012Validator(root)


def body_schema(body: str) -> dict[str, Any] | None:
    """The committed spec schema narrowed to ``body``, or None where it is not there.

    tools/schema/generate.py writes it beside the whole schema, from it (a test checks that they
    agree): a fifth of its size, read without reading and narrowing the whole at each start.
    """
    try:
        with open(_SCHEMA_DIR / BODIES_DIR / f"{body}.schema.json", "rb") as f:
            loaded: dict[str, Any] = json.load(f)
        return loaded
    except FileNotFoundError:
        return None


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


# Keywords whose next path part names a property: a description above describes the object holding it.
_NAMING = ("properties", "patternProperties")


def _description(root: dict[str, Any], schema_path: list[Any]) -> str | None:
    """The description of the nearest schema node around the failing keyword, within the value's own schema.

    The search climbs from the failing keyword to the schema of the property that holds the value; above
    it only the then or else of a rule (its explanation) is read.
    """
    floor = next((i + 1 for i in range(len(schema_path) - 1, 0, -1) if schema_path[i - 1] in _NAMING), 0)
    for end in range(len(schema_path), -1, -1):
        node = _node(root, schema_path[:end])
        # above the value's own schema, only a rule's own explanation (the then or else of an if) speaks for it
        if not isinstance(node, dict) or (end < floor and (end == 0 or schema_path[end - 1] not in ("then", "else"))):
            continue
        if isinstance(node.get("description"), str):
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
    return did_you_mean(value, options)  # provider.core.suggest: one home for close matches


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


def problems(data: Any, filename: str, doc: LoadedDocument | None, kind: str,
             generate: Generator | None = None) -> list[Problem]:
    """Schema findings as problems with file positions (when the document came from a file)."""
    return placed(check(data, kind, generate), filename, doc, kind)


def placed(issues: Iterable[SchemaIssue], filename: str, doc: LoadedDocument | None, kind: str) -> list[Problem]:
    """Schema findings (of ``check``) as problems with file positions."""
    out = []
    for issue in issues:
        pos = locate(doc, issue.path, on_key=issue.on_key) if doc else None
        hint = issue.hint
        if doc is not None and hint is None:
            raw = raw_text(doc, issue.path)
            if raw is not None and "google.protobuf.Duration" in (issue.allowed or "") and _is_number(raw):
                hint = f'write "{raw}s": a duration is its seconds with an \'s\' suffix ("{raw}" quoted is still no duration)'
            elif raw is not None and raw not in _NULLS and "string" in (issue.allowed or "") + issue.message:
                # double quotes: the same advice for a YAML file and a JSON body (where '10' is no string)
                hint = f'quote it: "{raw}" (written without quotes, {raw} is read as a number or boolean)'
        out.append(Problem(
            file=filename,
            **at_position(pos),
            path=format_path(issue.path),
            message=issue.message,
            allowed=issue.allowed,
            hint=hint,
            rule="schema",
            source=f"schemas/{'trainingjob' if kind == 'spec' else 'stack'}.schema.json",
        ))
    return out


_NULLS = ("null", "Null", "NULL", "~", "")  # YAML's and JSON's null: quoting it makes the string 'null', no fix


def _is_number(raw: str) -> bool:
    try:
        return float(raw) >= 0
    except ValueError:
        return False


def check(data: Any, kind: str = "spec", generate: Generator | None = None) -> Iterator[SchemaIssue]:
    validator = _validator(kind, generate, body_definition(data) if kind == "spec" else None)
    if validator.is_valid(data):  # the common case, and cheaper than looking for errors
        return
    root = schema_for(kind, generate)
    for error in validator.iter_errors(data):
        structural = type(error.kind).__name__ in _STRUCTURAL
        conditional = type(error.kind).__name__ in ("FalseSchema", "Not") or any(
            part in ("then", "else") for part in error.schema_path)
        for issue in _issues(error, root):
            issue.structural = structural
            issue.conditional = conditional
            yield issue


class _Failure:
    """One jsonschema-rs error, with what every keyword's message needs."""

    __slots__ = ("error", "path", "root", "schema_path", "value", "where")

    def __init__(self, error: Any, root: dict[str, Any]) -> None:
        self.error = error
        self.root = root
        self.path: tuple[Any, ...] = tuple(error.instance_path)
        self.schema_path: list[Any] = list(error.schema_path)
        self.value: Any = error.instance
        self.where = format_path(self.path) or "the document"

    def description(self, drop: int = 0) -> str | None:
        return _description(self.root, self.schema_path[: len(self.schema_path) - drop])

    def issue(self, message: str, allowed: str | None = None, hint: str | None = None,
              on_key: bool = False) -> SchemaIssue:
        return SchemaIssue(self.path, message, allowed, hint, on_key)


def _additional_properties(f: _Failure) -> Iterator[SchemaIssue]:
    props = _node(f.root, f.schema_path[:-1] + ["properties"]) or {}
    keys = sorted(props)
    for key in f.error.kind.unexpected:
        yield SchemaIssue(f.path + (key,), f"unknown key {key!r} in {f.where}", ", ".join(keys) if keys else "no other keys",
                          suggest(key, keys) or misplaced(key, props, f.root), on_key=True)


def _required(f: _Failure) -> Iterator[SchemaIssue]:  # explaining.py reads the key back from these words
    yield f.issue(f"{f.where} is missing the required key {f.error.kind.property!r}", f.description(1))


def _enum(f: _Failure) -> Iterator[SchemaIssue]:
    options = offered(list(f.error.kind.options))
    value, desc = f.value, f.description()
    if isinstance(value, (list, dict)) and not any(isinstance(o, (list, dict)) for o in options):
        yield f.issue(f"{f.where} is {_describe_value(value)}, expected {_options(options)}", desc)
        return
    allowed = _options(options)
    if desc and not desc.startswith("a ") and not desc.startswith("an "):
        allowed = f"{allowed} ({desc})" if len(options) <= MAX_LISTED else desc
    shown = json.dumps(value) if not isinstance(value, str) else repr(value)
    yield f.issue(f"{shown} is not allowed for {f.path[-1] if f.path else 'this value'}", allowed, suggest(value, options))


def _constant(f: _Failure) -> Iterator[SchemaIssue]:
    yield f.issue(f"{f.where} must be {json.dumps(f.error.kind.expected_value)}", f.description())


def _type(f: _Failure) -> Iterator[SchemaIssue]:
    want = _type_names(f.error.kind.types)
    hint = None
    if isinstance(f.value, str) and f.value.strip().lower() in ("true", "false") and "true or false" in want:
        hint = f"write {f.value.strip().lower()} without quotes: a boolean field takes JSON's true or false, not a string"
    yield f.issue(f"{f.where} is {_describe_value(f.value)}, expected {want}", f.description() or want, hint)


def _text(f: _Failure) -> Iterator[SchemaIssue]:
    shown = f.value if len(str(f.value)) <= 80 else str(f.value)[:77] + "..."
    yield f.issue(f"{shown!r} is not a valid {_noun(f.path)}", f.description())


def _property_names(f: _Failure) -> Iterator[SchemaIssue]:
    key = f.error.kind.error.instance
    yield SchemaIssue(f.path + (key,), f"{key!r} is not a valid key in {f.where}", f.description(), on_key=True)


def _limit(f: _Failure) -> Iterator[SchemaIssue]:
    word = "at least" if "Minimum" in type(f.error.kind).__name__ else "at most"
    yield f.issue(f"{f.where} is {f.value}, it must be {word} {f.error.kind.limit}", f.description())


def _count(f: _Failure) -> Iterator[SchemaIssue]:
    kind = type(f.error.kind).__name__
    what = "items" if "Items" in kind else "keys"
    word = "at least" if kind.startswith("Min") else "at most"
    yield f.issue(f"{f.where} has {len(f.value)} {what}, it must have {word} {f.error.kind.limit}", f.description())


def _false_schema(f: _Failure) -> Iterator[SchemaIssue]:
    key = f.path[-1] if f.path else "this value"
    yield f.issue(f"{key!r} is not allowed here", f.description(1), on_key=True)


def _not(f: _Failure) -> Iterator[SchemaIssue]:
    if isinstance(f.value, (dict, list)):
        yield f.issue(f"{f.where} combines keys that exclude each other", f.description())
        return
    yield f.issue(f"{json.dumps(f.value)} is not allowed for {_noun(f.path)} here", f.description(2) or f.description())


def _alternatives(f: _Failure) -> Iterator[SchemaIssue]:
    desc = f.description()
    branches = getattr(f.error.kind, "context", None) or []
    flat = [e for branch in branches for e in branch]
    if flat and all(type(e.kind).__name__ in ("Type", "Pattern") for e in flat):
        yield f.issue(f"{f.where} is {_describe_value(f.value)} of the wrong form", desc or forms(flat), parent_values(f.path, f.value))
        return
    bound = _bound(f.value, flat)
    if bound is not None:
        yield f.issue(f"{f.where} is {json.dumps(f.value)}, it must be {bound}", desc)
        return
    missing = sorted({e.kind.property for e in flat if type(e.kind).__name__ == "Required"})
    if missing and len(missing) == len(branches):
        yield f.issue(f"{f.where} needs one of: " + ", ".join(missing), desc)
        return
    yield f.issue(f"{f.where} does not match any allowed form" + (f": {why}" if (why := exclusive(branches)) else ""), desc)


def _other(f: _Failure) -> Iterator[SchemaIssue]:
    yield f.issue(f"{f.where}: {f.error.message}", f.description())


# The message for each JSON Schema keyword that failed (jsonschema-rs names the keyword by its
# ValidationErrorKind class); a keyword not listed gets jsonschema-rs's own message.
_BY_KEYWORD: dict[str, Callable[[_Failure], Iterator[SchemaIssue]]] = {
    "AdditionalProperties": _additional_properties,
    "Required": _required,
    "Enum": _enum,
    "Constant": _constant,
    "Type": _type,
    **dict.fromkeys(("Pattern", "MinLength", "MaxLength", "Format"), _text),
    "PropertyNames": _property_names,
    **dict.fromkeys(("Minimum", "Maximum", "ExclusiveMinimum", "ExclusiveMaximum"), _limit),
    **dict.fromkeys(("MinItems", "MaxItems", "MinProperties", "MaxProperties"), _count),
    "FalseSchema": _false_schema,
    "Not": _not,
    **dict.fromkeys(("AnyOf", "OneOfNotValid", "OneOfMultipleValid"), _alternatives),
}


def _issues(error: Any, root: dict[str, Any]) -> Iterator[SchemaIssue]:
    return _BY_KEYWORD.get(type(error.kind).__name__, _other)(_Failure(error, root))
