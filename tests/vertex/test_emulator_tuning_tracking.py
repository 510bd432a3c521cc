"""A tuning job's ties to TensorBoard and experiments (provider/emulator/job_tracking.py), as raw API
callers send them: ``trialJobSpec.tensorboard``, ``experiment`` and ``experimentRun``, through the
real gapic JobServiceClient over REST (the SDK's HyperparameterTuningJob.run has no experiment
parameter). What they name must exist before the job is created, as a CustomJob's must.
"""

from __future__ import annotations

import contextlib
import copy
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from provider.emulator.server import Emulator
from provider.packaging.gcs import GcsStager, gcs_client
from provider.packaging.stage import stage
from tests.vertex.conftest import BUCKET, JOB_TIMEOUT, LOCATION, PARENT, PROJECT, ROOT, TRACKED_ACCOUNT

pytestmark = pytest.mark.slow

IMAGE = "us-docker.pkg.dev/acme-vision/train/trainer:1"  # no container engine here: created, then FAILED
STORE = f"{PARENT}/metadataStores/default"
EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest"
TRACKED_TRIAL = ROOT / "tests" / "fixtures" / "trainers" / "tracked_trial"  # logs to its trial's run
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
    # No container engine here: the job failed before any trial started, so the runs made for its
    # trials are gone, and the experiment lists none.
    assert job.state.name == "JOB_STATE_FAILED" and not job.trials
    assert [c.name for c in _metadata(emulator).list_contexts(parent=STORE)] == [experiment]


@pytest.fixture
def sdk(emulator: Emulator) -> Iterator[Any]:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform
    from google.cloud.aiplatform import initializer
    from google.cloud.aiplatform.metadata import metadata

    aiplatform.init(project=PROJECT, location=LOCATION, api_endpoint=emulator.endpoint, api_transport="rest",
                    credentials=AnonymousCredentials())
    yield aiplatform
    metadata._experiment_tracker.__init__()  # type: ignore[misc]  # reset() keeps the global tensorboard
    initializer.global_config.__init__()  # type: ignore[misc]  # forget the endpoint for later tests


def test_each_trial_in_an_experiment_logs_to_its_own_run(sdk: Any, emulator: Emulator, client: Any) -> None:
    """trialJobSpec.experiment without a run: each trial gets the run ``{job ID}-{trial ID}``
    (AIP_EXPERIMENT_RUN_NAME), its trainer's log_params and log_metrics land there, and the run
    ends with its trial."""
    from google.cloud import aiplatform_v1

    sdk.init(experiment="tuned")
    uri = f"gs://{BUCKET}/packages/tracked_trial.tar.gz"
    stage(TRACKED_TRIAL, uri, GcsStager(gcs_client(PROJECT, emulator.endpoint)))
    site = str(Path(sdk.__file__).parents[3])  # where the SDK is installed, given to the trainer
    body = copy.deepcopy(BODY)
    body["trialJobSpec"] = {"serviceAccount": TRACKED_ACCOUNT, "experiment": f"{STORE}/contexts/tuned",
                            "workerPoolSpecs": [{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
                                                 "pythonPackageSpec": {
                                                     "executorImageUri": EXECUTOR, "packageUris": [uri],
                                                     "pythonModule": "tracked_trial.task",
                                                     "env": [{"name": "SDK_SITE", "value": site}]}}]}
    body.update(maxTrialCount=2, parallelTrialCount=2)
    body["studySpec"]["metrics"] = [{"metricId": "score", "goal": "MAXIMIZE"}]
    job = client.create_hyperparameter_tuning_job(
        parent=PARENT, hyperparameter_tuning_job=aiplatform_v1.HyperparameterTuningJob.from_json(json.dumps(body)))
    deadline = time.monotonic() + JOB_TIMEOUT
    while job.state.name not in ("JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED") and time.monotonic() < deadline:
        time.sleep(0.2)
        job = client.get_hyperparameter_tuning_job(name=job.name)
    job_id = job.name.rsplit("/", 1)[1]
    logs = "\n".join(p.read_text() for p in sorted(emulator.local.store.job_dir(job_id).rglob("*.log")))
    assert job.state.name == "JOB_STATE_SUCCEEDED", (job.error, logs)
    assert sorted(t.id for t in job.trials) == ["1", "2"]
    for trial in job.trials:
        run = sdk.ExperimentRun(f"{job_id}-{trial.id}", experiment="tuned")
        assert run.resource_name == f"{STORE}/contexts/tuned-{job_id}-{trial.id}"
        lr = trial.parameters[0].value
        assert run.get_params() == {"lr": pytest.approx(lr)}, logs
        assert run.get_metrics() == {"score": pytest.approx(-((lr - 0.01) ** 2))}
        assert run.get_state() == "COMPLETE"  # ended with its trial: the job was read once it had
        assert f'"AIP_EXPERIMENT_RUN_NAME": "{run.resource_name}"' in logs
    # the SDK lists them as it lists any experiment's runs (each run's TensorBoard assigned in threads at once)
    assert sorted(r.name for r in sdk.ExperimentRun.list(experiment="tuned")) == [f"{job_id}-{t}" for t in (1, 2)]
    runs = [c for c in _metadata(emulator).list_contexts(parent=STORE) if c.schema_title == "system.ExperimentRun"]
    assert sorted((c.name, c.parent_contexts[0]) for c in runs) == [
        (f"{STORE}/contexts/tuned-{job_id}-{t}", f"{STORE}/contexts/tuned") for t in (1, 2)]
