"""Issue 11, item 5: today's Vertex AI job fields in the native and the verbatim Vertex formats."""

from __future__ import annotations

import json
from typing import Any

import yaml

from provider.submission.emit import to_native
from provider.submission.request import build_request
from provider.validation.rules import Context, Target
from provider.validation.validator import SpecResult, validate_bytes

RESERVATION = "projects/p/zones/us-central1-a/reservations/team-a100"
TENSORBOARD = "projects/p/locations/us-central1/tensorboards/123"
EXPERIMENT = "projects/p/locations/us-central1/metadataStores/default/contexts/exp"
NETWORK = "projects/12345/global/networks/myVPC"
SA = "trainer@p.iam.gserviceaccount.com"


def _check(spec: dict[str, Any], target: Target = Target.ANY) -> SpecResult:
    doc = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "fields"}, "spec": spec}
    return validate_bytes(yaml.safe_dump(doc, sort_keys=False).encode(), "spec.yaml", Context(target=target))


def _native(**extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "region": "us-central1",
        "workerPools": {"chief": {"machineType": "n1-standard-4", "reservationAffinity": {
            "reservationAffinityType": "SPECIFIC_RESERVATION", "key": "compute.googleapis.com/reservation-name",
            "values": [RESERVATION]}}},
        "application": {"container": {"image": "gcr.io/p/i:1"}},
        "serviceAccount": SA,
        "persistentResourceId": "team-pool",
        "enableWebAccess": True,
        "network": NETWORK,
        "reservedIpRanges": ["vertex-ai-ip-range"],
        "tensorboard": TENSORBOARD,
        "scheduling": {"strategy": "FLEX_START", "maxWaitDuration": "600s", "disableRetries": True},
    }
    spec.update(extra)
    return spec


def _job_spec(result: SpecResult) -> dict[str, Any]:
    from google.cloud import aiplatform_v1

    assert result.job is not None, result.problems
    body = build_request(result.job, "p").body
    # The SDK's own message types know every field (from_json refuses unknown ones).
    message = aiplatform_v1.CustomJob.from_json(json.dumps(body))
    spec: dict[str, Any] = json.loads(aiplatform_v1.CustomJob.to_json(
        message, use_integers_for_enums=False, always_print_fields_with_no_presence=False))["jobSpec"]
    return spec


def _rules(result: SpecResult) -> dict[str, bool]:
    return {p.rule: p.is_error for p in result.problems}


def test_native_fields_reach_the_request() -> None:
    result = _check(_native())
    assert result.ok, result.problems
    spec = _job_spec(result)
    assert spec["persistentResourceId"] == "team-pool"
    assert spec["enableWebAccess"] is True
    assert spec["network"] == NETWORK and spec["reservedIpRanges"] == ["vertex-ai-ip-range"]
    assert spec["tensorboard"] == TENSORBOARD
    assert spec["scheduling"] == {"strategy": "FLEX_START", "maxWaitDuration": "600s", "disableRetries": True}
    assert spec["workerPoolSpecs"][0]["machineSpec"]["reservationAffinity"] == {
        "reservationAffinityType": "SPECIFIC_RESERVATION", "key": "compute.googleapis.com/reservation-name",
        "values": [RESERVATION]}


def test_convert_output_keeps_the_fields() -> None:
    result = _check(_native())
    assert result.job is not None
    native = to_native(result.job)
    again = validate_bytes(yaml.safe_dump(native).encode(), "again.yaml")
    assert again.ok, again.problems
    assert _job_spec(again) == _job_spec(result)


def test_sdk_snake_case_and_rest_forms() -> None:
    pool = {"replica_count": 1, "machine_spec": {"machine_type": "n1-standard-4", "reservation_affinity": {
        "reservation_affinity_type": "ANY_RESERVATION"}}, "container_spec": {"image_uri": "gcr.io/p/i:1"}}
    snake = {"region": "us-central1", "worker_pool_specs": [pool], "persistent_resource_id": "team-pool",
             "enable_web_access": True, "experiment": EXPERIMENT, "experiment_run": EXPERIMENT + "-run1",
             "service_account": SA, "scheduling": {"disable_retries": True}}
    result = _check(snake)
    assert result.ok, result.problems
    spec = _job_spec(result)
    assert spec["workerPoolSpecs"][0]["machineSpec"]["reservationAffinity"] == {
        "reservationAffinityType": "ANY_RESERVATION"}
    assert spec["experiment"] == EXPERIMENT and spec["experimentRun"] == EXPERIMENT + "-run1"
    assert spec["persistentResourceId"] == "team-pool" and spec["scheduling"] == {"disableRetries": True}
    rest = {"region": "us-central1", "workerPoolSpecs": [{"replicaCount": 1, "machineSpec": {
        "machineType": "n1-standard-4"}, "containerSpec": {"imageUri": "gcr.io/p/i:1"}}],
        "network": NETWORK, "reservedIpRanges": ["vertex-ai-ip-range"], "enableWebAccess": True}
    spec = _job_spec(_check(rest))
    assert spec["network"] == NETWORK and spec["reservedIpRanges"] == ["vertex-ai-ip-range"]


def test_the_local_backend_says_what_it_does_not_emulate() -> None:
    result = _check(_native(), Target.LOCAL)
    paths = {p.path for p in result.problems if p.rule == "local.not_emulated"}
    assert all(not p.is_error for p in result.problems if p.rule == "local.not_emulated")
    assert paths == {"spec.persistentResourceId", "spec.enableWebAccess", "spec.network", "spec.reservedIpRanges",
                     "spec.tensorboard", "spec.scheduling.disableRetries",
                     "spec.workerPools.chief.reservationAffinity"}
    assert "local.not_emulated" not in _rules(_check(_native(), Target.VERTEX))


def test_max_wait_duration_needs_flex_start() -> None:
    result = _check(_native(scheduling={"strategy": "SPOT", "maxWaitDuration": "600s"}))
    assert _rules(result).get("scheduling.max_wait_duration") is True
    both = _check(_native(scheduling={"maxWaitTime": "3600s", "maxWaitDuration": "600s", "strategy": "FLEX_START"}))
    assert not both.ok


def test_disable_retries_with_restart_is_a_warning() -> None:
    result = _check(_native(scheduling={"disableRetries": True, "restartJobOnWorkerRestart": True}))
    assert _rules(result).get("scheduling.disable_retries") is False


def test_fields_are_checked_against_each_other() -> None:
    no_values = _native()
    no_values["workerPools"]["chief"]["reservationAffinity"] = {"reservationAffinityType": "SPECIFIC_RESERVATION"}
    assert _rules(_check(no_values)).get("reservation.affinity") is True
    stray = _native()
    stray["workerPools"]["chief"]["reservationAffinity"] = {"reservationAffinityType": "NO_RESERVATION",
                                                            "values": [RESERVATION]}
    assert _rules(_check(stray)).get("reservation.affinity") is True
    no_network = _native()
    del no_network["network"]
    assert _rules(_check(no_network)).get("job.reservedIpRanges") is True
    run_alone = _native(experimentRun=EXPERIMENT + "-run1")
    del run_alone["tensorboard"]
    assert _rules(_check(run_alone)).get("job.experimentRun") is True
    both = _native(experiment=EXPERIMENT)
    assert _rules(_check(both)).get("job.tensorboard") is True
    no_sa = _native()
    del no_sa["serviceAccount"]
    assert _rules(_check(no_sa)).get("job.tensorboard") is True


def test_malformed_values_are_schema_errors() -> None:
    for key, value in (("persistentResourceId", "Team_Pool"), ("network", "myVPC"), ("tensorboard", "tb"),
                       ("enableWebAccess", "yes please")):
        result = _check(_native(**{key: value}))
        assert any(p.path == f"spec.{key}" and p.is_error for p in result.problems), (key, result.problems)


def test_malformed_values_are_schema_errors_in_the_verbatim_vertex_forms_too() -> None:
    """The Vertex formats hold these fields to the same patterns as the native one (they once lost them)."""
    pool = {"replicaCount": 1, "machineSpec": {"machineType": "n1-standard-4"}, "containerSpec": {"imageUri": "gcr.io/p/i:1"}}
    for key, snake, value in (("persistentResourceId", "persistent_resource_id", "Team_Pool"), ("network", "network", "myVPC"),
                              ("enableWebAccess", "enable_web_access", "yes please")):
        rest = _check({"region": "us-central1", "workerPoolSpecs": [pool], key: value})
        assert any(p.path == f"spec.{key}" and p.is_error for p in rest.problems), (key, rest.problems)
        sdk = _check({"region": "us-central1", "worker_pool_specs": [{"replica_count": 1, "machine_spec": {
            "machine_type": "n1-standard-4"}, "container_spec": {"image_uri": "gcr.io/p/i:1"}}], snake: value})
        assert any(p.path == f"spec.{snake}" and p.is_error for p in sdk.problems), (snake, sdk.problems)


def test_a_job_targets_a_persistent_resource_its_stack_declares() -> None:
    doc = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "fields"}, "spec": _native()}
    text = yaml.safe_dump(doc).encode()
    unknown = validate_bytes(text, "s.yaml", Context(persistent_resources=None))
    assert "job.persistentResourceId" not in _rules(unknown)  # the stack does not say: nothing to check
    declared = validate_bytes(text, "s.yaml", Context(persistent_resources=("team-pool",)))
    assert "job.persistentResourceId" not in _rules(declared)
    missing = validate_bytes(text, "s.yaml", Context(persistent_resources=("other-pool",)))
    [problem] = [p for p in missing.problems if p.rule == "job.persistentResourceId"]
    assert problem.is_error and "other-pool" in (problem.allowed or "")
