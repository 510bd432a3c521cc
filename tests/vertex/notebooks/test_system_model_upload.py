"""python-aiplatform's model upload system test: an XGBoost model file uploaded to a staging bucket
the SDK makes, then its name, description and labels updated.

Source: googleapis/python-aiplatform@91cc8ce4f015771b5d8c43c8764ea9dc9abdb216
tests/system/aiplatform/test_model_upload.py. The model file it downloads from
``cloud-samples-data`` is a file of the same name written here (the upload does not read it).
Its deploy and endpoint calls serve the model, which the emulator does not: ``model.deploy`` is
run to its "not emulated" error and the update, which comes after it, run next; the endpoint's
calls are left out. The SDK asks Cloud Resource Manager for the project's number when it finds
its staging bucket made (see test_system_model_version_management).
"""

from __future__ import annotations

import tempfile
from typing import Any

import pytest

from tests.vertex.notebooks.conftest import LOCATION, PROJECT_ID


def test_upload_and_deploy_xgboost_model(aiplatform: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from google.api_core import exceptions
    from google.cloud import storage
    from google.cloud.aiplatform.utils import resource_manager_utils
    from google.cloud.aiplatform.utils.gcs_utils import blob_from_uri

    monkeypatch.setattr(resource_manager_utils, "get_project_number", lambda project_id, credentials=None: "0")
    aiplatform.init(project=PROJECT_ID, location=LOCATION)

    storage_client = storage.Client(project=PROJECT_ID)
    model_path = tempfile.mktemp() + ".my_model.xgb"
    with open(model_path, "wb") as f:  # model_blob.download_to_filename(filename=model_path)
        f.write(b"an iris booster")

    model = aiplatform.Model.upload_xgboost_model_file(model_file_path=model_path)
    staging_bucket = blob_from_uri(uri=model.uri, client=storage_client).bucket
    # Checking that the bucket is auto-generated
    assert "-vertex-staging-" in staging_bucket.name
    assert blob_from_uri(uri=model.uri + "/model.bst", client=storage_client).download_as_bytes() == b"an iris booster"

    with pytest.raises(exceptions.GoogleAPICallError, match="not emulated"):
        model.deploy(machine_type="n1-standard-2")

    # test model update
    model = model.update(
        display_name="new_name",
        description="new_description",
        labels={"my_label": "updated"},
    )
    assert model.display_name == "new_name"
    assert model.description == "new_description"
    assert model.labels == {"my_label": "updated"}
    again = aiplatform.Model(model.resource_name)
    assert (again.display_name, again.description, again.labels) == ("new_name", "new_description",
                                                                     {"my_label": "updated"})

    # tear_down_resources
    model.delete()
    assert aiplatform.Model.list() == []
