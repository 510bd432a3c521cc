"""A v1beta1 answer names v1beta1's messages in its ``@type`` values, and only there
(provider/emulator/routes.py ``_retype``): a display name, label or env value that reads like a v1
type URL is the user's, and reads back through /v1beta1/ exactly as written."""

from __future__ import annotations

from typing import Any

from provider.emulator.server import Emulator
from tests.vertex.conftest import PARENT
from tests.vertex.test_emulator_api import http, refused_body

V1 = "type.googleapis.com/google.cloud.aiplatform.v1."
BETA = "type.googleapis.com/google.cloud.aiplatform.v1beta1."


def test_a_users_strings_that_read_like_v1_type_urls_come_back_as_written(emulator: Emulator) -> None:
    named = V1 + "CustomJob"
    body: dict[str, Any] = refused_body("typed")
    body["displayName"] = named
    body["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["env"] = [{"name": "TYPE", "value": named}]
    status, _, job = http(emulator, "POST", f"/v1beta1/{PARENT}/customJobs", body)
    assert status == 200, job
    status, _, read = http(emulator, "GET", f"/v1beta1/{job['name']}")
    assert status == 200, read
    for answer in (job, read):
        assert answer["displayName"] == named
        assert answer["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["env"] == [{"name": "TYPE",
                                                                                        "value": named}]
    _, _, listed = http(emulator, "GET", f"/v1beta1/{PARENT}/customJobs")
    assert [j["displayName"] for j in listed["customJobs"]] == [named]


def test_an_operations_types_are_v1beta1s_and_the_resource_in_it_keeps_its_strings(emulator: Emulator) -> None:
    named = V1 + "Tensorboard"
    labels = {"note": V1 + "x"}
    status, _, op = http(emulator, "POST", f"/v1beta1/{PARENT}/tensorboards",
                         {"displayName": named, "description": named, "labels": labels})
    assert status == 200, op
    assert op["metadata"]["@type"] == BETA + "CreateTensorboardOperationMetadata"
    assert op["response"]["@type"] == BETA + "Tensorboard"
    assert op["response"]["displayName"] == named and op["response"]["description"] == named
    assert op["response"]["labels"] == labels
    _, _, again = http(emulator, "GET", f"/v1beta1/{op['name']}")  # the operation read back: the same
    assert again["response"]["@type"] == BETA + "Tensorboard" and again["response"]["displayName"] == named
    _, _, board = http(emulator, "GET", f"/v1beta1/{op['response']['name']}")
    assert (board["displayName"], board["description"], board["labels"]) == (named, named, labels)
    _, _, v1 = http(emulator, "GET", f"/v1/{op['name']}")  # v1 answers keep v1's types
    assert v1["response"]["@type"] == V1 + "Tensorboard"


def test_a_users_metadata_struct_holding_type_keys_comes_back_as_written(emulator: Emulator) -> None:
    """An artifact's and an execution's ``metadata`` is a google.protobuf.Struct: a ``@type`` key in
    it is the user's (no Any is there), read back through the v1beta1 SDK and HTTP as written."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1beta1 as beta

    client = beta.MetadataServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                        client_options={"api_endpoint": emulator.endpoint})
    store = client.create_metadata_store(parent=PARENT, metadata_store_id="typed").result(timeout=60)
    written = {"@type": V1 + "Artifact", "nested": {"@type": V1 + "CustomJob", "epochs": 3.0},
               "runs": [{"@type": V1 + "Execution"}]}
    artifact = client.create_artifact(parent=store.name, artifact_id="a1", artifact=beta.Artifact(
        uri="gs://b/a", schema_title="system.Artifact", metadata=written))
    execution = client.create_execution(parent=store.name, execution_id="e1", execution=beta.Execution(
        schema_title="system.Run", metadata=written))
    assert dict(artifact.metadata) == written and dict(execution.metadata) == written
    assert dict(client.get_artifact(name=artifact.name).metadata) == written
    assert dict(client.get_execution(name=execution.name).metadata) == written
    assert [dict(a.metadata) for a in client.list_artifacts(parent=store.name)] == [written]
    for path in (artifact.name, execution.name):
        status, _, raw = http(emulator, "GET", f"/v1beta1/{path}")
        assert status == 200 and raw["metadata"] == written, raw
    _, _, listed = http(emulator, "GET", f"/v1beta1/{store.name}/executions")
    assert [e["metadata"] for e in listed["executions"]] == [written]
