"""A plain scalar of a ``--config`` file as gcloud reads it: YAML 1.1.

gcloud loads its ``--config`` with googlecloudsdk.core.yaml, which parses YAML 1.1 (ruamel,
``version=1.1``). The strict reader (provider/document) reads YAML 1.2 and refuses the plain
scalars the two versions read differently (``1e-5``, ``yes``, ``010``, ``1:30``, ``1_000``,
``0b101``): in a gcloud config they are not ambiguous, gcloud's reading is what is sent. These
are ruamel's YAML 1.1 rules, checked against gcloud 528 (``1e-5`` is the number 1e-05 there, with
a warning; ``08`` stays a string, not being octal).
"""

from __future__ import annotations

import re

_TRUE = frozenset(["y", "Y", "yes", "Yes", "YES", "on", "On", "ON"])
_FALSE = frozenset(["n", "N", "no", "No", "NO", "off", "Off", "OFF"])
_EXPONENT = re.compile(r"[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+\Z")
_OCTAL = re.compile(r"[-+]?0[0-7_]+\Z")
_BINARY = re.compile(r"[-+]?0b[01_]+\Z")
_SEXAGESIMAL = re.compile(r"[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?\Z")
_DECIMAL = re.compile(r"[-+]?(0|[1-9][0-9_]*)\Z")
_FLOAT = re.compile(r"[-+]?[0-9][0-9_]*\.[0-9_]*([eE][-+][0-9]+)?\Z")

Scalar = bool | int | float | str


def read(text: str) -> Scalar:
    """What YAML 1.1 (gcloud) makes of the plain scalar ``text``."""
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    sign = -1 if text.startswith("-") else 1
    digits = text.lstrip("+-").replace("_", "")
    if _BINARY.match(text):
        return sign * int(digits[2:], 2)
    if _OCTAL.match(text):
        return sign * int(digits, 8)
    if _DECIMAL.match(text):
        return sign * int(digits)
    if _EXPONENT.match(text) or _FLOAT.match(text):
        return sign * float(digits)
    if _SEXAGESIMAL.match(text):
        whole, _, fraction = digits.partition(".")
        value = 0
        for part in whole.split(":"):
            value = value * 60 + int(part)
        return sign * (value + float("0." + fraction)) if fraction or "." in digits else sign * value
    return text
