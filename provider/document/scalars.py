"""What one YAML scalar means: plain scalars as YAML 1.2 reads them, and the standard tags.

Plain scalars follow YAML 1.2 (``no`` is a string, ``1e3`` a number). The plain scalars that
YAML 1.1 reads differently (``no``, ``on``, ``1e3``, ``08``, ``1:30``) are refused, because
another tool reading the same file would see another value; so are numbers too large to be
exact, non-finite numbers, and tags other than ``!!str/int/float/bool/null`` on a matching value.

Nothing here knows where the scalar was written: a refusal is returned, and the reader gives
it a position. No message quotes more than a short, escaped excerpt (provider.document.excerpt).
"""

from __future__ import annotations

import math
import re
from typing import Any

from provider.core.record import Record
from provider.document.excerpt import clip, quoted

MAX_INT_DIGITS = 18
TAG = "tag:yaml.org,2002:"
NULLS = frozenset(["", "~", "null", "Null", "NULL"])
_TRUE = frozenset(["true", "True", "TRUE"])
_FALSE = frozenset(["false", "False", "FALSE"])
_INT = re.compile(r"[-+]?[0-9]+\Z")
_OCT = re.compile(r"0o[0-7]+\Z")
_HEX = re.compile(r"0x[0-9a-fA-F]+\Z")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_INF = re.compile(r"[-+]?\.(inf|Inf|INF)\Z")
_NAN = re.compile(r"\.(nan|NaN|NAN)\Z")
# Plain scalars that YAML 1.1 (PyYAML, many CI tools) reads differently from YAML 1.2.
_YAML11_WORDS = frozenset(["y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"])
_NUMERIC_START = NUMERIC_START = frozenset("0123456789+-.")
# Plain words that are not read as the string they spell (null, booleans), or are refused (YAML 1.1's).
SPECIAL_WORDS = NULLS | _TRUE | _FALSE | _YAML11_WORDS
KEY_WORDS = NULLS | {"<<"}  # keys that need a word, when plain: refused (null) or reported (merge)
_SEXAGESIMAL = re.compile(r"[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?\Z")
_LEADING_ZERO = re.compile(r"[-+]?0[0-9_]+\Z")
_EXP_NO_DOT = re.compile(r"[-+]?[0-9]+[eE][-+]?[0-9]+\Z")
_UNDERSCORE_NUM = re.compile(r"[-+]?[0-9](?=[0-9_]*_)[0-9_]*(\.[0-9_]*)?\Z")  # a "_" in the digits: one pass, no backtracking over them twice
_BINARY = re.compile(r"[-+]?0b[01_]+\Z")
_NUMBER_TRAPS = (_SEXAGESIMAL, _LEADING_ZERO, _EXP_NO_DOT, _UNDERSCORE_NUM, _BINARY)
# Every YAML 1.1 number trap above has a leading zero, or one of these characters: a scalar
# with neither (1, 0.5, 3600s) is not looked at again.
_MAY_TRAP = re.compile(r"[-+]?0[0-9_]|[^:_bEe]*[:_bEe]")


class Refusal(Record):
    """Why a scalar's value is not taken as written (the reader adds where)."""

    message: str
    allowed: str | None = None
    rule: str = "yaml"


def _trap(text: str) -> str | None:
    """Explain why an unquoted scalar means different things to different YAML readers."""
    if text in _YAML11_WORDS:  # one of a few short words: quoted as it is
        b = "true" if text.lower() in ("y", "yes", "on") else "false"
        return (
            f"unquoted {text} is ambiguous: YAML 1.1 reads it as the boolean {b}, YAML 1.2 as the "
            f"string {text!r}. Write {b} for a boolean, or quote it ('{text}') for a string"
        )
    if not _MAY_TRAP.match(text) or not any(trap.match(text) for trap in _NUMBER_TRAPS):
        return None
    raw, text = text, clip(text)  # the patterns below match unbounded digit runs
    if _SEXAGESIMAL.match(raw):
        return (
            f"unquoted {text} is ambiguous: YAML 1.1 reads it as a base-60 number, YAML 1.2 as a "
            f"string. Quote it ('{text}') for a string, or write durations as seconds like '5400s'"
        )
    if _LEADING_ZERO.match(raw):
        return (
            f"unquoted {text} is ambiguous: YAML 1.1 reads a leading zero as octal, YAML 1.2 as "
            f"decimal. Write it without the leading zero, or quote it ('{text}') for a string"
        )
    if _EXP_NO_DOT.match(raw):
        return (
            f"unquoted {text} is ambiguous: YAML 1.1 reads it as a string, YAML 1.2 as the number "
            f"{float(raw):g}. Write the number in full ({clip(_plain_number(raw))}), or quote it for a string"
        )
    if _UNDERSCORE_NUM.match(raw) or _BINARY.match(raw):
        return (
            f"unquoted {text} is ambiguous: YAML 1.1 reads it as a number, YAML 1.2 as a string. "
            f"Write plain digits, or quote it ('{text}') for a string"
        )
    return None


def _plain_number(text: str) -> str:
    value = float(text)
    return str(int(value)) if value.is_integer() and abs(value) < 1e18 else repr(value)


def _integer(text: str) -> int:
    base = 16 if _HEX.match(text) else 8 if _OCT.match(text) else 10
    return int(text[2:] if base != 10 else text, base)


def plain(text: str) -> tuple[Any, str | None, Refusal | None]:
    """A plain scalar: (its value, the text as written when it is not a string, a refusal)."""
    if text in NULLS:
        return None, text, None
    if text in _TRUE:
        return True, text, None
    if text in _FALSE:
        return False, text, None
    if text[0] not in _NUMERIC_START and text not in _YAML11_WORDS:
        return text, None, None  # the common case: an identifier such as n1-standard-4
    if text.isdigit() and text.isascii() and len(text) <= MAX_INT_DIGITS and (text[0] != "0" or len(text) == 1):
        return int(text), text, None  # a count or a size (4, 100): no leading zero for YAML 1.1 to read as octal
    trap = _trap(text)
    if trap is not None:
        if _EXP_NO_DOT.match(text):
            return float(text), text, Refusal(trap, rule="yaml.ambiguous-scalar")
        return text, None, Refusal(trap, rule="yaml.ambiguous-scalar")
    if _INT.match(text) or _OCT.match(text) or _HEX.match(text):
        if len(text.lstrip("+-")) > MAX_INT_DIGITS:
            return text, None, Refusal(f"number {clip(text)} is too large", "integers of at most 18 digits")
        return _integer(text), text, None
    if _FLOAT.match(text):
        return float(text), text, None
    if _INF.match(text) or _NAN.match(text):
        return text, None, Refusal(f"{text} is not a finite number", "finite numbers")
    return text, None, None


def tagged(tag: str, text: str) -> tuple[Any, Refusal | None]:
    """A scalar with an explicit tag: its value, or the text and why the tag is refused."""
    if tag == TAG + "str":
        return text, None
    if tag == TAG + "null" and text in NULLS:
        return None, None
    if tag == TAG + "bool" and (text in _TRUE or text in _FALSE):
        return text in _TRUE, None
    if tag == TAG + "int" and (_INT.match(text) or _HEX.match(text) or _OCT.match(text)):
        return _integer(text), None
    if tag == TAG + "float" and _FLOAT.match(text):
        value = float(text)
        if math.isfinite(value):
            return value, None
    return text, Refusal(
        f"tag {clip(tag.replace(TAG, '!!'))} is not allowed on {quoted(text)}",
        "plain YAML values; the tags !!str, !!int, !!float, !!bool and !!null with matching values",
        rule="yaml.tag",
    )
