"""get_started_vertex_experiments (ML Ops stage 2): two runs with params and metrics, the
experiment deleted and made again under the same name, artifacts and an execution logged inside a
run (its lineage link as a metric), then a package job whose trainer logs to the experiment itself.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/community/ml_ops/stage2/get_started_vertex_experiments.ipynb (cells 31-89). The
trainer of cell 75 is the notebook's own (it only calls the SDK); its setup.py requires
google-cloud-aiplatform, which the trainer's pip installs from the setup's wheelhouse, offline
(conftest.offline_pip), as test_get_started_with_vertex_experiments's does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID, Served, needs_sdk_wheels, write_package

pytestmark = pytest.mark.usefixtures("offline_pip")

REGION = LOCATION
TIMESTAMP = "20261126"
TRAIN_IMAGE = "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-5:latest"
TRAIN_COMPUTE = "n1-standard-4"
TASK = '''
import argparse
import os

import google.cloud.aiplatform as aiplatform

parser = argparse.ArgumentParser()
# Args for experiment
parser.add_argument('--experiment', dest='experiment',
                    required=True, type=str,
                    help='Name of experiment')
parser.add_argument('--run', dest='run',
                    required=True, type=str,
                    help='Name of run within the experiment')

# Hyperparameters for experiment
parser.add_argument('--epochs', dest='epochs',
                    default=10, type=int,
                    help='Number of epochs.')

parser.add_argument('--dataset-uri', dest='dataset_uri',
                    required=True, type=str,
                    help='Location of the dataset')

parser.add_argument('--model-dir', dest='model_dir',
                    default=os.getenv("AIP_MODEL_DIR"), type=str,
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


def test_runs_then_delete_then_lineage_in_a_run(aiplatform: Any) -> None:
    PROJECT_ID_ = PROJECT_ID
    aiplatform.init(project=PROJECT_ID_, location=REGION, staging_bucket=BUCKET_URI)
    EXPERIMENT_NAME = "example-" + TIMESTAMP

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
    assert experiment_df.T.loc["param.units"].tolist() == [128]

    aiplatform.start_run("run-2")
    metaparams = {}
    metaparams["units"] = 256  # changed the value
    aiplatform.log_params(metaparams)
    hyperparams = {}
    hyperparams["epochs"] = 100
    hyperparams["batch_size"] = 32
    hyperparams["learning_rate"] = 0.01
    aiplatform.log_params(hyperparams)
    metrics = {}
    metrics["test_acc"] = 98.8  # value changed
    metrics["train_acc"] = 99.5  # value changed
    aiplatform.log_metrics(metrics)
    aiplatform.end_run()
    experiment_df = aiplatform.get_experiment_df()
    experiment_df = experiment_df[experiment_df.experiment_name == EXPERIMENT_NAME]
    rows = {r["run_name"]: r for r in experiment_df.to_dict("records")}
    assert rows["run-1"]["metric.test_acc"] == 98.7 and rows["run-2"]["metric.test_acc"] == 98.8
    assert rows["run-2"]["param.units"] == 256 and rows["run-2"]["state"] == "COMPLETE"

    exp = aiplatform.Experiment(EXPERIMENT_NAME)
    exp.delete()

    aiplatform.init(experiment=EXPERIMENT_NAME)
    # The notebook predates experiments' backing TensorBoards: ``exp.delete()`` keeps each run's
    # TensorBoard run (delete_backing_tensorboard_runs=False), so this SDK refuses to make run-1
    # again, as python-aiplatform's system test expects of Vertex AI
    # (test_delete_wout_backing_tensorboard_reuse_run_raises_exception); the user then does what
    # the error says, and cell 58 goes on.
    with pytest.raises(ValueError, match="already associated to tensorboard resource"):
        aiplatform.start_run("run-1")
    tensorboard_run_artifact = aiplatform.metadata.artifact.Artifact(artifact_name=f"{EXPERIMENT_NAME}-run-1-tb-run")
    tensorboard_run_resource = aiplatform.TensorboardRun(tensorboard_run_artifact.metadata["resourceName"])
    tensorboard_run_resource.delete()
    tensorboard_run_artifact.delete()
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
    (row,) = experiment_df.to_dict("records")  # the deleted experiment's runs went with it
    assert row["run_name"] == "run-1" and row["param.units"] == 256 and row["metric.acc"] == 96.8
    assert row["metric.lineage"].endswith(f"/metadata-stores/default/artifacts/{model_artifact.name}?project={PROJECT_ID}")
    assert [a.uri for a in execution.get_input_artifacts()] == [DATASET_URI]

    experiments = aiplatform.Experiment.list()
    for experiment in experiments:
        if experiment.name == EXPERIMENT_NAME:
            experiment.delete()
    assert EXPERIMENT_NAME not in [e.name for e in aiplatform.Experiment.list()]


def test_a_package_job_whose_trainer_logs_to_the_experiment(aiplatform: Any, served: Served, tmp_path: Path) -> None:
    needs_sdk_wheels()
    aiplatform.init(project=PROJECT_ID, location=REGION, staging_bucket=BUCKET_URI)
    EXPERIMENT_NAME = "example-pkg-" + TIMESTAMP
    aiplatform.init(experiment=EXPERIMENT_NAME)
    write_package(tmp_path, TASK, served, f"{BUCKET_URI}/trainer.tar.gz", requires=("google-cloud-aiplatform",))
    DISPLAY_NAME = "example_" + TIMESTAMP
    job = aiplatform.CustomPythonPackageTrainingJob(
        display_name=DISPLAY_NAME,
        python_package_gcs_uri=f"{BUCKET_URI}/trainer.tar.gz",
        python_module_name="trainer.task",
        container_uri=TRAIN_IMAGE,
    )
    CMDARGS = [
        "--model-dir=" + BUCKET_URI,
        "--dataset-uri=gs://example/foo.csv",
        "--epochs=5",
        f"--experiment={EXPERIMENT_NAME}",
        "--run=run-1",
    ]
    job.run(args=CMDARGS, replica_count=1, machine_type=TRAIN_COMPUTE, sync=True)
    assert job.state.name == "PIPELINE_STATE_SUCCEEDED"
    experiment_df = aiplatform.get_experiment_df()
    experiment_df = experiment_df[experiment_df.experiment_name == EXPERIMENT_NAME]
    (row,) = experiment_df.to_dict("records")
    assert row["run_name"] == "run-1" and row["param.epochs"] == 5 and row["state"] == "COMPLETE"
