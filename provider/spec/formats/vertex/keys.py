"""The two spellings of a Vertex AI ``CustomJobSpec``: REST camelCase and the SDK's snake_case.

``workerPoolSpecs`` marks the REST / gcloud form, ``worker_pool_specs`` the Python SDK's
(``aiplatform.CustomJob``, seed 004). ``Keys`` reads a camelCase field name in either style.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

CAMEL_MARKER = "workerPoolSpecs"
SNAKE_MARKER = "worker_pool_specs"

_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


@cache
def snake(name: str) -> str:
    """``"workerPoolSpecs"`` -> ``"worker_pool_specs"``."""
    return _CAMEL.sub("_", name).lower()


class Keys:
    """Reads camelCase field names from a body written in either style."""

    def __init__(self, snake_case: bool) -> None:
        self.snake_case = snake_case

    def __call__(self, camel: str) -> str:
        return snake(camel) if self.snake_case else camel


def is_snake_case(spec: Mapping[str, Any]) -> bool:
    """Whether ``spec`` is written in the SDK's snake_case (it wins when both markers are present)."""
    return SNAKE_MARKER in spec
