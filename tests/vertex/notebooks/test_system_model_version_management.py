"""python-aiplatform's model version management system test: versions, aliases, the registry.

Source: googleapis/python-aiplatform@91cc8ce4f015771b5d8c43c8764ea9dc9abdb216
tests/system/aiplatform/test_model_version_management.py. The XGBoost model it downloads from
``cloud-samples-data`` is a file of the same name written here (the upload does not read it). The
SDK stages the file in a bucket it creates itself (``PROJECT-vertex-staging-LOCATION``), which the
test checks; that bucket is made by the SDK through the emulated storage. The second upload finds
the bucket made and checks it belongs to the project: the SDK asks Cloud Resource Manager for the
project's number (``resource_manager_utils.get_project_number``, a gRPC client at
cloudresourcemanager.googleapis.com that no option points elsewhere), which this machine cannot
reach; the test answers it with the number the emulated storage gives its buckets' owner, "0".
"""

from __future__ import annotations

import tempfile
import uuid
from typing import Any

import pytest

from tests.vertex.notebooks.conftest import LOCATION, PROJECT_ID, Served


def test_upload_deploy_manage_versioned_model(aiplatform: Any, served: Served,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from google.cloud.aiplatform.utils import resource_manager_utils

    monkeypatch.setattr(resource_manager_utils, "get_project_number", lambda project_id, credentials=None: "0")
    from google.cloud import storage
    from google.cloud.aiplatform.models import ModelRegistry
    from google.cloud.aiplatform.utils.gcs_utils import blob_from_uri

    aiplatform.init(project=PROJECT_ID, location=LOCATION)
    storage_client = storage.Client(project=PROJECT_ID)
    model_path = tempfile.mktemp() + ".my_model.xgb"
    with open(model_path, "wb") as f:
        f.write(b"a booster")

    model_id = "my_model_id" + uuid.uuid4().hex
    version_description = "My description"
    version_aliases = ["system-test-model", "testing"]

    model = aiplatform.Model.upload_xgboost_model_file(
        model_file_path=model_path,
        version_aliases=version_aliases,
        model_id=model_id,
        version_description=version_description,
    )
    staging_bucket = blob_from_uri(uri=model.uri, client=storage_client).bucket
    # Checking that the bucket is auto-generated
    assert "-vertex-staging-" in staging_bucket.name

    assert model.version_description == version_description
    assert model.version_aliases == version_aliases
    assert "default" in model.version_aliases

    model2 = aiplatform.Model.upload_xgboost_model_file(
        model_file_path=model_path, parent_model=model_id, is_default_version=False
    )
    assert model2.version_id == "2"
    assert model2.resource_name == model.resource_name
    assert model2.version_aliases == []

    # Test that VersionInfo properties are correct.
    model_info = model2.versioning_registry.get_version_info("testing")
    version_list = model2.versioning_registry.list_versions()
    assert len(version_list) == 2
    list_info = version_list[0]
    assert model_info.version_id == list_info.version_id == model.version_id
    assert model_info.version_aliases == list_info.version_aliases == model.version_aliases
    assert model_info.version_description == list_info.version_description == model.version_description
    assert model_info.model_display_name == list_info.model_display_name == model.display_name
    assert model_info.version_update_time == list_info.version_update_time == model.version_update_time

    # Test that get_model yields a new instance of `model`
    model_clone = model2.versioning_registry.get_model()
    assert model.resource_name == model_clone.resource_name
    assert model.version_id == model_clone.version_id
    assert model.name == model_clone.name

    # Test add and removal of aliases
    registry = ModelRegistry(model)
    registry.add_version_aliases(["new-alias"], "default")
    registry.remove_version_aliases(["testing"], "new-alias")
    model = registry.get_model("new-alias")
    assert "testing" not in model.version_aliases

    # Test deletion of a model version
    registry.delete_version("2")
    versions = registry.list_versions()
    assert "2" not in [version.version_id for version in versions]
