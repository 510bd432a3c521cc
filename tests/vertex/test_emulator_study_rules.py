"""The emulator holds a tuning job's study to the rules `trainjobs validate` holds it to, with its words.

The body reaches the emulator through the real google-cloud-aiplatform clients over REST (the
low-level JobServiceClient, and the high-level ``aiplatform.HyperparameterTuningJob`` with its
``hpt`` parameter classes). The expected text is not restated: it is what the validator says of
the same body written as a spec file (provider.validation), so the emulator and `validate` share
one function and one set of messages.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from provider.emulator.server import Emulator
from provider.validation.validator import validate_bytes
from tests.vertex.conftest import BUCKET, LOCATION, PARENT, PROJECT

IMAGE = "us-docker.pkg.dev/acme-vision/train/trainer:1"
TRIAL: dict[str, Any] = {"workerPoolSpecs": [{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
                                              "containerSpec": {"imageUri": IMAGE}}]}
BODY: dict[str, Any] = {
    "displayName": "tune", "maxTrialCount": 4, "parallelTrialCount": 2, "trialJobSpec": TRIAL,
    "studySpec": {"metrics": [{"metricId": "accuracy", "goal": "MAXIMIZE"}],
                  "parameters": [{"parameterId": "lr", "doubleValueSpec": {"minValue": 0.001, "maxValue": 0.1},
                                  "scaleType": "UNIT_LOG_SCALE"}],
                  "algorithm": "RANDOM_SEARCH"},
}


def _create(client: Any, body: dict[str, Any]) -> Any:
    from google.cloud import aiplatform_v1

    return client.create_hyperparameter_tuning_job(
        parent=PARENT, hyperparameter_tuning_job=aiplatform_v1.HyperparameterTuningJob.from_json(json.dumps(body)))


def _refused(client: Any, body: dict[str, Any]) -> dict[str, str]:
    from google.api_core.exceptions import BadRequest

    with pytest.raises(BadRequest) as caught:
        _create(client, body)
    error = caught.value.response.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    return {v["field"]: v["description"] for d in error.get("details", []) for v in d.get("fieldViolations", [])}


def _validate_says(body: dict[str, Any]) -> list[str]:
    """What `trainjobs validate` says of the body as a spec file, each error as the emulator words it."""
    doc = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "tune"},
           "spec": {"region": LOCATION, **body}}
    result = validate_bytes(yaml.safe_dump(doc).encode(), "tune.yaml")
    return [p.message + (f" (allowed: {p.allowed})" if p.allowed else "") for p in result.problems if p.is_error]


@pytest.mark.parametrize(("change", "field"), [
    (lambda b: b["studySpec"]["metrics"][0].update(metricId="val acc"), "study_spec.metrics[0].metric_id"),
    (lambda b: b["studySpec"]["parameters"][0]["doubleValueSpec"].update(minValue=0),
     "study_spec.parameters[0].scale_type"),
    (lambda b: b["studySpec"].update(algorithm="GRID_SEARCH"), "study_spec.algorithm"),
    (lambda b: b["studySpec"]["parameters"].append(copy.deepcopy(b["studySpec"]["parameters"][0])),
     "study_spec.parameters[1].parameter_id"),
], ids=["metric-id-whitespace", "log-scale-over-zero", "grid-over-double", "parameter-twice"])
def test_the_study_is_refused_where_validate_refuses_it_with_the_same_words(
        client: Any, change: Any, field: str) -> None:
    body = copy.deepcopy(BODY)
    change(body)
    expected = _validate_says(body)
    assert expected  # the rule fires in validate
    found = _refused(client, body)
    assert field in found, found
    assert found[field] in expected


def test_a_study_validate_accepts_is_created(client: Any) -> None:
    assert _validate_says(BODY) == []
    job = _create(client, BODY)
    assert job.display_name == "tune" and job.study_spec.parameters[0].parameter_id == "lr"


def test_a_failed_count_above_the_trial_count_is_created_as_validate_accepts_it(client: Any) -> None:
    # no Google document bounds maxFailedTrialCount: validate warns (never reached), and the emulator creates it
    body = {**copy.deepcopy(BODY), "maxFailedTrialCount": 9}
    assert _validate_says(body) == []
    assert _create(client, body).max_failed_trial_count == 9


def test_what_the_api_requires_is_named_before_the_study_is_read(client: Any) -> None:
    body = copy.deepcopy(BODY)
    del body["maxTrialCount"]
    assert _refused(client, body) == {"max_trial_count": "Required field is not set."}


@pytest.fixture
def sdk(emulator: Emulator) -> Iterator[Any]:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform
    from google.cloud.aiplatform import initializer

    aiplatform.init(project=PROJECT, location=LOCATION, api_endpoint=emulator.endpoint, api_transport="rest",
                    credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
                    staging_bucket=f"gs://{BUCKET}")
    yield aiplatform
    initializer.global_config.__init__()  # type: ignore[misc]  # forget the endpoint for later tests


def test_the_sdks_hyperparameter_tuning_job_meets_the_same_rule(sdk: Any) -> None:
    from google.api_core.exceptions import BadRequest
    from google.cloud.aiplatform import hyperparameter_tuning as hpt

    pools = [{"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
              "container_spec": {"image_uri": IMAGE}}]
    custom = sdk.CustomJob(display_name="trial", worker_pool_specs=pools)
    job = sdk.HyperparameterTuningJob(
        display_name="tune", custom_job=custom, metric_spec={"accuracy": "maximize"},
        parameter_spec={"lr": hpt.DoubleParameterSpec(min=0, max=0.1, scale="log")},
        max_trial_count=4, parallel_trial_count=2, search_algorithm="random")
    with pytest.raises(BadRequest) as caught:
        job.run(sync=True)
    error = caught.value.response.json()["error"]
    found = {v["field"]: v["description"] for d in error.get("details", []) for v in d.get("fieldViolations", [])}
    assert "uses UNIT_LOG_SCALE but its range includes 0" in found["study_spec.parameters[0].scale_type"]
