"""get_started_with_vertex_ml_metadata: a metadata store, artifacts, executions, contexts, events and
a lineage subgraph through the v1beta1 gapic MetadataServiceClient.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/community/ml_ops/stage4/get_started_with_vertex_ml_metadata.ipynb (cells 36-67). The
client is made as the notebook makes it, at the emulator's endpoint over REST (the only additions;
the notebook's default is gRPC at REGION-aiplatform.googleapis.com). The pipeline half of the
notebook (cells 69-77: KFP, BigQuery) is not a training flow and is left out.
"""

from __future__ import annotations

from typing import Any

from tests.vertex.notebooks.conftest import LOCATION, PROJECT_ID, Served


def test_metadata_store_resources_and_lineage(aiplatform: Any, served: Served) -> None:
    import google.cloud.aiplatform_v1beta1 as aip_beta
    from google.auth.credentials import AnonymousCredentials

    REGION = LOCATION
    PARENT = "projects/" + PROJECT_ID + "/locations/" + REGION
    client_options = {"api_endpoint": served.endpoint}

    def create_metadata_client() -> Any:
        client = aip_beta.MetadataServiceClient(client_options=client_options, transport="rest",
                                                credentials=AnonymousCredentials())
        return client

    clients = {}
    clients["metadata"] = create_metadata_client()

    metadata_store = clients["metadata"].create_metadata_store(
        parent=PARENT, metadata_store_id="my-metadata-store-unique"
    )
    metadata_store_id = str(metadata_store.result())[7:-2]
    assert metadata_store_id == PARENT + "/metadataStores/my-metadata-store-unique"

    schemas = clients["metadata"].list_metadata_schemas(parent=metadata_store_id)
    assert any(s.schema.startswith("title: system.Artifact") or "system.Artifact" in s.schema for s in schemas)

    from google.cloud.aiplatform_v1beta1.types import Artifact

    artifact_item = Artifact(
        display_name="my_example_artifact",
        uri="my_url",
        labels={"my_label": "value"},
        schema_title="system.Artifact",
        metadata={"param": "value"},
    )
    artifact = clients["metadata"].create_artifact(
        parent=metadata_store_id,
        artifact=artifact_item,
        artifact_id="myartifactid",
    )
    assert artifact.name == metadata_store_id + "/artifacts/myartifactid" and artifact.uri == "my_url"

    artifacts = clients["metadata"].list_artifacts(parent=metadata_store_id)
    assert [a.name for a in artifacts] == [artifact.name]

    from google.cloud.aiplatform_v1beta1.types import Execution

    execution = clients["metadata"].create_execution(
        parent=metadata_store_id,
        execution=Execution(
            display_name="my_execution",
            schema_title="system.CustomJobExecution",
            metadata={"value": "param"},
        ),
        execution_id="myexecutionid",
    )
    executions = clients["metadata"].list_executions(parent=metadata_store_id)
    assert [e.name for e in executions] == [execution.name]

    from google.cloud.aiplatform_v1beta1.types import Context

    context = clients["metadata"].create_context(
        parent=metadata_store_id,
        context=Context(
            display_name="my_context",
            labels=[{"my_label", "my_value"}],
            schema_title="system.Pipeline",
            metadata={"param": "value"},
        ),
        context_id="mycontextid",
    )
    contexts = clients["metadata"].list_contexts(parent=metadata_store_id)
    assert [c.name for c in contexts] == [context.name]

    from google.cloud.aiplatform_v1beta1.types import Event

    clients["metadata"].add_execution_events(
        execution=execution.name,
        events=[
            Event(
                artifact=artifact.name,
                type_=Event.Type.INPUT,
                labels={"my_label": "my_value"},
            )
        ],
    )
    clients["metadata"].add_context_artifacts_and_executions(
        context=context.name, artifacts=[artifact.name], executions=[execution.name]
    )
    subgraph = clients["metadata"].query_context_lineage_subgraph(context=context.name)
    assert [a.name for a in subgraph.artifacts] == [artifact.name]
    assert [e.name for e in subgraph.executions] == [execution.name]
    assert [(e.artifact, e.execution, e.type_) for e in subgraph.events] == [
        (artifact.name, execution.name, Event.Type.INPUT)]

    clients["metadata"].delete_artifact(name=artifact.name)
    clients["metadata"].delete_execution(name=execution.name)
    clients["metadata"].delete_context(name=context.name)
    assert list(clients["metadata"].list_contexts(parent=metadata_store_id)) == []
