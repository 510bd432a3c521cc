"""The PersistentResource dynamic provider (provider/resources/persistent_resource.py) against the
emulator: its create, read, diff and delete with the real google-cloud-aiplatform client, called
in-process and through the Pulumi SDK's own dynamic-provider host with the inputs the program
declares for a stack whose apiEndpoint is the emulator."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from provider.emulator.server import Emulator
from provider.stack.persistent import PersistentResource, ResourcePool
from tests.vertex.conftest import LOCATION, PARENT, PROJECT

pytestmark = pytest.mark.slow

DECLARED = PersistentResource(
    id="vision-l4", display_name="Vision L4 pool", labels=(("team", "vision"),),
    pools=(ResourcePool(machine_type="g2-standard-24", accelerator_type="NVIDIA_L4", accelerator_count=2,
                        replica_count=2, id="l4", min_replica_count=1, max_replica_count=4),))
NAME = f"{PARENT}/persistentResources/vision-l4"


def inputs(emulator: Emulator) -> dict[str, Any]:
    return {"persistentResourceId": DECLARED.id, "project": PROJECT, "region": LOCATION,
            "apiEndpoint": emulator.endpoint, "body": DECLARED.body()}


def test_create_read_diff_delete_in_process(emulator: Emulator) -> None:
    from provider.resources.persistent_resource import PersistentResourceError, PersistentResourceProvider

    emulator.persistent.provision_seconds = emulator.persistent.stop_seconds = 0.2
    provider = PersistentResourceProvider()
    props = inputs(emulator)
    created = provider.create(props)
    assert created.id == NAME
    assert created.outs is not None and (created.outs["resourceName"], created.outs["state"]) == (NAME, "RUNNING")
    served = emulator.persistent.get(NAME)
    assert served["displayName"] == "Vision L4 pool" and served["resourcePools"][0]["id"] == "l4"
    assert served["resourcePools"][0]["autoscalingSpec"] == {"minReplicaCount": "1", "maxReplicaCount": "4"}

    read = provider.read(NAME, created.outs)
    assert read.id == NAME and read.outs is not None and read.outs["state"] == "RUNNING"

    assert provider.diff(NAME, created.outs, {**props}).changes is False
    grown = copy.deepcopy(props)
    grown["body"]["resourcePools"][0]["autoscalingSpec"]["maxReplicaCount"] = "8"
    diff = provider.diff(NAME, created.outs, grown)
    assert diff.changes is True and diff.replaces == ["body"] and diff.delete_before_replace is True

    with pytest.raises(PersistentResourceError, match=r"PersistentResource vision-l4: create failed: .*already exists"):
        provider.create(props)

    provider.delete(NAME, created.outs)
    assert emulator.persistent.state_of(PARENT, "vision-l4") is None
    gone = provider.read(NAME, created.outs)
    assert gone.id == "" and gone.outs == {}  # deleted: the engine drops it from the state
    provider.delete(NAME, created.outs)  # gone already: what was asked


def test_a_refused_create_leaves_nothing(emulator: Emulator) -> None:
    from provider.resources.persistent_resource import PersistentResourceError, PersistentResourceProvider

    props = inputs(emulator)
    props["body"] = copy.deepcopy(props["body"])
    props["body"]["resourcePools"][0]["autoscalingSpec"] = {"minReplicaCount": "0", "maxReplicaCount": "4"}
    with pytest.raises(PersistentResourceError, match=r"create failed: .*min_replica_count; Message: a PersistentResource's autoscaling "
                                                     r"pool needs minReplicaCount of at least 1 \(got 0\)"):
        PersistentResourceProvider().create(props)
    assert emulator.persistent.state_of(PARENT, "vision-l4") is None


def test_through_the_sdk_host_with_the_programs_inputs(emulator: Emulator, tmp_path: Any) -> None:
    from tests.pulumi.conftest import run_program, stack_config
    from tests.pulumi.host import ProviderHost

    emulator.persistent.provision_seconds = emulator.persistent.stop_seconds = 0.2
    declared = [{"id": "vision-l4", "displayName": "Vision L4 pool", "labels": {"team": "vision"},
                 "resourcePools": [{"id": "l4", "machineSpec": {"machineType": "g2-standard-24",
                                                                "acceleratorType": "NVIDIA_L4", "acceleratorCount": 2},
                                    "replicaCount": 2, "autoscalingSpec": {"minReplicaCount": 1, "maxReplicaCount": 4}}]}]
    config = stack_config("vision-dev", **{"trainjobs:persistentResources": declared, "gcp:project": PROJECT,
                                           "trainjobs:apiEndpoint": emulator.endpoint})
    report = run_program(tmp_path, "vision-dev", config)
    assert report["error"] is None, report["error"]
    props = report["dynamicInputs"]["vision-vision-l4"]
    assert props["apiEndpoint"] == emulator.endpoint and "__provider" in props

    with ProviderHost() as host:  # preview, then up
        checked, failures = host.check(props, name="vision-vision-l4")
        assert failures == []
        id_, outs = host.check_and_create(props)
        assert id_ == NAME and outs["state"] == "RUNNING"
        assert emulator.persistent.state_of(PARENT, "vision-l4") == "RUNNING"
        # refresh
        read_id, read = host.read(id_, outs, name="vision-vision-l4")
        assert read_id == NAME and read["state"] == "RUNNING"
        # the same program again: no change; a changed pool: replaced, the old one deleted first
        assert host.diff(id_, outs, checked, name="vision-vision-l4").changes == "DIFF_NONE"
        moved = {**checked, "region": "europe-west4"}
        answer = host.diff(id_, outs, moved, name="vision-vision-l4")
        assert (answer.changes, answer.replaces, answer.delete_before_replace) == ("DIFF_SOME", ("region",), True)
        # destroy
        host.delete(id_, outs, name="vision-vision-l4")
        assert emulator.persistent.state_of(PARENT, "vision-l4") is None
        gone_id, _ = host.read(id_, outs, name="vision-vision-l4")
        assert gone_id == ""
