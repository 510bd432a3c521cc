"""get_started_with_vertex_distributed_training: a Python package training pipeline on one replica
(mirrored), then on four (multi-worker: a chief and three workers), each returning a Model; then
the same trainer as a custom container in multi-worker CustomJobs.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/official/training/get_started_with_vertex_distributed_training.ipynb (cells 26-102). The
trainer keeps the notebook's arguments and its multi-worker rule (the chief saves to
AIP_MODEL_DIR, a worker to a folder of its own, read from TF_CONFIG); TensorFlow's training is
replaced by writing files. The package's ``install_requires`` (tensorflow, tensorflow_datasets) are
left out: installing them needs PyPI. It trains on T4s: the emulator runs with ``--cpu``. The
CustomJobs (cells 62-102) run the image the notebook builds and pushes with docker: this machine
has no container engine, so they are accepted and fail saying so (the notebook wraps them in
``try``/``print``), and are deleted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID, Served, blob_text, write_package

EMULATOR_ARGS = ("--cpu",)

TASK = '''
import argparse, json, os

parser = argparse.ArgumentParser()
parser.add_argument('--model-dir', dest='model_dir', default=os.getenv('AIP_MODEL_DIR'), type=str, help='Model dir.')
parser.add_argument('--lr', dest='lr', default=0.001, type=float, help='Learning rate.')
parser.add_argument('--epochs', dest='epochs', default=20, type=int, help='Number of epochs.')
parser.add_argument('--steps', dest='steps', default=100, type=int, help='Number of steps per epoch.')
parser.add_argument('--batch_size', dest='batch_size', default=16, type=int, help='Batch size.')
parser.add_argument('--distribute', dest='distribute', type=str, default='single', help='distributed training strategy')
parser.add_argument('--param-file', dest='param_file', default='/tmp/param.txt', type=str, help='Output file for parameters')
args = parser.parse_args()

def _is_chief(task_type, task_id):
    return task_type == 'chief' or task_type is None

def _get_temp_dir(dirpath, task_id):
    base_dirpath = 'workertemp_' + str(task_id)
    temp_dir = os.path.join(dirpath, base_dirpath)
    os.makedirs(temp_dir, exist_ok=True)
    return temp_dir

def write_filepath(filepath, task_type, task_id):
    dirpath = os.path.dirname(filepath)
    base = os.path.basename(filepath)
    if not _is_chief(task_type, task_id):
        dirpath = _get_temp_dir(dirpath, task_id)
    return os.path.join(dirpath, base)

task_type, task_id = None, None
if args.distribute == 'multiworker':
    task = json.loads(os.environ['TF_CONFIG'])['task']
    task_type, task_id = task['type'], task['index']
model_dir = write_filepath(args.model_dir, task_type, task_id)
os.makedirs(model_dir, exist_ok=True)
with open(os.path.join(model_dir, 'saved_model.pb'), 'w') as f:
    json.dump({"distribute": args.distribute, "epochs": args.epochs, "task": [task_type, task_id],
               "workers": sorted(json.loads(os.environ.get('TF_CONFIG', '{"cluster": {}}'))['cluster'])}, f)
'''

TF = "2.8".replace(".", "-")
TRAIN_GPU, TRAIN_NGPU = ("NVIDIA_TESLA_T4", 1)  # aiplatform.gapic.AcceleratorType.NVIDIA_TESLA_T4
TRAIN_VERSION = f"tf-gpu.{TF}"
DEPLOY_VERSION = f"tf2-cpu.{TF}"
TRAIN_IMAGE = "{}-docker.pkg.dev/vertex-ai/training/{}:latest".format(LOCATION.split("-")[0], TRAIN_VERSION)
DEPLOY_IMAGE = "{}-docker.pkg.dev/vertex-ai/prediction/{}:latest".format(LOCATION.split("-")[0], DEPLOY_VERSION)
TRAIN_COMPUTE = "n1-standard" + "-" + "4"


def _saved(served: Served, model: Any) -> dict[str, Any]:
    return dict(json.loads(blob_text(served, model.uri + "/saved_model.pb")))


def test_package_pipelines_mirrored_then_multiworker(aiplatform: Any, served: Served, tmp_path: Path) -> None:
    from google.cloud.aiplatform import gapic

    TRAIN_GPU_ENUM = gapic.AcceleratorType.NVIDIA_TESLA_T4
    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    write_package(tmp_path, TASK, served, f"{BUCKET_URI}/trainer_boston.tar.gz")

    DISPLAY_NAME = "boston-unique"
    job = aiplatform.CustomPythonPackageTrainingJob(
        display_name=DISPLAY_NAME,
        python_package_gcs_uri=f"{BUCKET_URI}/trainer_boston.tar.gz",
        python_module_name="trainer.task",
        container_uri=TRAIN_IMAGE,
        model_serving_container_image_uri=DEPLOY_IMAGE,
        project=PROJECT_ID,
    )
    MODEL_DIR = BUCKET_URI
    MODEL_DISPLAY_NAME = "boston-unique"
    CMDARGS = ["--epochs=5", "--batch_size=16", "--distribute=mirrored"]
    model = job.run(
        model_display_name=MODEL_DISPLAY_NAME,
        args=CMDARGS,
        replica_count=1,
        machine_type=TRAIN_COMPUTE,
        accelerator_type=TRAIN_GPU_ENUM.name,
        accelerator_count=TRAIN_NGPU,
        base_output_dir=MODEL_DIR,
        sync=True,
    )
    assert model.uri == MODEL_DIR + "/model"
    assert _saved(served, model) == {"distribute": "mirrored", "epochs": 5, "task": [None, None], "workers": []}
    job.delete()
    model.delete()

    job = aiplatform.CustomPythonPackageTrainingJob(
        display_name=DISPLAY_NAME,
        python_package_gcs_uri=f"{BUCKET_URI}/trainer_boston.tar.gz",
        python_module_name="trainer.task",
        container_uri=TRAIN_IMAGE,
        model_serving_container_image_uri=DEPLOY_IMAGE,
        project=PROJECT_ID,
    )
    CMDARGS = ["--epochs=5", "--batch_size=16", "--distribute=multiworker"]
    model = job.run(
        model_display_name=MODEL_DISPLAY_NAME,
        args=CMDARGS,
        replica_count=4,
        machine_type=TRAIN_COMPUTE,
        accelerator_type=TRAIN_GPU_ENUM.name,
        accelerator_count=TRAIN_NGPU,
        base_output_dir=MODEL_DIR,
        sync=True,
    )
    pools = job.gca_resource.training_task_inputs["workerPoolSpecs"]
    assert [int(p["replicaCount"]) for p in pools] == [1, 3]
    assert _saved(served, model) == {"distribute": "multiworker", "epochs": 5, "task": ["chief", 0],
                                     "workers": ["chief", "worker"]}
    # A worker saves to a folder of its own (workertemp_N) if it gets there: the chief's success ends
    # the job, and the workers with it, as on Vertex AI; what one did save says which worker it was.
    from google.cloud import storage

    for blob in storage.Client(project=PROJECT_ID).list_blobs(BUCKET_URI[len("gs://"):], prefix="model/workertemp_"):
        index = int(blob.name.split("/")[1][len("workertemp_"):])
        assert json.loads(blob.download_as_text())["task"] == ["worker", index]
    job.delete()
    model.delete()
    assert aiplatform.Model.list() == []


def test_custom_container_jobs_fail_for_want_of_a_container_engine(aiplatform: Any) -> None:
    import pytest
    from google.cloud.aiplatform import gapic

    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    REPO_NAME = "my-docker-repo"
    TRAIN_IMAGE = f"{LOCATION}-docker.pkg.dev/{PROJECT_ID}/{REPO_NAME}/boston:v1"
    PRIMARY_COMPUTE = "n2-highcpu-64"
    MODEL_DIR = BUCKET_URI
    CMDARGS = ["--model-dir=" + MODEL_DIR, "--epochs=5", "--batch_size=16", "--distribute=multiworker"]
    CONTAINER_SPEC = {"image_uri": TRAIN_IMAGE, "command": "trainer.task", "args": CMDARGS}
    PRIMARY_WORKER_POOL = {
        "replica_count": 1,
        "machine_spec": {"machine_type": PRIMARY_COMPUTE, "accelerator_count": 0},
        "container_spec": CONTAINER_SPEC,
    }
    WORKER_POOL_SPECS: list[dict[str, Any]] = [PRIMARY_WORKER_POOL]
    TRAIN_WORKER_POOL = {
        "replica_count": 4,
        "machine_spec": {
            "machine_type": TRAIN_COMPUTE,
            "accelerator_count": TRAIN_NGPU,
            "accelerator_type": gapic.AcceleratorType.NVIDIA_TESLA_T4,
        },
        "container_spec": CONTAINER_SPEC,
    }
    WORKER_POOL_SPECS.append(TRAIN_WORKER_POOL)
    reduction_server_image_uri = "us-docker.pkg.dev/vertex-ai-restricted/training/reductionserver:latest"
    PARAMETER_POOL = {
        "replica_count": 1,
        "machine_spec": {"machine_type": "n1-highcpu-16"},
        "container_spec": {"image_uri": reduction_server_image_uri},
    }
    deleted = []
    for specs in (list(WORKER_POOL_SPECS), [*WORKER_POOL_SPECS, PARAMETER_POOL]):
        job = aiplatform.CustomJob(display_name="boston-unique", worker_pool_specs=specs)
        with pytest.raises(RuntimeError, match="failed") as failed:
            job.run(sync=True)
        message = str(failed.value)
        assert "container engine" in message or "docker" in message.lower(), message
        assert job.state.name == "JOB_STATE_FAILED"
        deleted.append(job.resource_name)
        job.delete()
    assert not {j.resource_name for j in aiplatform.CustomJob.list()} & set(deleted)
