"""get_started_vertex_training_lightgbm: a Python package trained with ``base_output_dir`` and
``sync=False``, its model written through /gcs/, then a Model uploaded with serving routes and ports.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/official/training/get_started_vertex_training_lightgbm.ipynb (cells 23-84). The trainer
keeps the notebook's argument parsing, GCS FUSE conversion and save path; LightGBM's training is
replaced by writing the model file. The serving container is built with docker in the notebook:
only its upload is here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID, Served, blob_text, write_package

TASK = '''
import argparse
import logging
import os

logging.getLogger().setLevel(logging.INFO)
parser = argparse.ArgumentParser()
parser.add_argument(
    '--model-dir',
    dest='model_dir',
    default=os.getenv('AIP_MODEL_DIR'),
    type=str,
    help='Location to export GCS model')
args = parser.parse_args()

gs_prefix = 'gs://'
gcsfuse_prefix = '/gcs/'
if args.model_dir.startswith(gs_prefix):
    args.model_dir = args.model_dir.replace(gs_prefix, gcsfuse_prefix)
    dirpath = os.path.split(args.model_dir)[0]
    if not os.path.isdir(dirpath):
        os.makedirs(dirpath)

model_filename = 'model.txt'
gcs_model_path = os.path.join(args.model_dir, model_filename)
os.makedirs(args.model_dir, exist_ok=True)
with open(gcs_model_path, "w") as f:
    f.write("tree\\nversion=v4\\nnum_class=3\\n")
'''


def test_package_job_with_base_output_dir_then_upload(aiplatform: Any, served: Served, tmp_path: Path) -> None:
    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    APP_NAME = "iris"
    TRAIN_VERSION = "scikit-learn-cpu.0-23"
    TRAIN_IMAGE = "{}-docker.pkg.dev/vertex-ai/training/{}:latest".format(
        LOCATION.split("-")[0], TRAIN_VERSION
    )
    TRAIN_COMPUTE = "n1-standard-4"
    DEPLOY_IMAGE = "{}-docker.pkg.dev/{}/{}/{}:latest".format(LOCATION, PROJECT_ID, "iris-repo", "lightgbm-cpu")
    write_package(tmp_path, TASK, served, f"{BUCKET_URI}/trainer_iris.tar.gz")
    DISPLAY_NAME = f"{APP_NAME}-training-unique"
    job = aiplatform.CustomPythonPackageTrainingJob(
        display_name=DISPLAY_NAME,
        python_package_gcs_uri=f"{BUCKET_URI}/trainer_iris.tar.gz",
        python_module_name="trainer.task",
        container_uri=TRAIN_IMAGE,
        project=PROJECT_ID,
    )
    MODEL_DIR = f"{BUCKET_URI}/model"
    CMDARGS: list[str] = []
    job.run(
        args=CMDARGS,
        replica_count=1,
        machine_type=TRAIN_COMPUTE,
        base_output_dir=MODEL_DIR,
        sync=False,
    )
    job.wait()
    assert job.state.name == "PIPELINE_STATE_SUCCEEDED"
    model_path_to_deploy = MODEL_DIR + "/model"
    assert blob_text(served, model_path_to_deploy + "/model.txt").startswith("tree")

    PORT = 7080
    MODEL_DISPLAY_NAME = f"{APP_NAME}-model-unique"
    MODEL_DESCRIPTION = "LightGBM based iris flower classifier with custom container"
    HEALTH_ROUTE = "/health"
    PREDICT_ROUTE = "/predict"
    SERVING_PORTS = [PORT]
    model = aiplatform.Model.upload(
        display_name=MODEL_DISPLAY_NAME,
        description=MODEL_DESCRIPTION,
        serving_container_image_uri=DEPLOY_IMAGE,
        serving_container_predict_route=PREDICT_ROUTE,
        serving_container_health_route=HEALTH_ROUTE,
        serving_container_ports=SERVING_PORTS,
    )
    assert model.display_name == MODEL_DISPLAY_NAME and model.description == MODEL_DESCRIPTION
    spec = aiplatform.Model(model.resource_name).gca_resource.container_spec
    assert (spec.image_uri, spec.predict_route, spec.health_route) == (DEPLOY_IMAGE, PREDICT_ROUTE, HEALTH_ROUTE)
    assert [p.container_port for p in spec.ports] == [PORT]
