"""get_started_with_model_registry: two versions, aliases, list by display name; serving is not emulated.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/official/model_registry/get_started_with_model_registry.ipynb (cells 24-50). The
TensorFlow Hub models the notebook saves are replaced by files written to the same directories.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID, Served, upload_text

DEPLOY_IMAGE = "us-docker.pkg.dev/vertex-ai/prediction/tf2-cpu.2-12:latest"


def test_versions_aliases_and_list(aiplatform: Any, served: Served) -> None:
    aip = aiplatform
    aip.init(project=PROJECT_ID, staging_bucket=BUCKET_URI)
    MODEL_V1_DIR = BUCKET_URI + "/model/v1"
    MODEL_V2_DIR = BUCKET_URI + "/model/v2"
    upload_text(served, MODEL_V1_DIR + "/saved_model.pb", "v1")
    upload_text(served, MODEL_V2_DIR + "/saved_model.pb", "v2")
    model_v1 = aip.Model.upload(
        display_name="example_",
        artifact_uri=MODEL_V1_DIR,
        serving_container_image_uri=DEPLOY_IMAGE,
        is_default_version=True,
        version_aliases=["v1"],
        version_description="This is the first version of the model",
    )
    model_v2 = aip.Model.upload(
        display_name="example_",
        artifact_uri=MODEL_V2_DIR,
        serving_container_image_uri=DEPLOY_IMAGE,
        parent_model=model_v1.resource_name,
        is_default_version=True,
        version_aliases=["v2"],
        version_description="This is the second version of the model",
    )
    assert model_v2.resource_name == model_v1.resource_name and model_v2.version_id == "2"
    assert set(model_v2.version_aliases) == {"v2", "default"}

    models = aip.Model.list(filter="display_name=example_")
    assert len(models) == 1 and models[0].version_id == "2"
    model = models[0]

    model_v2.versioning_registry.add_version_aliases(new_aliases=["default"], version="1")
    models = aip.Model.list(filter="display_name=example_")
    assert len(models) == 1 and models[0].version_id == "1"
    model = models[0]
    assert set(model.version_aliases) == {"v1", "default"}
    assert model.version_description == "This is the first version of the model"
    versions = model_v2.versioning_registry.list_versions()
    assert [(v.version_id, sorted(v.version_aliases)) for v in versions] == [("1", ["default", "v1"]), ("2", ["v2"])]
    assert aip.Model(model_v1.resource_name, version="v2").uri == MODEL_V2_DIR

    # Serving is out of the emulator's scope: said so, in Google's shape.
    with pytest.raises(Exception, match="not emulated") as refused:
        aip.Endpoint.create(
            display_name="example_",
            project=PROJECT_ID,
            location=LOCATION,
            labels={"your_key": "your_value"},
        )
    assert "501" in str(refused.value) or "UNIMPLEMENTED" in str(refused.value)
