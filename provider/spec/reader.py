"""Typed, path-aware reads from a parsed document, shared by the format converters.

A converter reads the document through ``Node`` so every value it takes also records where
it came from. Wrong types raise ``ConversionError``: the JSON Schema has already reported
them with a better message, so the validator simply skips the model-level rules then.
"""

from __future__ import annotations

import re
from typing import Any

from provider.spec.model import DocPath, Note


class ConversionError(Exception):
    """The document's structure is too broken to build the model (the schema says why).

    ``notes`` are the format rules the converter found broken before it had to stop.
    """

    def __init__(self, message: str, notes: tuple[Any, ...] = ()) -> None:
        super().__init__(message)
        self.notes = notes


_DURATION = re.compile(r"^([0-9]+(?:\.[0-9]{1,9})?)s$")


def parse_duration(text: str) -> float | None:
    """``"3600s"`` -> 3600.0 (the google.protobuf.Duration JSON form); None if malformed."""
    m = _DURATION.match(text)
    return float(m.group(1)) if m else None


def format_duration(seconds: float) -> str:
    if float(seconds).is_integer():
        return f"{int(seconds)}s"
    return f"{seconds:.9f}".rstrip("0") + "s"


class Node:
    """A mapping in the document, with its path."""

    __slots__ = ("data", "path")

    def __init__(self, data: Any, path: DocPath) -> None:
        if not isinstance(data, dict):
            raise ConversionError(f"expected a mapping at {path}")
        self.data = data
        self.path = path

    def __contains__(self, key: str) -> bool:
        return key in self.data

    def at(self, key: str | int) -> DocPath:
        return self.path + (key,)

    def raw(self, key: str) -> Any:
        return self.data.get(key)

    def text(self, key: str) -> str | None:
        v = self.data.get(key)
        if v is None:
            return None
        if not isinstance(v, str):
            raise ConversionError(f"{key} is not a string")
        return v

    def req_str(self, key: str) -> str:
        v = self.text(key)
        if v is None:
            raise ConversionError(f"{key} is missing")
        return v

    def integer(self, key: str, default: int | None = None) -> int | None:
        v = self.data.get(key)
        if v is None:
            return default
        # The REST API writes int64 values as strings ("replicaCount": "2").
        if isinstance(v, str) and v.isdigit():
            return int(v)
        if isinstance(v, float) and v.is_integer():  # JSON Schema counts 2.0 as an integer: say it here
            note = Note(f"{key} is {v!r}, not an integer", self.at(key), "type.integer",
                        allowed=f"an integer, such as {int(v)} (no decimal point)", error=True)
            raise ConversionError(f"{key} is not an integer", notes=(note,))
        if isinstance(v, bool) or not isinstance(v, int):
            raise ConversionError(f"{key} is not an integer")
        return v

    def number(self, key: str) -> float | None:
        v = self.data.get(key)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ConversionError(f"{key} is not a number")
        return float(v)

    def flag(self, key: str, default: bool = False) -> bool:
        v = self.data.get(key)
        if v is None:
            return default
        if not isinstance(v, bool):
            raise ConversionError(f"{key} is not a boolean")
        return v

    def given_flag(self, key: str) -> bool | None:
        """A boolean as written: None when absent, so an explicit ``false`` reaches the request (gcloud
        sends it)."""
        return None if self.data.get(key) is None else self.flag(key)

    def strs(self, key: str) -> tuple[str, ...] | None:
        v = self.data.get(key)
        if v is None:
            return None
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise ConversionError(f"{key} is not a list of strings")
        return tuple(v)

    def duration(self, key: str) -> float | None:
        v = self.text(key)
        return None if v is None else parse_duration(v)

    def child(self, key: str) -> Node | None:
        v = self.data.get(key)
        if v is None:
            return None
        return Node(v, self.at(key))

    def items(self, key: str) -> list[Node]:
        v = self.data.get(key)
        if v is None:
            return []
        if not isinstance(v, list):
            raise ConversionError(f"{key} is not a list")
        return [Node(x, self.at(key) + (i,)) for i, x in enumerate(v)]

    def mapping(self, key: str) -> dict[str, Any] | None:
        v = self.data.get(key)
        if v is None:
            return None
        if not isinstance(v, dict):
            raise ConversionError(f"{key} is not a mapping")
        return v

    def str_map(self, key: str) -> tuple[tuple[str, str], ...]:
        v = self.mapping(key)
        if v is None:
            return ()
        out = []
        for k, val in v.items():
            if isinstance(val, bool) or not isinstance(val, (str, int, float)):
                raise ConversionError(f"{key}.{k} is not a string")
            out.append((k, val if isinstance(val, str) else str(val)))
        return tuple(out)
