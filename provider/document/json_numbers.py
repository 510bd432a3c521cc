"""A JSON file's numbers, as JSON reads them: ``1e-07`` is a number there, whatever YAML 1.1 says.

Every spec and request is read by the strict YAML reader, which refuses a plain ``1e-07`` as ambiguous: YAML 1.1
reads it as a string, YAML 1.2 as a number. No JSON reader reads a string there (the REST API reads the number),
and it is the only YAML 1.1 trap valid JSON can hold (leading zeros, ``1:30``, ``yes`` are not JSON). The one
reading for ``trainjobs validate`` of a JSON spec and ``trainjobs convert`` of a JSON body.
"""

from __future__ import annotations

import json
from typing import Any

from provider.core.problem import Problem


def as_json(raw: bytes, data: Any, problems: list[Problem]) -> list[Problem]:
    """``problems`` less the ambiguity refusals, when ``raw`` is JSON whose values are the reader's ``data``."""
    if not any(p.rule == "yaml.ambiguous-scalar" for p in problems):
        return problems
    try:
        same = json.loads(raw) == data
    except ValueError:  # not JSON (UnicodeDecodeError included): YAML's reading stands
        return problems
    return [p for p in problems if p.rule != "yaml.ambiguous-scalar"] if same else problems
