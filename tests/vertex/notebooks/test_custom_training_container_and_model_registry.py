"""custom_training_container_and_model_registry: a custom-container pipeline, which needs a
container engine (and this one TensorFlow): accepted, then failed saying so, and deleted.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/official/custom/custom_training_container_and_model_registry.ipynb (cells 21-52). The
image is the one the notebook builds and pushes with docker (cell 42): this machine has no
container engine, so the flow cannot succeed here; what is checked is that the emulator accepts
the pipeline as Vertex AI would and fails it with that reason, not with a traceback.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID


def test_a_container_pipeline_fails_for_want_of_a_container_engine(aiplatform: Any) -> None:
    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    TF = "2-7"
    DEPLOY_VERSION = "tf2-cpu.{}".format(TF)  # noqa: UP032  (the notebook's own)
    DEPLOY_IMAGE = "{}-docker.pkg.dev/vertex-ai/prediction/{}:latest".format(
        LOCATION.split("-")[0], DEPLOY_VERSION
    )
    TRAIN_COMPUTE = "n1-standard-4"
    REPO_NAME = "my-docker-repo"
    IMAGE_URI = f"{LOCATION}-docker.pkg.dev/{PROJECT_ID}/{REPO_NAME}/cifar10:latest"
    job = aiplatform.CustomContainerTrainingJob(
        display_name="cifar10-training",
        container_uri=IMAGE_URI,
        model_serving_container_image_uri=DEPLOY_IMAGE,
    )
    EPOCHS = 1
    STEPS = 1
    CMDARGS = [
        "--epochs=" + str(EPOCHS),
        "--steps=" + str(STEPS),
    ]
    with pytest.raises(RuntimeError, match="Training failed") as failed:
        job.run(
            args=CMDARGS,
            replica_count=1,
            machine_type=TRAIN_COMPUTE,
            base_output_dir=BUCKET_URI,
            model_display_name="cifar10",
            sync=True,
        )
    message = str(failed.value)
    assert "container engine" in message or "docker" in message.lower(), message
    assert "Traceback" not in message
    assert job.state.name == "PIPELINE_STATE_FAILED"
    job.delete()
    assert aiplatform.CustomContainerTrainingJob.list(filter='display_name="cifar10-training"') == []
