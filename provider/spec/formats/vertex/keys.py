"""The two spellings of Vertex AI's field names: the JSON name (camelCase) and the proto name (snake_case).

``workerPoolSpecs`` marks the REST / gcloud form of a ``CustomJobSpec``, ``worker_pool_specs`` the
Python SDK's (``aiplatform.CustomJob``, seed 004). ``Keys`` reads a camelCase field name in either
style. The markers by which a file is told apart (``jobSpec``, ``studySpec`` ...) are here, each
with both spellings (``spellings``, ``written``): the REST API reads a field by either name
(protobuf's JSON mapping), and ``CustomJob.to_dict()`` writes the proto names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from provider.core.names import snake as snake  # re-exported: the spellings' readers import it from here

CAMEL_MARKER = "workerPoolSpecs"
SNAKE_MARKER = "worker_pool_specs"
JOB_SPEC = "jobSpec"  # a CustomJob: the CustomJobSpec under it, the job's own fields beside it
STUDY_MARKER = "studySpec"  # a HyperparameterTuningJob body (provider/spec/formats/vertex_tuning)
TRIAL = "trialJobSpec"

_CAMEL_WORD = re.compile(r"\b[a-z]+(?:[A-Z][a-z0-9]*)+\b")  # a field's JSON name in prose: machineSpec




class Keys:
    """Reads camelCase field names from a body written in either style."""

    def __init__(self, snake_case: bool) -> None:
        self.snake_case = snake_case

    def __call__(self, camel: str) -> str:
        return snake(camel) if self.snake_case else camel


def is_snake_case(spec: Mapping[str, Any]) -> bool:
    """Whether ``spec`` is written in the SDK's snake_case (it wins when both markers are present)."""
    return SNAKE_MARKER in spec


def spellings(camel: str) -> tuple[str, ...]:
    """A field's names: ``("jobSpec", "job_spec")``; one where they are the same (``labels``)."""
    return tuple(dict.fromkeys((camel, snake(camel))))


def written(data: Mapping[str, Any], camel: str) -> str | None:
    """The name ``data`` gives the field ``camel`` (its JSON name first), or None."""
    return next((key for key in spellings(camel) if key in data), None)


def in_spelling(text: str, snake_case: bool) -> str:
    """``text`` (a schema's description) naming fields as a body of that spelling names them."""
    return _CAMEL_WORD.sub(lambda m: snake(m.group(0)), text) if snake_case else text
