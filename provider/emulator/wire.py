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

from provider.emulator.errors import FieldViolation, invalid

Json = dict[str, Any]

OUTPUT_ONLY = ("name", "state", "createTime", "startTime", "endTime", "updateTime", "error", "webAccessUris",
               "trials", "satisfiesPzs", "satisfiesPzi")
_FIELD_MISSING = re.compile(r'has no field named "([^"]+)" at "([^"]+)"')
_FAILED_FIELD = re.compile(r"Failed to parse (\w+) field")


@cache
def message_type(type_name: str) -> Any:
    from google.cloud import aiplatform_v1

    return getattr(aiplatform_v1, type_name)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _payload_error(type_name: str, why: str) -> Exception:
    root = _snake(type_name)
    m = _FIELD_MISSING.search(why)
    if m:
        where = ".".join(_snake(p) for p in m.group(2).split(".")[1:])
        at = root + ("." + where if where else "")
        text = f"Invalid JSON payload received. Unknown name \"{m.group(1)}\" at '{at}': Cannot find field."
        return invalid(text, (FieldViolation(at, text),))
    path = [_snake(p) for p in _FAILED_FIELD.findall(why)]
    at = ".".join([root, *path])
    detail = why.split(": ")[-1].strip().rstrip(".") if ": " in why else why
    text = f"Invalid value at '{at}': {detail}"
    return invalid(f"Invalid JSON payload received. {text}", (FieldViolation(at, text),))


def parse(type_name: str, raw: bytes) -> Json:
    """A request body -> canonical JSON, output-only fields dropped; INVALID_ARGUMENT when malformed."""
    from google.protobuf.json_format import ParseError

    try:
        text = raw.decode("utf-8")
        data = json.loads(text) if text.strip() else {}
    except (UnicodeDecodeError, ValueError) as exc:
        raise invalid(f"Invalid JSON payload received. {exc}") from None
    if not isinstance(data, dict):
        raise invalid(f"Invalid JSON payload received. Expected an object for {_snake(type_name)}.")
    cls = message_type(type_name)
    try:
        message = cls.from_json(json.dumps(data), ignore_unknown_fields=False)
    except (ParseError, ValueError, TypeError) as exc:
        raise _payload_error(type_name, str(exc)) from None
    canonical: Json = json.loads(cls.to_json(message, use_integers_for_enums=False, indent=None,
                                             always_print_fields_with_no_presence=False))
    for key in OUTPUT_ONLY:
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
