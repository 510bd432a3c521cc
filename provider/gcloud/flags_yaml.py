"""A plain scalar of a ``--flags-file`` as gcloud reads it: YAML 1.2 resolution, Python's int and float.

gcloud does not read a flags file as it reads a ``--config``: calliope/cli.py loads it with
``yaml.load(contents, location_value=True)``, which is core/yaml_location_value.py's loader: a
ruamel ``YAML()`` with no version, so YAML 1.2's implicit resolvers, and constructors that build
the value with Python's ``int(text)`` and ``float(text)``. Hence (checked against gcloud 528):
``yes``, ``on``, ``1:30`` are strings; ``010`` is 10 (not octal 8); ``1_000`` is 1000; ``1e-5``
is 1e-05; and ``0o17``, ``0x1F``, ``0b101``, ``.inf``, ``.nan``, which YAML 1.2 reads as numbers,
make gcloud fail (``int('0x1F')`` raises): ``Unreadable`` here, a refusal naming the fix.
A number becomes the command line's ``--flag=VALUE`` as Python's ``str`` writes it (``1e-05``,
``10``), as gcloud's ``'{}={}'.format(arg, value)`` does.
"""

from __future__ import annotations

import re

_NULL = frozenset(["", "~", "null", "Null", "NULL"])
_BOOL = frozenset(["true", "True", "TRUE", "false", "False", "FALSE"])
_INT = re.compile(r"(?=[-+0-9])[-+]?(0b[01_]+|0o?[0-7_]+|[0-9_]+|0x[0-9a-fA-F_]+)\Z")
_FLOAT = re.compile(r"([-+]?[0-9][0-9_]*\.[0-9_]*([eE][-+]?[0-9]+)?|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+"
                    r"|[-+]?\.[0-9_]+([eE][-+][0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))\Z")

Scalar = bool | int | float | str | None


class Unreadable(ValueError):
    """A plain scalar YAML 1.2 reads as a number that Python's int or float cannot build: gcloud fails on it."""


def read(text: str) -> Scalar:
    """What gcloud's flags-file loader makes of the plain scalar ``text``; Unreadable where it fails."""
    if text in _NULL:
        return None
    if text in _BOOL:
        return text.lower() == "true"
    try:
        if _INT.match(text):
            return int(text)
        if _FLOAT.match(text):
            return float(text)
    except ValueError:
        raise Unreadable(text) from None
    return text
