"""The emulator's PersistentResource API (provider/emulator/persistent.py), through the real
google-cloud-aiplatform PersistentResourceServiceClient and JobServiceClient over REST.

Create answers a long-running Operation that is done once the resource is RUNNING; get, list
(paged), delete (an Operation, STOPPING until gone); a job naming ``persistentResourceId`` runs
only on a RUNNING resource of its project and location.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from provider.emulator.server import Emulator
from tests.vertex.conftest import LOCATION, PARENT, PROJECT

pytestmark = pytest.mark.slow

IMAGE = "us-docker.pkg.dev/acme-vision/train/trainer:1"
OPERATION_TIMEOUT = 120.0  # generous: the machine is loaded
POOL = {"machineSpec": {"machineType": "g2-standard-24", "acceleratorType": "NVIDIA_L4", "acceleratorCount": 2},
        "replicaCount": "2", "autoscalingSpec": {"minReplicaCount": "1", "maxReplicaCount": "4"}}


def resource_client(emulator: Emulator) -> Any:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1

    return aiplatform_v1.PersistentResourceServiceClient(
        transport="rest", credentials=AnonymousCredentials(), client_options={"api_endpoint": emulator.endpoint})


def message(body: dict[str, Any]) -> Any:
    from google.cloud import aiplatform_v1

    return aiplatform_v1.PersistentResource.from_json(json.dumps(body))


def create_running(emulator: Emulator, resource_id: str, body: dict[str, Any] | None = None) -> Any:
    """Create a PersistentResource through the client and wait for its operation: the resource, RUNNING."""
    operation = resource_client(emulator).create_persistent_resource(
        parent=PARENT, persistent_resource=message(body or {"resourcePools": [POOL]}),
        persistent_resource_id=resource_id)
    return operation.result(timeout=OPERATION_TIMEOUT)


def custom_job(resource_id: str, machine: dict[str, Any] | None = None, workers: int = 0) -> Any:
    """A job with its chief (and ``workers`` more replicas in a second pool) on ``machine``."""
    from google.cloud import aiplatform_v1

    def pool(replicas: int) -> dict[str, Any]:
        return {"machineSpec": machine or {"machineType": "n1-standard-4"}, "replicaCount": str(replicas),
                "containerSpec": {"imageUri": IMAGE}}

    return aiplatform_v1.CustomJob.from_json(json.dumps({
        "displayName": "on-a-pool",
        "jobSpec": {"persistentResourceId": resource_id,
                    "workerPoolSpecs": [pool(1), *([pool(workers)] if workers else [])]}}))


def test_create_get_list_delete_through_the_client(emulator: Emulator) -> None:
    from google.api_core.exceptions import NotFound
    from google.cloud import aiplatform_v1

    client = resource_client(emulator)
    emulator.persistent.provision_seconds = 0.5
    operation = client.create_persistent_resource(
        parent=PARENT, persistent_resource=message({"displayName": "Vision L4 pool", "resourcePools": [POOL],
                                                    "labels": {"team": "vision"}}),
        persistent_resource_id="vision-l4")
    name = f"{PARENT}/persistentResources/vision-l4"
    assert operation.operation.name.startswith(name + "/operations/")
    assert isinstance(operation.metadata, aiplatform_v1.CreatePersistentResourceOperationMetadata)
    created = operation.result(timeout=OPERATION_TIMEOUT)
    assert created.name == name and created.state.name == "RUNNING"
    assert created.display_name == "Vision L4 pool" and dict(created.labels) == {"team": "vision"}
    (pool,) = created.resource_pools
    assert (pool.machine_spec.machine_type, pool.machine_spec.accelerator_type.name, pool.machine_spec.accelerator_count,
            pool.replica_count, pool.autoscaling_spec.min_replica_count, pool.autoscaling_spec.max_replica_count) == (
        "g2-standard-24", "NVIDIA_L4", 2, 2, 1, 4)
    assert pool.id  # Vertex AI names a pool given without an id
    got = client.get_persistent_resource(name=name)
    assert got.state.name == "RUNNING" and got.create_time and got.start_time

    assert [r.name for r in client.list_persistent_resources(parent=PARENT)] == [name]
    assert list(client.list_persistent_resources(parent=f"projects/{PROJECT}/locations/europe-west4")) == []

    emulator.persistent.stop_seconds = 0.5
    deleting = client.delete_persistent_resource(name=name)
    assert client.get_persistent_resource(name=name).state.name == "STOPPING"
    deleting.result(timeout=OPERATION_TIMEOUT)
    with pytest.raises(NotFound, match="vision-l4 does not exist"):
        client.get_persistent_resource(name=name)
    assert list(client.list_persistent_resources(parent=PARENT)) == []


def test_a_resource_is_provisioning_until_its_machines_are_up(emulator: Emulator) -> None:
    emulator.persistent.provision_seconds = 3600.0
    operation = resource_client(emulator).create_persistent_resource(
        parent=PARENT, persistent_resource=message({"resourcePools": [POOL]}), persistent_resource_id="slow")
    assert operation.done() is False
    assert resource_client(emulator).get_persistent_resource(name=f"{PARENT}/persistentResources/slow").state.name \
        == "PROVISIONING"


def test_list_pages_with_page_size_and_token(emulator: Emulator) -> None:
    emulator.persistent.provision_seconds = 0.0
    ids = [f"pool-{i}" for i in range(5)]
    for resource_id in ids:
        create_running(emulator, resource_id)
    client = resource_client(emulator)
    pages = list(client.list_persistent_resources(request={"parent": PARENT, "page_size": 2}).pages)
    assert [len(p.persistent_resources) for p in pages] == [2, 2, 1]
    assert [r.name.rsplit("/", 1)[1] for p in pages for r in p.persistent_resources] == ids
    assert pages[-1].next_page_token == ""


def test_create_refuses_what_vertex_ai_refuses(emulator: Emulator) -> None:
    from google.api_core.exceptions import BadRequest, Conflict

    client = resource_client(emulator)
    emulator.persistent.provision_seconds = 0.0
    with pytest.raises(BadRequest, match="persistent_resource_id; Message: Required field is not set"):
        client.create_persistent_resource(parent=PARENT, persistent_resource=message({"resourcePools": [POOL]}))
    with pytest.raises(BadRequest, match="Invalid ID 'Vision_L4'"):
        client.create_persistent_resource(parent=PARENT, persistent_resource=message({"resourcePools": [POOL]}),
                                          persistent_resource_id="Vision_L4")
    with pytest.raises(BadRequest, match="At least one resource pool is required"):
        client.create_persistent_resource(parent=PARENT, persistent_resource=message({}), persistent_resource_id="empty")
    upside_down = {**POOL, "autoscalingSpec": {"minReplicaCount": "4", "maxReplicaCount": "2"}}
    with pytest.raises(BadRequest, match=r"resource_pools\[0\]\.autoscaling_spec\.max_replica_count; Message: "
                                         r"maxReplicaCount 2 is not greater than minReplicaCount 4 \(allowed: "
                                         r"maxReplicaCount > 4\)"):
        client.create_persistent_resource(parent=PARENT, persistent_resource=message({"resourcePools": [upside_down]}),
                                          persistent_resource_id="upside-down")
    three = {**POOL, "machineSpec": {**POOL["machineSpec"], "acceleratorCount": 3}}  # type: ignore[dict-item]
    with pytest.raises(BadRequest, match=r"resource_pools\[0\]\.machine_spec\.accelerator_count; Message: 3 x "
                                         r"NVIDIA_L4 is not a valid count on g2-standard-24 \(allowed: 2 x NVIDIA_L4 "
                                         r"on g2-standard-24\)"):
        client.create_persistent_resource(parent=PARENT, persistent_resource=message({"resourcePools": [three]}),
                                          persistent_resource_id="three-l4")
    unknown = {"machineSpec": {"machineType": "n9-huge"}, "replicaCount": "1"}
    with pytest.raises(BadRequest, match=r"machine_type; Message: Machine type \"n9-huge\" is not offered"):
        client.create_persistent_resource(parent=PARENT, persistent_resource=message({"resourcePools": [unknown]}),
                                          persistent_resource_id="unknown")
    create_running(emulator, "taken")
    with pytest.raises(Conflict, match="taken already exists") as caught:
        create_running(emulator, "taken")
    assert caught.value.response.json()["error"]["status"] == "ALREADY_EXISTS"  # type: ignore[attr-defined]


def test_a_job_runs_only_on_a_running_resource_of_its_location(emulator: Emulator, client: Any) -> None:
    from google.api_core.exceptions import BadRequest, NotFound

    with pytest.raises(NotFound, match="persistentResources/team-pool named in persistent_resource_id does not exist"):
        client.create_custom_job(parent=PARENT, custom_job=custom_job("team-pool"))
    emulator.persistent.provision_seconds = 3600.0
    resource_client(emulator).create_persistent_resource(
        parent=PARENT, persistent_resource=message({"resourcePools": [POOL]}), persistent_resource_id="team-pool")
    with pytest.raises(BadRequest, match="team-pool named in persistent_resource_id is PROVISIONING") as caught:
        client.create_custom_job(parent=PARENT, custom_job=custom_job("team-pool"))
    assert caught.value.response.json()["error"]["status"] == "FAILED_PRECONDITION"  # type: ignore[attr-defined]
    emulator.persistent.provision_seconds = 0.0
    create_running(emulator, "ready-pool")
    job = client.create_custom_job(parent=PARENT, custom_job=custom_job("ready-pool", POOL["machineSpec"], workers=4))
    assert job.job_spec.persistent_resource_id == "ready-pool"
    assert LOCATION in job.name


def test_a_job_must_fit_a_pool_of_the_resource(emulator: Emulator, client: Any) -> None:
    """Machine and disk type as a resource pool's, replicas within its replicaCount or maxReplicaCount."""
    from google.api_core.exceptions import BadRequest

    emulator.persistent.provision_seconds = 0.0
    create_running(emulator, "l4-pool")
    with pytest.raises(BadRequest, match=r"worker_pool_specs\[0\]\.machine_spec; Message: No resource pool of "
                                         r"projects/.*/l4-pool has n1-standard-4 and a pd-ssd boot disk \(its pools: "
                                         r"g2-standard-24-0: g2-standard-24 with 2 x NVIDIA_L4 and a pd-ssd boot disk\)"):
        client.create_custom_job(parent=PARENT, custom_job=custom_job("l4-pool"))
    with pytest.raises(BadRequest, match=r"worker_pool_specs\[1\]\.replica_count; Message: 5 replicas is more than "
                                         r"the 4 that the matching resource pool"):
        client.create_custom_job(parent=PARENT, custom_job=custom_job("l4-pool", POOL["machineSpec"], workers=5))


def test_resources_survive_a_restart_and_a_stray_file_is_named(emulators: Any) -> None:
    first = emulators.start()
    first.persistent.provision_seconds = 0.0
    create_running(first, "kept")
    emulators.stop(first)
    stray = emulators.state_dir / "persistentResources" / "stray.json"
    stray.write_text('{"name": "projects/p/locations/l/persistentResources/stray"}')
    second = emulators.start()
    got = resource_client(second).get_persistent_resource(name=f"{PARENT}/persistentResources/kept")
    assert got.state.name == "RUNNING"
    assert any(str(stray) in w and "not a PersistentResource record" in w for w in second.warnings())
    assert stray.exists()  # left as it is
