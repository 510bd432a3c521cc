"""Today's Vertex AI job fields reach the emulator's validation, through the SDK as users send them.

``aiplatform.CustomJob(...).submit(...)`` puts reservationAffinity in a pool's machine_spec and
persistent_resource_id, enable_web_access, network, tensorboard, service_account and
scheduling.disable_retries in the job spec; the emulator must check them with
the project's rules (refusing what Vertex AI refuses, with Google's snake_case field path) and
keep them in the job it serves. Fields the SDK's CustomJob cannot send (reservedIpRanges) or would
refuse before sending are posted with the low-level JobServiceClient.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest

from provider.emulator.server import Emulator
from tests.vertex.conftest import BUCKET, LOCATION, PARENT, PROJECT

IMAGE = "us-docker.pkg.dev/acme-vision/train/trainer:1"
RESERVATION = f"projects/{PROJECT}/zones/us-central1-a/reservations/team-a100"
TENSORBOARD = f"projects/{PROJECT}/locations/{LOCATION}/tensorboards/123"
SERVICE_ACCOUNT = f"trainer@{PROJECT}.iam.gserviceaccount.com"
NETWORK = "projects/123456/global/networks/team-vpc"


def pools(affinity: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    machine: dict[str, Any] = {"machine_type": "n1-standard-4"}
    if affinity is not None:
        machine["reservation_affinity"] = affinity
    return [{"machine_spec": machine, "replica_count": 1, "container_spec": {"image_uri": IMAGE}}]


@pytest.fixture
def sdk(emulator: Emulator) -> Iterator[Any]:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform
    from google.cloud.aiplatform import initializer

    aiplatform.init(project=PROJECT, location=LOCATION, api_endpoint=emulator.endpoint, api_transport="rest",
                    credentials=AnonymousCredentials(), staging_bucket=f"gs://{BUCKET}")
    yield aiplatform
    initializer.global_config.__init__()  # type: ignore[misc]  # forget the endpoint for later tests


def violations(caught: pytest.ExceptionInfo[Exception]) -> dict[str, str]:
    error = caught.value.response.json()["error"]  # type: ignore[attr-defined]
    assert error["status"] == "INVALID_ARGUMENT"
    return {v["field"]: v["description"] for d in error.get("details", []) for v in d.get("fieldViolations", [])}


def test_every_new_field_is_accepted_and_kept(sdk: Any, emulator: Emulator) -> None:
    affinity = {"reservation_affinity_type": "SPECIFIC_RESERVATION",
                "key": "compute.googleapis.com/reservation-name", "values": [RESERVATION]}
    from tests.vertex.test_emulator_persistent import create_running

    emulator.persistent.provision_seconds = 0.0
    create_running(emulator, "team-pool", {"resourcePools": [{"machineSpec": {"machineType": "n1-standard-4"},
                                                              "replicaCount": "1"}]})  # jobs need a RUNNING one
    tensorboard = sdk.Tensorboard.create(display_name="board").resource_name  # a job's tensorboard must exist
    job = sdk.CustomJob(display_name="all-fields", worker_pool_specs=pools(affinity))
    job.submit(service_account=SERVICE_ACCOUNT, network=NETWORK, tensorboard=tensorboard, enable_web_access=True,
               persistent_resource_id="team-pool", disable_retries=True)
    served = emulator.jobs.get("customJobs", PARENT, job.resource_name.rsplit("/", 1)[1])
    spec = served["jobSpec"]
    assert spec["workerPoolSpecs"][0]["machineSpec"]["reservationAffinity"] == {
        "reservationAffinityType": "SPECIFIC_RESERVATION", "key": "compute.googleapis.com/reservation-name",
        "values": [RESERVATION]}
    assert (spec["network"], spec["tensorboard"]) == (NETWORK, tensorboard)
    assert spec["enableWebAccess"] is True and spec["persistentResourceId"] == "team-pool"
    assert spec["scheduling"]["disableRetries"] is True and spec["serviceAccount"] == SERVICE_ACCOUNT


@pytest.mark.parametrize(("affinity", "why"), [
    ({"reservation_affinity_type": "SPECIFIC_RESERVATION"}, "SPECIFIC_RESERVATION needs key and values"),
    ({"reservation_affinity_type": "SPECIFIC_RESERVATION", "key": "zone", "values": [RESERVATION]},
     "SPECIFIC_RESERVATION needs key and values"),
    ({"reservation_affinity_type": "ANY_RESERVATION", "values": [RESERVATION]}, "ANY_RESERVATION takes no key or values"),
])
def test_a_bad_reservation_affinity_is_refused(sdk: Any, affinity: dict[str, Any], why: str) -> None:
    from google.api_core.exceptions import BadRequest

    with pytest.raises(BadRequest, match=why) as caught:
        sdk.CustomJob(display_name="bad-affinity", worker_pool_specs=pools(affinity)).submit()
    assert "job_spec.worker_pool_specs[0].machine_spec.reservation_affinity" in violations(caught)


def raw(client: Any, body: dict[str, Any]) -> Any:
    from google.cloud import aiplatform_v1

    return client.create_custom_job(parent=PARENT, custom_job=aiplatform_v1.CustomJob.from_json(json.dumps(body)))


RAW: dict[str, Any] = {"displayName": "raw", "jobSpec": {"serviceAccount": SERVICE_ACCOUNT, "workerPoolSpecs": [{
    "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1", "containerSpec": {"imageUri": IMAGE}}]}}


def test_reserved_ranges_need_their_network(client: Any) -> None:
    from google.api_core.exceptions import BadRequest

    ranges = copy.deepcopy(RAW)
    ranges["jobSpec"]["reservedIpRanges"] = ["vertex-ai-range"]
    with pytest.raises(BadRequest, match="no network is set") as caught:
        raw(client, ranges)
    assert list(violations(caught)) == ["job_spec.reserved_ip_ranges"]
    ranges["jobSpec"]["network"] = NETWORK
    job = raw(client, ranges)
    assert list(job.job_spec.reserved_ip_ranges) == ["vertex-ai-range"] and job.job_spec.network == NETWORK


def test_what_the_sdk_would_not_send_is_refused_too(client: Any) -> None:
    """An experiment run without its experiment, and both tensorboard and experiment, posted as REST bodies."""
    from google.api_core.exceptions import BadRequest

    store = f"projects/{PROJECT}/locations/{LOCATION}/metadataStores/default/contexts"
    base = RAW
    run_only = copy.deepcopy(base)
    run_only["jobSpec"]["experimentRun"] = f"{store}/exp-run-1"
    both = copy.deepcopy(base)
    both["jobSpec"].update(experiment=f"{store}/exp", tensorboard=TENSORBOARD)
    for body, field, why in ((run_only, "job_spec.experiment_run", "no experiment is set"),
                             (both, "job_spec.tensorboard", "cannot be set together")):
        with pytest.raises(BadRequest, match=why) as caught:
            raw(client, body)
        assert field in violations(caught)


def test_a_tuning_jobs_trial_spec_is_checked_the_same_way(client: Any) -> None:
    from google.api_core.exceptions import BadRequest
    from google.cloud import aiplatform_v1

    trial = copy.deepcopy(RAW["jobSpec"])
    trial["workerPoolSpecs"][0]["machineSpec"]["reservationAffinity"] = {"reservationAffinityType": "SPECIFIC_RESERVATION"}
    body = {"displayName": "tuned", "maxTrialCount": 2, "parallelTrialCount": 1, "trialJobSpec": trial,
            "studySpec": {"metrics": [{"metricId": "loss", "goal": "MINIMIZE"}],
                          "parameters": [{"parameterId": "lr", "doubleValueSpec": {"minValue": 0.001, "maxValue": 0.1}}]}}
    with pytest.raises(BadRequest, match="SPECIFIC_RESERVATION needs key and values") as caught:
        client.create_hyperparameter_tuning_job(parent=PARENT, hyperparameter_tuning_job=(
            aiplatform_v1.HyperparameterTuningJob.from_json(json.dumps(body))))
    assert list(violations(caught)) == ["trial_job_spec.worker_pool_specs[0].machine_spec.reservation_affinity"]
