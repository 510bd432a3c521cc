"""Idempotent submission: a job's identity label makes a second submission adopt the first job.

Vertex AI itself (and so the emulator) creates a new job for every create call; adoption is
the backend's doing, proven here by the emulator creating two jobs when asked twice directly.
"""

from __future__ import annotations

import json

import pytest

from provider.backends.base import IDENTITY_LABEL, JobState
from provider.backends.vertex import VertexBackend
from provider.emulator.server import Emulator
from provider.submission.launch import submission
from tests.vertex.conftest import FAST_POLL, FAST_RETRY, LOCATION, PARENT, PROJECT, probe_spec, request_for
from tests.vertex.fakes import FORWARD, LOSE, ScriptedServer

pytestmark = pytest.mark.slow


def _jobs_with(client: object, identity: str) -> list[str]:
    pager = client.list_custom_jobs(  # type: ignore[attr-defined]
        request={"parent": PARENT, "filter": f'labels.{IDENTITY_LABEL}="{identity}"'})
    return [job.name for job in pager]


def test_submitting_twice_runs_one_job(backend: VertexBackend, emulator: Emulator, client: object) -> None:
    job, request = request_for(emulator, probe_spec("twice", args=["--steps", "1"]), identity="same-id")
    first = backend.submit(submission(job, request))
    second = backend.submit(submission(job, request))
    # A fresh backend, as in a new process after a crash between submit and record:
    third = VertexBackend(PROJECT, LOCATION, api_endpoint=emulator.endpoint).submit(submission(job, request))
    assert first.id == second.id == third.id
    assert _jobs_with(client, "same-id") == [first.name]
    assert backend.wait(first.id, timeout=120).state is JobState.SUCCEEDED
    # Adopting a finished job returns it as it is: it is not run again.
    assert backend.submit(submission(job, request)).state is JobState.SUCCEEDED
    assert _jobs_with(client, "same-id") == [first.name]


def test_the_service_itself_never_adopts(emulator: Emulator, client: object) -> None:
    from google.cloud import aiplatform_v1

    _, request = request_for(emulator, probe_spec("raw_twice", args=["--steps", "1"]), identity="raw-id")
    for _ in range(2):
        client.create_custom_job(  # type: ignore[attr-defined]
            parent=PARENT, custom_job=aiplatform_v1.CustomJob.from_json(json.dumps(request.body)))
    assert len(_jobs_with(client, "raw-id")) == 2


def test_a_create_whose_answer_was_lost_is_adopted_on_retry(emulator: Emulator, client: object) -> None:
    # list (nothing yet) -> create (it happens, but the answer is lost: 503) -> list (finds it): adopt.
    relay = ScriptedServer(script=[FORWARD, LOSE], upstream=emulator.endpoint)
    try:
        backend = VertexBackend(PROJECT, LOCATION, api_endpoint=relay.endpoint, retry=FAST_RETRY, poll=FAST_POLL)
        job, request = request_for(emulator, probe_spec("lost_answer", args=["--steps", "1"]), identity="lost-id")
        status = backend.submit(submission(job, request))
        assert [(s.method, s.path.split("?")[0].rsplit("/", 1)[-1]) for s in relay.seen] == [
            ("GET", "customJobs"), ("POST", "customJobs"), ("GET", "customJobs")]
        assert _jobs_with(client, "lost-id") == [status.name]
        assert backend.wait(status.id, timeout=120).state is JobState.SUCCEEDED
    finally:
        relay.stop()


def test_a_failed_job_is_retried_not_adopted(backend: VertexBackend, emulator: Emulator, client: object) -> None:
    doc = probe_spec("fails_once", args=["--steps", "2", "--fail-replica", "workerpool0-0", "--fail-step", "1"])
    job, request = request_for(emulator, doc, identity="retry-id")
    first = backend.submit(submission(job, request))
    assert backend.wait(first.id, timeout=120).state is JobState.FAILED
    second = backend.submit(submission(job, request))  # `pulumi up` again after the failure
    assert second.id != first.id
    assert sorted(_jobs_with(client, "retry-id")) == sorted([first.name, second.name])
    assert backend.wait(second.id, timeout=120).state is JobState.FAILED
