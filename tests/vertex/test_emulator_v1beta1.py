"""The v1beta1 surface: google-cloud-aiplatform's ``aiplatform_v1beta1`` clients reach the emulator's
v1 routes, and what comes back, operations included, is typed as v1beta1's messages. And a model's
first version keeps its aliases in the order the upload gave them, ``default`` after them."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from provider.emulator.server import Emulator
from tests.vertex.conftest import PARENT

pytestmark = pytest.mark.slow


def _beta(emulator: Emulator, name: str) -> Any:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1beta1

    return getattr(aiplatform_v1beta1, name)(transport="rest", credentials=AnonymousCredentials(),
                                             client_options={"api_endpoint": emulator.endpoint})


def test_v1beta1_clients_create_and_read_through_operations(emulator: Emulator) -> None:
    from google.cloud import aiplatform_v1beta1 as beta

    tb = _beta(emulator, "TensorboardServiceClient")
    board = tb.create_tensorboard(parent=PARENT, tensorboard=beta.Tensorboard(display_name="beta")).result(timeout=60)
    assert isinstance(board, beta.Tensorboard) and board.display_name == "beta"
    assert [b.name for b in tb.list_tensorboards(parent=PARENT)] == [board.name]

    metadata = _beta(emulator, "MetadataServiceClient")
    store = metadata.create_metadata_store(parent=PARENT, metadata_store_id="beta-store").result(timeout=60)
    assert store.name == f"{PARENT}/metadataStores/beta-store"
    artifact = metadata.create_artifact(parent=store.name, artifact_id="a1",
                                        artifact=beta.Artifact(uri="gs://b/a", schema_title="system.Artifact"))
    assert metadata.get_artifact(name=artifact.name).uri == "gs://b/a"

    # The same call over plain HTTP: the operation's Any values name v1beta1's messages.
    request = urllib.request.Request(f"{emulator.endpoint}/v1beta1/{PARENT}/tensorboards",
                                     data=json.dumps({"displayName": "raw"}).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as answer:
        op = json.load(answer)
    assert op["metadata"]["@type"] == "type.googleapis.com/google.cloud.aiplatform.v1beta1.CreateTensorboardOperationMetadata"
    assert op["response"]["@type"] == "type.googleapis.com/google.cloud.aiplatform.v1beta1.Tensorboard"


def test_first_version_keeps_the_aliases_order(emulator: Emulator) -> None:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1 as v1

    models = v1.ModelServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                   client_options={"api_endpoint": emulator.endpoint})
    spec = v1.ModelContainerSpec(image_uri="us-docker.pkg.dev/vertex-ai/prediction/sklearn-cpu.1-0:latest")
    done = models.upload_model(request=v1.UploadModelRequest(parent=PARENT, model_id="ordered", model=v1.Model(
        display_name="ordered", artifact_uri="gs://b/m", container_spec=spec,
        version_aliases=["zeta", "alpha"]))).result(timeout=60)
    assert list(models.get_model(name=done.model).version_aliases) == ["zeta", "alpha", "default"]
    done = models.upload_model(request=v1.UploadModelRequest(parent=PARENT, model_id="named", model=v1.Model(
        display_name="named", artifact_uri="gs://b/m", container_spec=spec,
        version_aliases=["default", "beta"]))).result(timeout=60)
    assert list(models.get_model(name=done.model).version_aliases) == ["default", "beta"]


def _error(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_v1beta1_paths_are_decoded_once_as_v1_paths_are(emulator: Emulator) -> None:
    # %252F is "%2F" once decoded: a job ID no job has. Decoded twice it would be a "/" and reach
    # another route; a v1beta1 path must answer exactly as its v1 twin.
    tail = f"{PARENT}/customJobs/a%252Fb"
    v1 = _error(f"{emulator.endpoint}/v1/{tail}")
    beta = _error(f"{emulator.endpoint}/v1beta1/{tail}")
    assert v1[0] == beta[0] == 404
    assert beta[1] == v1[1]
