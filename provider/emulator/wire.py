"""The exact JSON of the Vertex AI REST API, through the SDK's own proto-plus types.

Requests are parsed with ``aiplatform_v1.<Type>.from_json`` (unknown fields refused, as Google
does) and kept in one canonical form: camelCase, enum names, int64 as strings. Answers are
built in that form and written with ``<Type>.to_json``: enums as integers when the client asks
with ``$alt=json;enum-encoding=int`` (every google-cloud-aiplatform REST call does), as names
otherwise, int64 as strings, default values left out.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from provider.core.names import snake
from provider.emulator.errors import FieldViolation, invalid

Json = dict[str, Any]

OUTPUT_ONLY = ("name", "state", "createTime", "startTime", "endTime", "updateTime", "error", "webAccessUris",
               "trials", "satisfiesPzs", "satisfiesPzi")
_FIELD_MISSING = re.compile(r'has no field named "([^"]+)" at "([^"]+)"')
_FAILED_FIELD = re.compile(r"Failed to parse (\w+) field")
MAX_DEPTH = 100  # the nesting protobuf's JSON parser accepts (its recursion limit)


def depth(data: object) -> int:
    """How deeply objects and arrays nest in ``data`` (iteratively: no recursion to exhaust)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(data, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, level + 1)
            stack.extend((child, level + 1) for child in item if isinstance(child, (dict, list)))
    return deepest


def loads(raw: bytes, what: str) -> object:
    """JSON text -> data; INVALID_ARGUMENT when it is not UTF-8 JSON or nests beyond ``MAX_DEPTH``."""
    try:
        text = raw.decode("utf-8")
        data = json.loads(text) if text.strip() else {}
    except (UnicodeDecodeError, ValueError) as exc:
        raise invalid(f"Invalid JSON payload received. {exc}") from None
    except RecursionError:
        too_deep = True
    else:
        too_deep = depth(data) > MAX_DEPTH
    if too_deep:
        raise invalid(f"Invalid JSON payload received. The {what} nests objects and arrays more than "
                      f"{MAX_DEPTH} levels deep.")
    return data


@cache
def message_type(type_name: str) -> Any:
    from google.cloud import aiplatform_v1

    return getattr(aiplatform_v1, type_name)


def _payload_error(type_name: str, why: str) -> Exception:
    root = snake(type_name)
    m = _FIELD_MISSING.search(why)
    if m:
        where = ".".join(snake(p) for p in m.group(2).split(".")[1:])
        at = root + ("." + where if where else "")
        text = f"Invalid JSON payload received. Unknown name \"{m.group(1)}\" at '{at}': Cannot find field."
        return invalid(text, (FieldViolation(at, text),))
    path = [snake(p) for p in _FAILED_FIELD.findall(why)]
    at = ".".join([root, *path])
    detail = why.split(": ")[-1].strip().rstrip(".") if ": " in why else why
    text = f"Invalid value at '{at}': {detail}"
    return invalid(f"Invalid JSON payload received. {text}", (FieldViolation(at, text),))


def parse(type_name: str, raw: bytes, keep: tuple[str, ...] = ()) -> Json:
    """A request body -> canonical JSON, output-only fields dropped (except ``keep``: an artifact's or
    execution's ``state`` is the client's to set); INVALID_ARGUMENT when malformed."""
    from google.protobuf.json_format import ParseError

    data = loads(raw, snake(type_name))
    if not isinstance(data, dict):
        raise invalid(f"Invalid JSON payload received. Expected an object for {snake(type_name)}.")
    cls = message_type(type_name)
    try:
        message = cls.from_json(json.dumps(data), ignore_unknown_fields=False)
    except (ParseError, ValueError, TypeError) as exc:
        raise _payload_error(type_name, str(exc)) from None
    canonical: Json = json.loads(cls.to_json(message, use_integers_for_enums=False, indent=None,
                                             always_print_fields_with_no_presence=False))
    for key in OUTPUT_ONLY:
        if key not in keep:
            canonical.pop(key, None)
    return canonical


def encode(type_name: str, data: Json, enums_as_ints: bool) -> bytes:
    """Canonical JSON -> the answer's bytes, through the proto type (so it is exactly the API's)."""
    cls = message_type(type_name)
    message = cls.from_json(json.dumps(data), ignore_unknown_fields=False)
    return str(cls.to_json(message, use_integers_for_enums=enums_as_ints, indent=None,
                           always_print_fields_with_no_presence=False)).encode()


def encode_any(data: Json) -> bytes:
    """JSON the proto types do not model here (an Operation, whose Any fields carry @type)."""
    return json.dumps(data, separators=(",", ":")).encode()
