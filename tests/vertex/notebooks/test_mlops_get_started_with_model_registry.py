"""ML Ops stage 3, get_started_with_model_registry: two versions of a model uploaded with aliases, the
default moved back to version 1 by alias, version 2 deleted, then the model.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/community/ml_ops/stage3/get_started_with_model_registry.ipynb (cells 31-70). The two
TF Hub models the notebook saves to MODEL_V1_DIR and MODEL_V2_DIR are files written there (the
upload does not read them). Its endpoint cells (57-63, 70) serve the model, which the emulator
does not: ``Endpoint.create`` is run to its "not emulated" error and the undeploy skipped.

The notebook's aliases ``["v1", "v.1", "1"]`` break Vertex AI's rule for an alias (the REST
reference's Model.versionAliases: ``[a-z][a-zA-Z0-9-]{0,126}[a-z0-9]``, so that an alias is never
taken for a version ID): the first upload is refused with Google's 400 naming "v.1", as Vertex
refuses it; the flow then goes on with the aliases that pass ("v1", "v2").
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID, Served, upload_text

TIMESTAMP = "20260101000000"
REGION = LOCATION
DEPLOY_VERSION = "tf2-cpu.{}".format("2.5".replace(".", "-"))
DEPLOY_IMAGE = "{}-docker.pkg.dev/vertex-ai/prediction/{}:latest".format(REGION.split("-")[0], DEPLOY_VERSION)


def test_versions_aliases_and_the_default(aiplatform: Any, served: Served) -> None:
    from google.api_core import exceptions

    aip = aiplatform
    aip.init(project=PROJECT_ID, staging_bucket=BUCKET_URI)
    MODEL_V1_DIR = BUCKET_URI + "/model/v1"
    MODEL_V2_DIR = BUCKET_URI + "/model/v2"
    for model_dir in (MODEL_V1_DIR, MODEL_V2_DIR):  # tfhub_model_vN.save(MODEL_VN_DIR)
        upload_text(served, model_dir + "/saved_model.pb", "a saved model")

    with pytest.raises(exceptions.BadRequest, match=r"model.version_aliases.*Invalid alias 'v\.1'"):
        aip.Model.upload(
            display_name="example_" + TIMESTAMP,
            artifact_uri=MODEL_V1_DIR,
            serving_container_image_uri=DEPLOY_IMAGE,
            is_default_version=True,
            version_aliases=["v1", "v.1", "1"],
            version_description="This is the first version of the model",
        )
    assert aip.Model.list() == []
    model_v1 = aip.Model.upload(
        display_name="example_" + TIMESTAMP,
        artifact_uri=MODEL_V1_DIR,
        serving_container_image_uri=DEPLOY_IMAGE,
        is_default_version=True,
        version_aliases=["v1"],
        version_description="This is the first version of the model",
    )
    assert model_v1.version_id == "1" and model_v1.version_aliases == ["v1", "default"]
    model_v2 = aip.Model.upload(
        display_name="example_" + TIMESTAMP,
        artifact_uri=MODEL_V2_DIR,
        serving_container_image_uri=DEPLOY_IMAGE,
        parent_model=model_v1.resource_name,
        is_default_version=True,
        version_aliases=["v2"],
        version_description="This is the second version of the model",
    )
    assert model_v2.resource_name == model_v1.resource_name and model_v2.version_id == "2"
    assert model_v2.uri == MODEL_V2_DIR and model_v2.version_description == "This is the second version of the model"

    for registry in (model_v1.versioning_registry, model_v2.versioning_registry):
        versions = registry.list_versions()
        assert [(v.version_id, v.version_aliases) for v in versions] == [
            ("1", ["v1"]), ("2", ["v2", "default"])]

    models = aip.Model.list(filter=f"display_name=example_{TIMESTAMP}")
    assert len(models) == 1 and models[0].version_id == "2"

    model_v2.versioning_registry.add_version_aliases(new_aliases=["default"], version="1")
    models = aip.Model.list(filter=f"display_name=example_{TIMESTAMP}")
    assert len(models) == 1 and models[0].version_id == "1"
    model = models[0]
    assert model.uri == MODEL_V1_DIR and "default" in model.version_aliases

    with pytest.raises(exceptions.GoogleAPICallError, match="not emulated"):
        aip.Endpoint.create(
            display_name="example_" + TIMESTAMP,
            project=PROJECT_ID,
            location=REGION,
            labels={"your_key": "your_value"},
        )

    model.versioning_registry.delete_version("2")
    versions = model.versioning_registry.list_versions()
    assert [v.version_id for v in versions] == ["1"]

    model.delete()
    assert aip.Model.list(filter=f"display_name=example_{TIMESTAMP}") == []
