"""get_started_with_vertex_experiments: runs, parameters, metrics, lineage, and a training job's run.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/official/experiments/get_started_with_vertex_experiments.ipynb (cells 28-84). The
trainer (cell 70) is the notebook's own: it only makes Vertex AI calls.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.vertex.notebooks.conftest import (
    BUCKET_URI,
    LOCATION,
    PROJECT_ID,
    Served,
    needs_sdk_wheels,
    write_package,
)

# cell 68's setup.py requires google-cloud-aiplatform: the trainer's pip installs it from the setup's
# wheelhouse, offline (conftest.offline_pip).
pytestmark = pytest.mark.usefixtures("offline_pip")

TRAIN_IMAGE = "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12.py310:latest"
TRAIN_COMPUTE = "n1-standard-4"
SERVICE_ACCOUNT = "trainer@nb-project.iam.gserviceaccount.com"

TASK = '''
import argparse
import os

import google.cloud.aiplatform as aiplatform

parser = argparse.ArgumentParser()
parser.add_argument('--experiment', dest='experiment', required=True, type=str, help='Name of experiment')
parser.add_argument('--run', dest='run', required=True, type=str, help='Name of run within the experiment')
parser.add_argument('--epochs', dest='epochs', default=10, type=int, help='Number of epochs.')
parser.add_argument('--dataset-uri', dest='dataset_uri', required=True, type=str, help='Location of the dataset')
parser.add_argument('--model-dir', dest='model_dir', default=os.getenv("AIP_MODEL_DIR"), type=str,
                    help='Storage location for the model')
args = parser.parse_args()

def get_data(dataset_uri, execution):
    dataset_artifact = aiplatform.Artifact.create(
        schema_title="system.Dataset", display_name="example_dataset", uri=dataset_uri
    )
    execution.assign_input_artifacts([dataset_artifact])
    return None

def get_model():
    return None

def train_model(dataset, model, epochs):
    aiplatform.log_params({"epochs": epochs})
    return model

def save_model(model, model_dir, execution):
    model_artifact = aiplatform.Artifact.create(
        schema_title="system.Model", display_name="example_model", uri=model_dir
    )
    execution.assign_output_artifacts([model_artifact])

aiplatform.init(experiment=args.experiment)
aiplatform.start_run(args.run)

with aiplatform.start_execution(
    schema_title="system.ContainerExecution", display_name="example_training"
) as execution:
    dataset = get_data(args.dataset_uri, execution)
    model = get_model()
    model = train_model(dataset, model, args.epochs)
    save_model(model, args.model_dir, execution)
    aiplatform.log_metrics({"lineage": execution.get_output_artifacts()[0].lineage_console_uri})

aiplatform.end_run()
'''


def test_local_runs_params_metrics_and_delete(aiplatform: Any) -> None:
    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    EXPERIMENT_NAME = f"example-{uuid.uuid1()}"
    aiplatform.init(experiment=EXPERIMENT_NAME)
    aiplatform.start_run("run-1")
    metaparams = {}
    metaparams["units"] = 128
    aiplatform.log_params(metaparams)
    hyperparams: dict[str, Any] = {}
    hyperparams["epochs"] = 100
    hyperparams["batch_size"] = 32
    hyperparams["learning_rate"] = 0.01
    aiplatform.log_params(hyperparams)
    metrics = {}
    metrics["test_acc"] = 98.7
    metrics["train_acc"] = 99.3
    aiplatform.log_metrics(metrics)
    aiplatform.end_run()
    experiment_df = aiplatform.get_experiment_df()
    experiment_df = experiment_df[experiment_df.experiment_name == EXPERIMENT_NAME]
    assert list(experiment_df.run_name) == ["run-1"]

    aiplatform.start_run("run-2")
    metaparams = {}
    metaparams["units"] = 256
    aiplatform.log_params(metaparams)
    aiplatform.log_params(hyperparams)
    metrics = {}
    metrics["test_acc"] = 98.8
    metrics["train_acc"] = 99.5
    aiplatform.log_metrics(metrics)
    aiplatform.end_run()
    experiment_df = aiplatform.get_experiment_df()
    experiment_df = experiment_df[experiment_df.experiment_name == EXPERIMENT_NAME]
    rows = {r["run_name"]: r for r in experiment_df.to_dict("records")}
    assert set(rows) == {"run-1", "run-2"}
    assert rows["run-2"]["param.units"] == 256 and rows["run-1"]["param.units"] == 128
    assert rows["run-2"]["metric.test_acc"] == 98.8 and rows["run-1"]["param.learning_rate"] == 0.01
    assert all(state == "COMPLETE" for state in experiment_df.state)

    exp = aiplatform.Experiment(EXPERIMENT_NAME)
    exp.delete()
    assert EXPERIMENT_NAME not in [e.name for e in aiplatform.Experiment.list()]


def test_artifacts_and_an_execution_in_a_run(aiplatform: Any) -> None:
    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    EXPERIMENT_NAME = f"example-{uuid.uuid1()}"
    aiplatform.init(experiment=EXPERIMENT_NAME)
    aiplatform.start_run("run-1")
    DATASET_URI = "gs://example/dataset.csv"
    MODEL_URI = "gs://example/saved_model.pb"
    dataset_artifact = aiplatform.Artifact.create(
        schema_title="system.Dataset", display_name="example_dataset", uri=DATASET_URI
    )
    model_artifact = aiplatform.Artifact.create(
        schema_title="system.Model", display_name="example_modl", uri=MODEL_URI
    )
    with aiplatform.start_execution(
        schema_title="system.ContainerExecution", display_name="example_training"
    ) as execution:
        execution.assign_input_artifacts([dataset_artifact])
        aiplatform.log_params({"units": 256})
        aiplatform.log_metrics({"acc": 96.8})
        execution.assign_output_artifacts([model_artifact])
        aiplatform.log_metrics(
            {"lineage": execution.get_output_artifacts()[0].lineage_console_uri}
        )
    aiplatform.end_run()
    experiment_df = aiplatform.get_experiment_df()
    experiment_df = experiment_df[experiment_df.experiment_name == EXPERIMENT_NAME]
    (row,) = experiment_df.to_dict("records")
    assert row["param.units"] == 256 and row["metric.acc"] == 96.8
    assert model_artifact.resource_name.rsplit("/", 1)[1] in row["metric.lineage"]
    assert [a.uri for a in execution.get_input_artifacts()] == [DATASET_URI]
    assert execution.state.name == "COMPLETE"


def test_a_python_package_training_job_logs_to_its_run(aiplatform: Any, served: Served, tmp_path: Path) -> None:
    needs_sdk_wheels()
    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    # cell 68's setup.py: install_requires=['google-cloud-aiplatform']
    write_package(tmp_path, TASK, served, f"{BUCKET_URI}/trainer.tar.gz", requires=("google-cloud-aiplatform",))
    DISPLAY_NAME = "example"
    job = aiplatform.CustomPythonPackageTrainingJob(
        display_name=DISPLAY_NAME,
        python_package_gcs_uri=f"{BUCKET_URI}/trainer.tar.gz",
        python_module_name="trainer.task",
        container_uri=TRAIN_IMAGE,
    )
    EXPERIMENT_NAME = f"example-{uuid.uuid1()}"
    aiplatform.init(experiment=EXPERIMENT_NAME)
    CMDARGS = [
        "--model-dir=" + BUCKET_URI,
        "--dataset-uri=gs://example/foo.csv",
        "--epochs=5",
        f"--experiment={EXPERIMENT_NAME}",
        "--run=run-1",
    ]
    job.run(
        args=CMDARGS,
        replica_count=1,
        machine_type=TRAIN_COMPUTE,
        service_account=SERVICE_ACCOUNT,
        sync=True,
    )
    assert job.state.name == "PIPELINE_STATE_SUCCEEDED"
    experiment_df = aiplatform.get_experiment_df()
    experiment_df = experiment_df[experiment_df.experiment_name == EXPERIMENT_NAME]
    (row,) = experiment_df.to_dict("records")
    assert row["run_name"] == "run-1" and row["param.epochs"] == 5 and row["state"] == "COMPLETE"
    assert "/metadata-stores/default/artifacts/" in row["metric.lineage"]  # the trainer's model artifact
    experiments = aiplatform.Experiment.list()
    for experiment in experiments:
        if experiment.name == EXPERIMENT_NAME:
            experiment.delete()
    assert EXPERIMENT_NAME not in [e.name for e in aiplatform.Experiment.list()]
