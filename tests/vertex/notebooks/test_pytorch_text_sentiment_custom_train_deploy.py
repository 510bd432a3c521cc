"""pytorch-text-sentiment-classification-custom-train-deploy: a Python package training pipeline
with no serving container (it returns no Model), its output directory read from the pipeline's
``trainingTaskInputs``, then a model uploaded with a custom serving container's routes and ports.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/official/training/pytorch-text-sentiment-classification-custom-train-deploy.ipynb
(cells 20-89). The trainer keeps the notebook's arguments and saves to ``--job-dir`` (default
AIP_MODEL_DIR)/MODEL_NAME; its BERT fine-tuning is replaced by writing the files. The package's
``install_requires`` (transformers, datasets, ...) are left out: installing them needs PyPI. The
notebook trains on a T4: the emulator runs with ``--cpu``. The predictor image it builds with
Cloud Build is only named; the endpoint cells serve the model, which the emulator does not:
``Endpoint.create`` is run to its "not emulated" error, the deploy and undeploy left out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID, Served, blob_text, write_package

EMULATOR_ARGS = ("--cpu",)

TASK = '''
import argparse, json, os

args_parser = argparse.ArgumentParser()
args_parser.add_argument('--batch-size', type=int, default=16)
args_parser.add_argument('--num-epochs', default=1, type=int)
args_parser.add_argument('--seed', type=int, default=42)
args_parser.add_argument('--learning-rate', default=2e-5, type=float)
args_parser.add_argument('--weight-decay', default=0.01, type=float)
args_parser.add_argument('--hp-tune', default="n")
args_parser.add_argument('--job-dir', default=os.getenv('AIP_MODEL_DIR'), help='GCS location to export models')
args_parser.add_argument('--model-name', default="finetuned-bert-classifier")
args = args_parser.parse_args()

# experiment.run(args): trainer.save_model(model_name) then the saved folder copied to job_dir
model_dir = os.path.join(args.job_dir, args.model_name)
os.makedirs(model_dir, exist_ok=True)
with open(os.path.join(model_dir, "pytorch_model.bin"), "w") as f:
    f.write("epochs=%d" % args.num_epochs)
with open(os.path.join(model_dir, "config.json"), "w") as f:
    json.dump({"num_labels": 7}, f)
'''

UUID = "abcd1234"
APP_NAME = "finetuned-bert-classifier"
PRE_BUILT_TRAINING_CONTAINER_IMAGE_URI = "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.1-11:latest"
python_package_gcs_uri = f"{BUCKET_URI}/pytorch-on-gcp/{APP_NAME}/train/python_package/trainer-0.1.tar.gz"
python_module_name = "trainer.task"
JOB_NAME = f"{APP_NAME}-pytorch-pkg-train-{UUID}"
TRAIN_MACHINE_TYPE = "n1-standard-8"
TRAIN_ACCELERATOR_TYPE = "NVIDIA_TESLA_T4"
TRAIN_ACCELERATOR_COUNT = 1
CUSTOM_PREDICTOR_IMAGE_URI = f"{LOCATION}-docker.pkg.dev/{PROJECT_ID}/{APP_NAME}/pytorch_predict_{APP_NAME}:latest"
VERSION = 1
model_display_name = f"{APP_NAME}-v{VERSION}"
model_description = "PyTorch based text classifier with custom container"
health_route = "/ping"
predict_route = f"/predictions/{APP_NAME}"
serving_container_ports = [7080]
endpoint_display_name = f"{APP_NAME}-endpoint"


def test_train_without_a_model_then_upload_with_routes(aiplatform: Any, served: Served, tmp_path: Path) -> None:
    from google.api_core import exceptions
    from google.protobuf.json_format import MessageToDict

    aiplatform.init(project=PROJECT_ID, staging_bucket=BUCKET_URI)
    write_package(tmp_path, TASK, served, python_package_gcs_uri)
    job = aiplatform.CustomPythonPackageTrainingJob(
        display_name=JOB_NAME,
        python_package_gcs_uri=python_package_gcs_uri,
        python_module_name=python_module_name,
        container_uri=PRE_BUILT_TRAINING_CONTAINER_IMAGE_URI,
    )
    training_args = ["--num-epochs", "2", "--model-name", APP_NAME]
    model = job.run(
        replica_count=1,
        machine_type=TRAIN_MACHINE_TYPE,
        accelerator_type=TRAIN_ACCELERATOR_TYPE,
        accelerator_count=TRAIN_ACCELERATOR_COUNT,
        args=training_args,
    )
    assert model is None and job.state.name == "PIPELINE_STATE_SUCCEEDED"

    job_response = MessageToDict(job._gca_resource._pb)
    GCS_MODEL_ARTIFACTS_URI = job_response["trainingTaskInputs"]["baseOutputDirectory"]["outputUriPrefix"]
    assert GCS_MODEL_ARTIFACTS_URI.startswith(BUCKET_URI + "/aiplatform-custom-training-")
    # !gcloud storage ls --long --recursive $GCS_MODEL_ARTIFACTS_URI/
    assert blob_text(served, f"{GCS_MODEL_ARTIFACTS_URI}/model/{APP_NAME}/pytorch_model.bin") == "epochs=2"
    assert "modelToUpload" not in job_response and "modelToUpload" not in job_response.get("trainingTaskMetadata", {})

    model = aiplatform.Model.upload(
        display_name=model_display_name,
        description=model_description,
        serving_container_image_uri=CUSTOM_PREDICTOR_IMAGE_URI,
        serving_container_predict_route=predict_route,
        serving_container_health_route=health_route,
        serving_container_ports=serving_container_ports,
    )
    model.wait()
    assert model.display_name == model_display_name and model.description == model_description
    spec = MessageToDict(aiplatform.Model(model.resource_name).gca_resource._pb)["containerSpec"]
    assert spec == {"imageUri": CUSTOM_PREDICTOR_IMAGE_URI, "predictRoute": predict_route,
                    "healthRoute": health_route, "ports": [{"containerPort": 7080}]}

    with pytest.raises(exceptions.GoogleAPICallError, match="not emulated"):
        aiplatform.Endpoint.create(display_name=endpoint_display_name)

    job.delete()
    model.delete()
    assert aiplatform.CustomPythonPackageTrainingJob.list() == [] and aiplatform.Model.list() == []
