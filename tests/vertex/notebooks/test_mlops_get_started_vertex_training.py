"""ML Ops stage 2, get_started_vertex_training: the three kinds of training pipeline. A script
pipeline (``CustomTrainingJob``), a Python package pipeline and a container pipeline each write
``test.txt`` under ``--model-dir`` and are deleted; then a package pipeline returns a Model
(``sync=False``), listed by display name while it runs, and both are deleted.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/community/ml_ops/stage2/get_started_vertex_training.ipynb (cells 32-105). The trainers
keep the notebook's arguments; ``tf.io.gfile`` and the Keras training are replaced by plain file
writes. The script pipeline's ``requirements=["tensorflow==2.3"]`` is run as written first: the
trainer's pip installs offline from the setup's wheelhouse, which holds no TensorFlow, so the
pipeline is accepted and fails naming it; the same script is then run without it (the tiny
trainer needs none). The packages' ``install_requires`` (tensorflow, tensorflow_datasets) are left
out likewise. The container pipeline runs the image the notebook builds with docker: this machine
has no container engine, so it is accepted and fails saying so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID, Served, blob_text, write_package

pytestmark = pytest.mark.usefixtures("offline_pip")

SCRIPT = '''
import argparse
import os

parser = argparse.ArgumentParser()
parser.add_argument('--model-dir', dest='model_dir',
                    default=os.getenv('AIP_MODEL_DIR'), type=str, help='Model dir.')
args = parser.parse_args()

with open(args.model_dir + '/test.txt', 'w') as f:  # tf.io.gfile.GFile
    f.write('hello world\\n')
'''

TASK = '''
import argparse
import os

parser = argparse.ArgumentParser()
parser.add_argument('--model-dir', dest='model_dir',
                    default=os.getenv('AIP_MODEL_DIR'), type=str, help='Model dir.')
parser.add_argument('--epochs', dest='epochs',
                    default=10, type=int,
                    help='Number of epochs.')
args = parser.parse_args()

with open(args.model_dir + '/test.txt', 'w') as f:  # tf.io.gfile.GFile
    for epoch in range(args.epochs):
        f.write('hello world\\n')
'''

TASK_MODEL = '''
import argparse, os, sys

parser = argparse.ArgumentParser()
parser.add_argument('--model-dir', dest='model_dir', default=os.getenv('AIP_MODEL_DIR'), type=str, help='Model dir.')
parser.add_argument('--lr', dest='lr', default=0.001, type=float, help='Learning rate.')
parser.add_argument('--epochs', dest='epochs', default=20, type=int, help='Number of epochs.')
parser.add_argument('--steps', dest='steps', default=100, type=int, help='Number of steps per epoch.')
parser.add_argument('--distribute', dest='distribute', type=str, default='single', help='distributed training strategy')
parser.add_argument('--param-file', dest='param_file', default='/tmp/param.txt', type=str, help='Output file for parameters')
args = parser.parse_args()
print('Python Version = {}'.format(sys.version))
print('TF_CONFIG = {}'.format(os.environ.get('TF_CONFIG', 'Not found')))
os.makedirs(args.model_dir, exist_ok=True)  # model.save(args.model_dir)
with open(os.path.join(args.model_dir, 'saved_model.pb'), 'w') as f:
    f.write('epochs=%d steps=%d' % (args.epochs, args.steps))
with open(args.param_file, 'w') as f:
    f.write(str([1.0] * 13))
'''

REGION = LOCATION
TIMESTAMP = "20260101000000"
TF = "2.5".replace(".", "-")
TRAIN_IMAGE = "{}-docker.pkg.dev/vertex-ai/training/{}:latest".format(REGION.split("-")[0], f"tf-cpu.{TF}")
DEPLOY_IMAGE = "{}-docker.pkg.dev/vertex-ai/prediction/{}:latest".format(REGION.split("-")[0], f"tf2-cpu.{TF}")
TRAIN_COMPUTE = "n1-standard" + "-" + "4"


def test_script_package_and_container_pipelines(aiplatform: Any, served: Served, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    aiplatform.init(project=PROJECT_ID, staging_bucket=BUCKET_URI)
    monkeypatch.chdir(tmp_path)
    Path("task.py").write_text(SCRIPT)  # %%writefile task.py

    DISPLAY_NAME = "boston_" + TIMESTAMP
    REQUIREMENTS = ["tensorflow==2.3"]
    job = aiplatform.CustomTrainingJob(
        display_name=DISPLAY_NAME,
        script_path="task.py",
        requirements=REQUIREMENTS,
        container_uri=TRAIN_IMAGE,
    )
    CMDARGS = ["--model-dir=" + BUCKET_URI]
    with pytest.raises(RuntimeError, match="Training failed") as failed:
        job.run(args=CMDARGS, replica_count=1, machine_type=TRAIN_COMPUTE, sync=True)
    assert "tensorflow==2.3" in str(failed.value) and "Traceback" not in str(failed.value), failed.value
    job.delete()

    job = aiplatform.CustomTrainingJob(display_name=DISPLAY_NAME, script_path="task.py", requirements=[],
                                       container_uri=TRAIN_IMAGE)
    job.run(args=CMDARGS, replica_count=1, machine_type=TRAIN_COMPUTE, sync=True)
    assert blob_text(served, f"{BUCKET_URI}/test.txt") == "hello world\n"  # ! gcloud storage cat
    job.delete()

    write_package(tmp_path, TASK, served, f"{BUCKET_URI}/trainer_boston.tar.gz")
    job = aiplatform.CustomPythonPackageTrainingJob(
        display_name=DISPLAY_NAME,
        python_package_gcs_uri=f"{BUCKET_URI}/trainer_boston.tar.gz",
        python_module_name="trainer.task",
        container_uri=TRAIN_IMAGE,
    )
    CMDARGS = ["--model-dir=" + BUCKET_URI, "--epochs=5"]
    assert job.run(args=CMDARGS, replica_count=1, machine_type=TRAIN_COMPUTE, sync=True) is None
    assert blob_text(served, f"{BUCKET_URI}/test.txt") == "hello world\n" * 5
    job.delete()

    CONTAINER_IMAGE = "gcr.io/" + PROJECT_ID + "/boston:v1"
    job = aiplatform.CustomContainerTrainingJob(
        display_name="boston_" + TIMESTAMP,
        container_uri=CONTAINER_IMAGE,
        command=["python3", "trainer/task.py"],
    )
    with pytest.raises(RuntimeError, match="Training failed") as failed:
        job.run(args=CMDARGS, replica_count=1, machine_type=TRAIN_COMPUTE, sync=True)
    message = str(failed.value)
    assert "container engine" in message or "docker" in message.lower(), message
    job.delete()
    assert aiplatform.CustomTrainingJob.list() == []


def test_package_pipeline_returns_a_model(aiplatform: Any, served: Served, tmp_path: Path) -> None:
    aiplatform.init(project=PROJECT_ID, staging_bucket=BUCKET_URI)
    write_package(tmp_path, TASK_MODEL, served, f"{BUCKET_URI}/trainer_boston.tar.gz")
    DISPLAY_NAME = "boston_" + TIMESTAMP
    job = aiplatform.CustomPythonPackageTrainingJob(
        display_name=DISPLAY_NAME,
        python_package_gcs_uri=f"{BUCKET_URI}/trainer_boston.tar.gz",
        python_module_name="trainer.task",
        container_uri=TRAIN_IMAGE,
        model_serving_container_image_uri=DEPLOY_IMAGE,
        project=PROJECT_ID,
    )
    MODEL_DIR = "{}/{}".format(BUCKET_URI, TIMESTAMP)  # noqa: UP032  (the notebook's own)
    EPOCHS = 20
    STEPS = 100
    CMDARGS = ["--epochs=" + str(EPOCHS), "--steps=" + str(STEPS)]
    model = job.run(
        model_display_name="boston_" + TIMESTAMP,
        args=CMDARGS,
        replica_count=1,
        machine_type=TRAIN_COMPUTE,
        base_output_dir=MODEL_DIR,
        sync=False,
    )
    job.wait_for_resource_creation()  # the notebook's next cell runs once the job exists
    _job = job.list(filter=f"display_name={DISPLAY_NAME}")
    assert [j.resource_name for j in _job] == [job.resource_name]
    model.wait()
    assert model.uri == MODEL_DIR + "/model"
    assert blob_text(served, MODEL_DIR + "/model/saved_model.pb") == "epochs=20 steps=100"
    model.delete()
    job.delete()
    assert aiplatform.Model.list() == [] and job.list(filter=f"display_name={DISPLAY_NAME}") == []
