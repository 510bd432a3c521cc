"""sdk_custom_tabular_regression_online: a script training job with ``args`` and
``base_output_dir`` whose trainer saves to its ``--model-dir``, the model uploaded from there
(``sync=False``), then deployed; everything deleted.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/community/sdk/sdk_custom_tabular_regression_online.ipynb (cells 34-71). The Keras
trainer (Boston housing from tensorflow_datasets, ``model.save(args.model_dir)`` to ``gs://``) is
replaced by one that parses the same flags and writes its file to ``--model-dir`` through Cloud
Storage FUSE (``gs://B/P`` as ``/gcs/B/P``, which Vertex mounts; TensorFlow's own file API writes
``gs://`` directly). ``requirements=["gcsfs==0.7.1", "tensorflow-datasets==4.4"]`` is left out: the
tiny trainer needs neither, and installing them needs PyPI. The local ``tf.keras.models.load_model``
check (cells 55-59) needs TensorFlow: the test reads the saved file instead. Deploying and
predicting (cells 63-69) are serving, not emulated: the deploy is refused, saying so.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.vertex.notebooks.conftest import BUCKET_URI, PROJECT_ID, Served, blob_text

TASK = '''
import argparse, json, os
parser = argparse.ArgumentParser()
parser.add_argument('--model-dir', dest='model_dir', default=os.getenv('AIP_MODEL_DIR'), type=str, help='Model dir.')
parser.add_argument('--lr', dest='lr', default=0.001, type=float, help='Learning rate.')
parser.add_argument('--epochs', dest='epochs', default=20, type=int, help='Number of epochs.')
parser.add_argument('--steps', dest='steps', default=100, type=int, help='Number of steps per epoch.')
parser.add_argument('--distribute', dest='distribute', type=str, default='single', help='distributed training strategy')
parser.add_argument('--param-file', dest='param_file', default='/tmp/param.txt', type=str, help='Output file for parameters')
args = parser.parse_args()
model_dir = args.model_dir.replace('gs://', '/gcs/', 1) if args.model_dir.startswith('gs://') else args.model_dir
os.makedirs(model_dir, exist_ok=True)
with open(os.path.join(model_dir, 'saved_model.pb'), 'w') as f:
    json.dump({'epochs': args.epochs, 'steps': args.steps, 'distribute': args.distribute}, f)
'''


def test_script_job_then_upload_then_deploy_refused(aiplatform: Any, served: Served, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    aip = aiplatform
    TIMESTAMP = "20261126090000"
    BUCKET_NAME = BUCKET_URI
    aip.init(project=PROJECT_ID, staging_bucket=BUCKET_NAME)

    if os.getenv("IS_TESTING_TRAIN_GPU"):
        TRAIN_GPU, TRAIN_NGPU = (aip.gapic.AcceleratorType.NVIDIA_TESLA_K80, int(os.getenv("IS_TESTING_TRAIN_GPU")))  # type: ignore[arg-type]
    else:
        TRAIN_GPU, TRAIN_NGPU = (None, None)
    if os.getenv("IS_TESTING_DEPLOY_GPU"):
        DEPLOY_GPU, DEPLOY_NGPU = (aip.gapic.AcceleratorType.NVIDIA_TESLA_K80, int(os.getenv("IS_TESTING_DEPLOY_GPU")))  # type: ignore[arg-type]
    else:
        DEPLOY_GPU, DEPLOY_NGPU = (None, None)
    TF = "2-1"
    TRAIN_VERSION = "tf-gpu.{}".format(TF) if TRAIN_GPU else "tf-cpu.{}".format(TF)  # noqa: UP032  (the notebook's own)
    DEPLOY_VERSION = "tf2-gpu.{}".format(TF) if DEPLOY_GPU else "tf2-cpu.{}".format(TF)  # noqa: UP032  (the notebook's own)
    TRAIN_IMAGE = "gcr.io/cloud-aiplatform/training/{}:latest".format(TRAIN_VERSION)  # noqa: UP032  (the notebook's own)
    DEPLOY_IMAGE = "gcr.io/cloud-aiplatform/prediction/{}:latest".format(DEPLOY_VERSION)  # noqa: UP032  (the notebook's own)
    MACHINE_TYPE = "n1-standard"
    VCPU = "4"
    TRAIN_COMPUTE = MACHINE_TYPE + "-" + VCPU
    DEPLOY_COMPUTE = MACHINE_TYPE + "-" + VCPU

    os.makedirs("custom/trainer")
    Path("custom/trainer/__init__.py").write_text("")
    Path("custom/trainer/task.py").write_text(TASK)
    job = aip.CustomTrainingJob(
        display_name="boston_" + TIMESTAMP,
        script_path="custom/trainer/task.py",
        container_uri=TRAIN_IMAGE,
    )
    MODEL_DIR = "{}/{}".format(BUCKET_NAME, TIMESTAMP)  # noqa: UP032  (the notebook's own)
    EPOCHS = 20
    STEPS = 100
    DIRECT = True
    if DIRECT:
        CMDARGS = [
            "--model-dir=" + MODEL_DIR,
            "--epochs=" + str(EPOCHS),
            "--steps=" + str(STEPS),
        ]
    else:
        CMDARGS = [
            "--epochs=" + str(EPOCHS),
            "--steps=" + str(STEPS),
        ]
    assert (TRAIN_GPU, TRAIN_NGPU, DEPLOY_NGPU) == (None, None, None)  # cell 53's CPU branch
    job.run(
        args=CMDARGS,
        replica_count=1,
        machine_type=TRAIN_COMPUTE,
        base_output_dir=MODEL_DIR,
        sync=True,
    )
    assert job.state.name == "PIPELINE_STATE_SUCCEEDED"
    assert blob_text(served, MODEL_DIR + "/saved_model.pb") == '{"epochs": 20, "steps": 100, "distribute": "single"}'

    model = aip.Model.upload(
        display_name="boston_" + TIMESTAMP,
        artifact_uri=MODEL_DIR,
        serving_container_image_uri=DEPLOY_IMAGE,
        sync=False,
    )
    model.wait()
    assert model.uri == MODEL_DIR
    assert model.container_spec.image_uri == DEPLOY_IMAGE

    DEPLOYED_NAME = "boston-" + TIMESTAMP
    TRAFFIC_SPLIT = {"0": 100}
    MIN_NODES = 1
    MAX_NODES = 1
    with pytest.raises(Exception, match="not emulated"):
        model.deploy(
            deployed_model_display_name=DEPLOYED_NAME,
            traffic_split=TRAFFIC_SPLIT,
            machine_type=DEPLOY_COMPUTE,
            accelerator_type=DEPLOY_GPU,
            accelerator_count=0,
            min_replica_count=MIN_NODES,
            max_replica_count=MAX_NODES,
        )

    model.delete()
    job.delete()
    assert aip.Model.list(filter=f'display_name="boston_{TIMESTAMP}"') == []
