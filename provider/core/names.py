"""A field's proto name from its JSON name: the one home of protobuf's camelCase -> snake_case rule."""

from __future__ import annotations

import re
from functools import cache

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


@cache
def snake(name: str) -> str:
    """``"workerPoolSpecs"`` -> ``"worker_pool_specs"``."""
    return _CAMEL.sub("_", name).lower()
