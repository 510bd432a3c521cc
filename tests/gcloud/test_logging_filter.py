"""The Cloud Logging filter subset the emulator understands: what gcloud's log streaming writes."""

from __future__ import annotations

import pytest

from provider.emulator.errors import ApiError
from provider.emulator.logging_api import parse_filter

ENTRY = {"resource": {"type": "ml_job", "labels": {"job_id": "42", "task_name": "workerpool0-0"}},
         "timestamp": "2026-01-01T00:00:00.000002Z", "insertId": "workerpool0-0-000000001"}


@pytest.mark.parametrize(("text", "matches"), [
    ('resource.type="ml_job" AND resource.labels.job_id="42"', True),
    ('resource.type="ml_job" AND resource.labels.job_id="43"', False),
    ('resource.labels.task_name="workerpool1-0"', False),
    ('timestamp>="1970-01-01T00:00:00Z" AND timestamp<"2026-01-01T00:00:05.000000+00:00"', True),
    ('timestamp>"2026-01-01T00:00:00.000002Z"', False),
    ('((timestamp="2026-01-01T00:00:00.000002Z" AND insertId>"workerpool0-0-000000000") '
     'OR timestamp>"2026-01-01T00:00:00.000002Z")', True),
    ('((timestamp="2026-01-01T00:00:00.000002Z" AND insertId>"workerpool0-0-000000001") '
     'OR timestamp>"2026-01-01T00:00:00.000002Z")', False),
])
def test_the_filters_gcloud_writes(text: str, matches: bool) -> None:
    assert parse_filter(text)(ENTRY) is matches


@pytest.mark.parametrize("text", ['resource.type=ml_job', '(resource.type="ml_job"', 'severity>=ERROR'])
def test_what_is_not_understood_is_an_invalid_argument(text: str) -> None:
    with pytest.raises(ApiError):
        parse_filter(text)
