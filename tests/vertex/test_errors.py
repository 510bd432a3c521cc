"""Errors through the real client: the emulator's validation answers, and Google's 403/429/503.

The 403, 429 and 503 answers come from a tiny scripted server in Google's error format (the
emulator itself never pretends to deny permission or run out of quota).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from provider.backends.base import (
    InvalidArgument,
    JobState,
    NotFound,
    PermissionDenied,
    QuotaExceeded,
    Submission,
    Unavailable,
)
from provider.backends.polling import Backoff
from provider.backends.vertex import VertexBackend
from provider.backends.vertex.states import STATE_TABLE, VERTEX_STATE_NAMES, to_job_state, to_vertex
from provider.core.vertex_request import VertexRequest
from provider.emulator.server import Emulator
from tests.vertex.conftest import FAST_POLL, FAST_RETRY, LOCATION, PARENT, PROJECT
from tests.vertex.fakes import Reply, ScriptedServer, google_error

CONTAINER = {"imageUri": "us-docker.pkg.dev/my-project/repo/trainer:1"}


def custom_job(machine: dict[str, Any], name: str = "bad-job") -> Submission:
    body = {"displayName": name, "jobSpec": {"workerPoolSpecs": [
        {"machineSpec": machine, "replicaCount": "1", "containerSpec": CONTAINER}]}}
    return Submission(VertexRequest("CustomJob", PARENT, body))


def job_json(job_id: str = "123", state: int = 3) -> dict[str, Any]:
    return {"name": f"{PARENT}/customJobs/{job_id}", "displayName": "ok", "state": state,
            "createTime": "2026-01-01T00:00:00Z"}


def scripted_backend(server: ScriptedServer) -> VertexBackend:
    return VertexBackend(PROJECT, LOCATION, api_endpoint=server.endpoint, retry=FAST_RETRY, poll=FAST_POLL)


# -- the emulator's own answers --------------------------------------------------------------------
def test_an_invalid_accelerator_count_echoes_googles_message(backend: VertexBackend, client: Any) -> None:
    from google.api_core.exceptions import BadRequest
    from google.cloud import aiplatform_v1

    submission = custom_job({"machineType": "g2-standard-8", "acceleratorType": "NVIDIA_L4", "acceleratorCount": 2})
    text = ('The accelerator count "2" is not allowed. The allowed numbers of accelerator "NVIDIA_L4" to use with '
            'machine type "g2-standard-8" are: [1].')
    with pytest.raises(InvalidArgument) as caught:
        backend.submit(submission)
    assert caught.value.message == f"Vertex AI refused to create customJobs in project {PROJECT!r} ({LOCATION}): {text}"
    with pytest.raises(BadRequest) as raw:
        client.create_custom_job(parent=PARENT, custom_job=aiplatform_v1.CustomJob.from_json(
            __import__("json").dumps(submission.request.body)))
    assert raw.value.code == 400
    assert raw.value.details == [{"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": [
        {"field": "job_spec.worker_pool_specs[0].machine_spec.accelerator_count", "description": text}]}]
    assert backend.list() == []  # nothing was created


@pytest.mark.parametrize(("machine", "text"), [
    ({"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4"},
     "List of found errors:\t1.Field: job_spec.worker_pool_specs[0].machine_spec.accelerator_type; Message: Both "
     "`accelerator_type` and `accelerator_count` should be specified or none.\t"),
    ({"machineType": "n1-standard-4", "acceleratorType": "NVIDIA_TESLA_K80", "acceleratorCount": 1},
     'Accelerator "NVIDIA_TESLA_K80" is not supported for machine type "n1-standard-4"'),
    ({"machineType": "e2-standard-4", "acceleratorType": "NVIDIA_TESLA_T4", "acceleratorCount": 1},
     'Accelerator "NVIDIA_TESLA_T4" is not supported for machine type "e2-standard-4"'),
])
def test_googles_texts_for_the_known_cases(backend: VertexBackend, machine: dict[str, Any], text: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        backend.submit(custom_job(machine))
    assert caught.value.message.endswith(f": {text}")


def test_other_problems_carry_the_validators_message(backend: VertexBackend) -> None:
    with pytest.raises(InvalidArgument, match=r"1\.Field: job_spec\.worker_pool_specs\[0\]\.machine_spec\.machine_type; "
                                              r"Message: 'n1-standard-9' is not allowed for machineType"):
        backend.submit(custom_job({"machineType": "n1-standard-9"}))


def test_an_unknown_job_is_not_found(backend: VertexBackend, client: Any) -> None:
    from google.api_core.exceptions import NotFound as GoogleNotFound

    with pytest.raises(NotFound, match="no Vertex AI job '1234567890'"):
        backend.get("1234567890")
    with pytest.raises(NotFound):
        backend.cancel(f"{PARENT}/customJobs/1234567890")
    with pytest.raises(GoogleNotFound, match=f"The CustomJob {PARENT}/customJobs/42 does not exist"):
        client.get_custom_job(name=f"{PARENT}/customJobs/42")
    with pytest.raises(InvalidArgument, match="is not a Vertex AI job id"):
        backend.get("12;34")
    with pytest.raises(InvalidArgument, match="is not a job resource name"):
        backend.get(f"projects/{PROJECT}/locations/../customJobs/1")


# -- Google's answers, from the scripted server -------------------------------------------------------
def test_permission_denied_names_the_project_and_the_role(scripted: ScriptedServer) -> None:
    message = f"Permission 'aiplatform.customJobs.create' denied on resource '//aiplatform.googleapis.com/{PARENT}'"
    scripted.script = [google_error(403, "PERMISSION_DENIED", message, reason="IAM_PERMISSION_DENIED")]
    with pytest.raises(PermissionDenied) as caught:
        scripted_backend(scripted).submit(custom_job({"machineType": "n1-standard-4"}, "allowed"))
    text = caught.value.message
    assert message in text and f"project {PROJECT!r}" in text
    assert "aiplatform.customJobs.create" in text and "roles/aiplatform.user" in text
    assert len(scripted.seen) == 1  # not retried


def test_unauthenticated_says_how_to_log_in(scripted: ScriptedServer) -> None:
    # On a 401 google-auth refreshes the credentials and tries again; anonymous ones cannot refresh.
    scripted.script = [google_error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")]
    with pytest.raises(PermissionDenied, match="gcloud auth application-default login"):
        scripted_backend(scripted).get("123")
    assert len(scripted.seen) == 1


def test_no_credentials_at_all_says_how_to_log_in(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(tmp_path))  # an empty gcloud config
    monkeypatch.setenv("NO_GCE_CHECK", "true")  # not on Google Compute Engine: no metadata server
    with pytest.raises(PermissionDenied, match=r"no Google credentials to reach Vertex AI at "
                                               r"us-central1-aiplatform\.googleapis\.com .*gcloud auth"):
        VertexBackend(PROJECT, LOCATION).get("123")


def test_a_quota_is_not_retried(scripted: ScriptedServer) -> None:
    message = ("The following quota metrics exceed quota limits: "
               "aiplatform.googleapis.com/custom_model_training_nvidia_t4_gpus")
    scripted.script = [google_error(429, "RESOURCE_EXHAUSTED", message)]
    with pytest.raises(QuotaExceeded) as caught:
        scripted_backend(scripted).submit(custom_job({"machineType": "n1-standard-4"}, "quota"))
    assert message in caught.value.message and "Quotas" in caught.value.message
    assert len(scripted.seen) == 1


def test_a_rate_limit_is_retried(scripted: ScriptedServer) -> None:
    scripted.script = [google_error(429, "RESOURCE_EXHAUSTED", "Quota exceeded for quota metric 'Job requests' and "
                                    "limit 'Job requests per minute'", reason="RATE_LIMIT_EXCEEDED"),
                       Reply(200, job_json())]
    assert scripted_backend(scripted).get(f"{PARENT}/customJobs/123").state is JobState.RUNNING
    assert len(scripted.seen) == 2


@pytest.mark.parametrize(("code", "status"), [(503, "UNAVAILABLE"), (500, "INTERNAL"), (504, "DEADLINE_EXCEEDED")])
def test_a_transient_error_then_success_is_retried(scripted: ScriptedServer, code: int, status: str) -> None:
    scripted.script = [google_error(code, status, "try again"), Reply(200, job_json(state=4))]
    assert scripted_backend(scripted).get(f"{PARENT}/customJobs/123").state is JobState.SUCCEEDED
    assert [s.method for s in scripted.seen] == ["GET", "GET"]


def test_transient_errors_end_unavailable_after_the_retries(scripted: ScriptedServer) -> None:
    scripted.script = [google_error(503, "UNAVAILABLE", "The service is currently unavailable.")] * 10
    with pytest.raises(Unavailable, match="after retries: The service is currently unavailable"):
        scripted_backend(scripted).get(f"{PARENT}/customJobs/123")
    assert len(scripted.seen) == FAST_RETRY.attempts


def test_an_unreachable_endpoint_is_unavailable() -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    backend = VertexBackend(PROJECT, LOCATION, api_endpoint=f"http://127.0.0.1:{port}", retry=FAST_RETRY)
    with pytest.raises(Unavailable, match=f"cannot reach Vertex AI at http://127.0.0.1:{port}"):
        backend.list()


def test_backoff_grows_to_its_maximum_with_bounded_jitter() -> None:
    backoff = Backoff(initial=1.0, multiplier=2.0, maximum=8.0, attempts=5, jitter=0.5)
    delays = backoff.delays(random.Random(7))
    got = [next(delays) for _ in range(6)]
    for delay, ceiling in zip(got, [1, 2, 4, 8, 8, 8]):
        assert ceiling * 0.5 <= delay <= ceiling
    exact = Backoff(initial=1.0, multiplier=3.0, maximum=10.0, jitter=0.0).delays()
    assert [next(exact) for _ in range(4)] == [1.0, 3.0, 9.0, 10.0]


# -- the state table ------------------------------------------------------------------------------
def test_every_vertex_state_has_a_row_and_the_names_match_the_sdk() -> None:
    from google.cloud import aiplatform_v1

    assert [(s.name, s.value) for s in aiplatform_v1.JobState] == list(zip(VERTEX_STATE_NAMES, range(12)))
    assert set(STATE_TABLE) == set(VERTEX_STATE_NAMES)
    for state in JobState:
        assert to_job_state(state.vertex) is state  # each shared state's twin maps back to it
        assert VERTEX_STATE_NAMES[to_vertex(state)] == state.vertex
    assert to_job_state(0) is JobState.QUEUED  # UNSPECIFIED
    assert to_job_state("JOB_STATE_PAUSED") is JobState.QUEUED
    assert to_job_state(10) is JobState.RUNNING  # UPDATING
    assert to_job_state("JOB_STATE_EXPIRED") is JobState.CANCELLED
    assert to_job_state(11) is JobState.FAILED  # PARTIALLY_SUCCEEDED
    with pytest.raises(ValueError, match="unknown Vertex AI job state 12"):
        to_job_state(12)


def test_an_untwinned_state_is_reported_as_vertex_said(scripted: ScriptedServer) -> None:
    scripted.script = [Reply(200, job_json(state=9))]
    status = scripted_backend(scripted).get(f"{PARENT}/customJobs/123")
    assert status.state is JobState.CANCELLED
    assert status.message == "Vertex AI reports JOB_STATE_EXPIRED"
    assert status.extra["vertex_state"] == "JOB_STATE_EXPIRED"


def test_the_emulator_is_not_involved_in_scripted_answers(emulator: Emulator) -> None:
    assert emulator.store.newest_first() == []
