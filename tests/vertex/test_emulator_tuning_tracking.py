"""A tuning job's ties to TensorBoard and experiments (provider/emulator/job_tracking.py), as raw API
callers send them: ``trialJobSpec.tensorboard``, ``experiment`` and ``experimentRun``, through the
real gapic JobServiceClient over REST (the SDK's HyperparameterTuningJob.run has no experiment
parameter). What they name must exist before the job is created, as a CustomJob's must.
"""

from __future__ import annotations

import contextlib
import copy
import json
from typing import Any

import pytest

from provider.emulator.server import Emulator
from tests.vertex.conftest import PARENT, TRACKED_ACCOUNT

pytestmark = pytest.mark.slow

IMAGE = "us-docker.pkg.dev/acme-vision/train/trainer:1"  # no container engine here: created, then FAILED
STORE = f"{PARENT}/metadataStores/default"
BODY: dict[str, Any] = {
    "displayName": "tuned", "maxTrialCount": 2, "parallelTrialCount": 1,
    "trialJobSpec": {"serviceAccount": TRACKED_ACCOUNT, "workerPoolSpecs": [{
        "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1", "containerSpec": {"imageUri": IMAGE}}]},
    "studySpec": {"metrics": [{"metricId": "loss", "goal": "MINIMIZE"}],
                  "parameters": [{"parameterId": "lr", "doubleValueSpec": {"minValue": 0.001, "maxValue": 0.1}}]},
}


def _create(client: Any, trial_fields: dict[str, str]) -> Any:
    from google.cloud import aiplatform_v1

    body = copy.deepcopy(BODY)
    body["trialJobSpec"].update(trial_fields)
    return client.create_hyperparameter_tuning_job(
        parent=PARENT, hyperparameter_tuning_job=aiplatform_v1.HyperparameterTuningJob.from_json(json.dumps(body)))


def _metadata(emulator: Emulator) -> Any:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1

    return aiplatform_v1.MetadataServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                               client_options={"api_endpoint": emulator.endpoint})


def _experiment(emulator: Emulator, experiment_id: str) -> str:
    """The default metadata store and an experiment in it (a system.Experiment context), as the SDK makes them."""
    from google.api_core.exceptions import AlreadyExists
    from google.cloud import aiplatform_v1 as v1

    md = _metadata(emulator)
    with contextlib.suppress(AlreadyExists):  # one store per emulator; the second experiment finds it
        md.create_metadata_store(parent=PARENT, metadata_store=v1.MetadataStore(),
                                 metadata_store_id="default").result(timeout=60)
    return str(md.create_context(parent=STORE, context_id=experiment_id, context=v1.Context(
        display_name=experiment_id, schema_title="system.Experiment")).name)


def test_what_a_trial_spec_names_must_exist_before_the_tuning_job_is_created(emulator: Emulator,
                                                                            client: Any) -> None:
    from google.api_core.exceptions import NotFound

    experiment = _experiment(emulator, "tuned")
    cases = [({"tensorboard": f"{PARENT}/tensorboards/404"}, "Tensorboard", "tensorboard"),
             ({"experiment": f"{STORE}/contexts/nowhere"}, "Context", "experiment"),
             ({"experiment": experiment, "experimentRun": f"{STORE}/contexts/tuned-no-run"}, "Context",
              "experiment_run")]
    for fields, message, field in cases:
        with pytest.raises(NotFound) as caught:
            _create(client, fields)
        error = caught.value.response.json()["error"]
        missing = fields.get("experimentRun") or next(iter(fields.values()))
        assert error["status"] == "NOT_FOUND", error
        assert error["message"] == (f"The {message} {missing} named in trial_job_spec.{field} does not exist: create "
                                    "it first (the SDK's aiplatform.init(experiment=...) and start_run do)."), error
    assert list(client.list_hyperparameter_tuning_jobs(parent=PARENT)) == []  # nothing was created or started

    job = _create(client, {"experiment": experiment})  # an experiment that exists: created
    assert job.trial_job_spec.experiment == experiment
    assert [j.name for j in client.list_hyperparameter_tuning_jobs(parent=PARENT)] == [job.name]
