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
