"""The Vertex AI request body of a spec written inline (a dict of ``spec:`` fields), checked first."""

from __future__ import annotations

from typing import Any

import yaml

from provider.spec.model import TrainingJob
from provider.submission.request import build_request
from provider.validation.rules import Context
from provider.validation.validator import validate_bytes


def checked_job(spec: dict[str, Any], name: str) -> TrainingJob:
    """The job named ``name`` in us-central1 with these ``spec:`` fields, validated without an error."""
    doc = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": name},
           "spec": {"region": "us-central1", **spec}}
    result = validate_bytes(yaml.safe_dump(doc, sort_keys=False).encode(), "spec.yaml", Context())
    assert result.job is not None and not [p for p in result.problems if p.is_error], result.problems
    return result.job


def request_body(job: TrainingJob) -> dict[str, Any]:
    """The job's request body (project ``p``)."""
    body: dict[str, Any] = build_request(job, "p").body
    return body
