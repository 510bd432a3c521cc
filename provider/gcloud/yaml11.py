"""A plain scalar of a ``--config`` file as gcloud reads it: YAML 1.1.

gcloud loads its ``--config`` with googlecloudsdk.core.yaml, which parses YAML 1.1 (ruamel,
``version=1.1``). The strict reader (provider/document) reads YAML 1.2: it refuses the plain
scalars the two versions read differently (``1e-5``, ``yes``, ``010``, ``1:30``, ``1_000``,
``0b101``), and takes the YAML-1.2-only forms as numbers (``0o17`` is 15, ``-.5`` is -0.5) where
YAML 1.1 reads strings. In a gcloud config none of them is ambiguous: gcloud's reading is what is
sent. These are ruamel's YAML 1.1 rules (its implicit resolvers and SafeConstructor), checked
against gcloud 528: ``1e-5`` is the number 1e-05 there (with a warning), ``08`` and ``0o17`` stay
strings, ``0x1F`` is 31 in both, ``-.5`` and ``.5e3`` are strings (1.1's ``.5`` form has no sign
and needs one in its exponent), ``.inf`` and ``.nan`` are floats (the strict reader refuses a
non-finite number: no request can carry it). A plain ``2020-01-01`` (or ``2020-01-01T10:00:00Z``)
is a YAML 1.1 timestamp (ruamel's resolver, in 1.1 and 1.2 alike): gcloud reads a date, which it
then cannot send (``TIMESTAMP``; config_doc.py refuses it by position).
"""

from __future__ import annotations

import re

_NULL = frozenset(["", "~", "null", "Null", "NULL"])
_TRUE = frozenset(["y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "true", "True", "TRUE"])
_FALSE = frozenset(["n", "N", "no", "No", "NO", "off", "Off", "OFF", "false", "False", "FALSE"])
_INT = re.compile(r"[-+]?(0b[01_]+|0?[0-7_]+|0|[1-9][0-9_]*|0x[0-9a-fA-F_]+|[1-9][0-9_]*(:[0-5]?[0-9])+)\Z")
_FLOAT = re.compile(r"([-+]?[0-9][0-9_]*\.[0-9_]*([eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+"
                    r"|\.[0-9_]+([eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*"
                    r"|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))\Z")

Scalar = bool | int | float | str | None

# ruamel.yaml's resolver for tag:yaml.org,2002:timestamp (resolver.py), as gcloud 528 ships it.
TIMESTAMP = re.compile(r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
        |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
        (?:[Tt]|[ \t]+)[0-9][0-9]?
        :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
        (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""", re.X)


def _base60(digits: str) -> int:
    value = 0
    for part in digits.split(":"):
        value = value * 60 + int(part)
    return value


def read(text: str) -> Scalar:
    """What YAML 1.1 (gcloud) makes of the plain scalar ``text``."""
    if text in _NULL:
        return None
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-").replace("_", "")
    if _INT.match(text) and digits:
        if digits.startswith(("0b", "0x")):
            return sign * int(digits[2:], 2 if digits[1] == "b" else 16)
        if ":" in digits:
            return sign * _base60(digits)
        return sign * int(digits, 8 if digits.startswith("0") and digits != "0" else 10)
    if _FLOAT.match(text):
        lowered = digits.lower()
        if lowered in (".inf", ".nan"):
            return sign * float(lowered[1:])
        if ":" in digits:
            whole, _, fraction = digits.partition(".")
            return sign * (_base60(whole) + float("0." + (fraction or "0")))
        return sign * float(digits)
    return text
