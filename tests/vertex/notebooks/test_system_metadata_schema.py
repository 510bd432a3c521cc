"""python-aiplatform's metadata schema system test: artifacts and an execution made from the SDK's
system and google schema classes in the default metadata store, then deleted.

Source: googleapis/python-aiplatform@91cc8ce4f015771b5d8c43c8764ea9dc9abdb216
tests/system/aiplatform/test_e2e_metadata_schema.py, its three tests in order with their shared
names (``_make_display_name``: prefix, key, a UUID); ``tear_down_resources`` deletes what they made.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from tests.vertex.notebooks.conftest import LOCATION, PROJECT_ID

_temp_prefix = "tmpvrtxmlmdsdk-e2e"


def _make_display_name(key: str) -> str:
    return f"{_temp_prefix}-{key}-{uuid.uuid4()}"


artifact_display_name = _make_display_name("base-artifact")[:30]
artifact_uri = _make_display_name("base-uri")
artifact_metadata = {"test_property": "test_value"}
artifact_description = _make_display_name("base-description")
execution_display_name = _make_display_name("base-execution")[:30]
execution_description = _make_display_name("base-description")


def test_metadata_schema_classes(aiplatform: Any) -> None:
    from google.cloud.aiplatform.metadata.schema.google import artifact_schema as google_artifact_schema
    from google.cloud.aiplatform.metadata.schema.system import artifact_schema as system_artifact_schema
    from google.cloud.aiplatform.metadata.schema.system import execution_schema as system_execution_schema

    # test_system_dataset_artifact_create
    aiplatform.init(project=PROJECT_ID, location=LOCATION)
    artifact = system_artifact_schema.Dataset(
        display_name=artifact_display_name,
        uri=artifact_uri,
        metadata=artifact_metadata,
        description=artifact_description,
    ).create()
    resources = [artifact]
    assert artifact.display_name == artifact_display_name
    assert json.dumps(artifact.metadata, sort_keys=True) == json.dumps(artifact_metadata, sort_keys=True)
    assert artifact.schema_title == "system.Dataset"
    assert artifact.description == artifact_description
    assert "/metadataStores/default/artifacts/" in artifact.resource_name
    assert artifact.uri == artifact_uri

    # test_google_dataset_artifact_create
    aiplatform.init(project=PROJECT_ID, location=LOCATION)
    vertex_dataset_name = f"projects/{PROJECT_ID}/locations/{LOCATION}/datasets/dataset"
    artifact = google_artifact_schema.VertexDataset(
        vertex_dataset_name=vertex_dataset_name,
        display_name=artifact_display_name,
        metadata=artifact_metadata,
        description=artifact_description,
    ).create()
    resources.append(artifact)
    expected_metadata = artifact_metadata.copy()
    expected_metadata["resourceName"] = vertex_dataset_name
    assert artifact.display_name == artifact_display_name
    assert json.dumps(artifact.metadata, sort_keys=True) == json.dumps(expected_metadata, sort_keys=True)
    assert artifact.schema_title == "google.VertexDataset"
    assert artifact.description == artifact_description
    assert "/metadataStores/default/artifacts/" in artifact.resource_name
    assert artifact.uri == f"https://{LOCATION}-aiplatform.googleapis.com/v1/{vertex_dataset_name}"

    # test_execution_create_using_system_schema_class
    aiplatform.init(project=PROJECT_ID, location=LOCATION)
    execution = system_execution_schema.CustomJobExecution(
        display_name=execution_display_name,
        description=execution_description,
    ).create()
    resources.append(execution)
    assert execution.display_name == execution_display_name
    assert execution.schema_title == "system.CustomJobExecution"
    assert execution.description == execution_description
    assert "/metadataStores/default/executions/" in execution.resource_name

    # Read back from the store, as another process would see them.
    listed = aiplatform.Artifact.list(filter=f'display_name="{artifact_display_name}"')
    assert sorted(a.schema_title for a in listed) == ["google.VertexDataset", "system.Dataset"]
    assert aiplatform.Execution.get(execution.resource_name).schema_title == "system.CustomJobExecution"

    # tear_down_resources
    for resource in resources:
        resource.delete()
    assert aiplatform.Artifact.list(filter=f'display_name="{artifact_display_name}"') == []
    assert aiplatform.Execution.list(filter=f'display_name="{execution_display_name}"') == []
