"""A field written at its proto3 default reaches the request as written, as gcloud sends it.

gcloud reads a ``--config`` (or a REST body) into apitools messages and encodes every field that
was assigned, ``false``, ``0`` and ``*_UNSPECIFIED`` included (apitools protojson: only unset
fields and empty lists are left out). trainjobs carries what the spec wrote the same way, through
each door: a Vertex config, a native spec, a tuning body, and ``convert`` (to_native) back again.
A state written before (without those fields) reads as the same request: Diff and the identity
fingerprint see an explicit default as absent, as Vertex AI does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from provider.resources.job_diff import job_diff
from provider.submission.diffing import Action, diff, fingerprint, without_defaults
from provider.submission.emit import to_native
from provider.validation.rules import Context, Target
from provider.validation.validator import validate_bytes

from .conftest import no_traceback, run_cli
from .spec_request import checked_job, request_body

SCHEDULING = {"restartJobOnWorkerRestart": False, "disableRetries": False, "strategy": "STRATEGY_UNSPECIFIED"}
OPTIONS = {"enableWebAccess": False, "enableDashboardAccess": False}
POOL = {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
        "containerSpec": {"imageUri": "us-docker.pkg.dev/p/r/trainer:1"}}
STUDY = {"metrics": [{"metricId": "accuracy", "goal": "MAXIMIZE"}],
         "parameters": [{"parameterId": "lr", "doubleValueSpec": {"minValue": 0.001, "maxValue": 0.1}}],
         "algorithm": "ALGORITHM_UNSPECIFIED"}
STUDY_DEFAULTS = {"measurementSelectionType": "MEASUREMENT_SELECTION_TYPE_UNSPECIFIED",
                  "observationNoise": "OBSERVATION_NOISE_UNSPECIFIED",
                  "medianAutomatedStoppingSpec": {"useElapsedDuration": False}}
CATEGORICAL = {"parameterId": "opt", "categoricalValueSpec": {"values": ["sgd", "adam"]},
               "scaleType": "SCALE_TYPE_UNSPECIFIED"}


def _request(spec: dict[str, Any]) -> dict[str, Any]:
    job = checked_job(spec, "defaults")
    body = request_body(job)
    again = validate_bytes(yaml.safe_dump(to_native(job)).encode(), "native.yaml", Context())
    assert again.job is not None
    assert request_body(again.job) == body  # convert writes the explicit values too
    return body


def test_a_vertex_config_s_explicit_defaults_are_sent() -> None:
    body = _request({"workerPoolSpecs": [POOL], "scheduling": SCHEDULING, **OPTIONS})
    assert body["jobSpec"]["scheduling"] == SCHEDULING
    assert {k: body["jobSpec"][k] for k in OPTIONS} == OPTIONS


def test_a_native_spec_s_explicit_defaults_are_sent() -> None:
    body = _request({"workerPools": {"chief": {"machineType": "n1-standard-4"}},
                     "application": {"container": {"image": "us-docker.pkg.dev/p/r/trainer:1"}},
                     "scheduling": {"restartJobOnWorkerRestart": False, "disableRetries": False}, **OPTIONS})
    assert body["jobSpec"]["scheduling"] == {"restartJobOnWorkerRestart": False, "disableRetries": False}
    assert {k: body["jobSpec"][k] for k in OPTIONS} == OPTIONS


def test_a_tuning_body_s_explicit_defaults_are_sent() -> None:
    body = _request({"studySpec": STUDY, "maxTrialCount": 4, "parallelTrialCount": 2, "maxFailedTrialCount": 0,
                     "trialJobSpec": {"workerPoolSpecs": [POOL], "scheduling": {"restartJobOnWorkerRestart": False}}})
    assert body["studySpec"]["algorithm"] == "ALGORITHM_UNSPECIFIED"
    assert body["maxFailedTrialCount"] == 0
    assert body["trialJobSpec"]["scheduling"] == {"restartJobOnWorkerRestart": False}


def test_a_study_s_explicit_defaults_are_sent() -> None:
    """*_UNSPECIFIED enums (a CATEGORICAL parameter's scale among them: the default is no scale) and a
    stopping spec's false are sent as written, and read as the service's defaults, not refused."""
    study = {**STUDY, **STUDY_DEFAULTS, "parameters": [*STUDY["parameters"], CATEGORICAL]}
    body = _request({"studySpec": study, "maxTrialCount": 4, "parallelTrialCount": 2,
                     "trialJobSpec": {"workerPoolSpecs": [POOL]}})
    assert {k: body["studySpec"][k] for k in STUDY_DEFAULTS} == STUDY_DEFAULTS
    assert body["studySpec"]["parameters"][1] == CATEGORICAL


def test_what_is_not_written_is_not_sent() -> None:
    body = _request({"workerPoolSpecs": [POOL]})
    assert "scheduling" not in body["jobSpec"]
    assert not set(OPTIONS) & set(body["jobSpec"])
    tuned = _request({"studySpec": {k: v for k, v in STUDY.items() if k != "algorithm"}, "maxTrialCount": 4,
                      "parallelTrialCount": 2, "trialJobSpec": {"workerPoolSpecs": [POOL]}})
    assert "algorithm" not in tuned["studySpec"] and "maxFailedTrialCount" not in tuned


def test_a_state_written_before_reads_as_the_same_request() -> None:
    """Pulumi: the state's request (no explicit defaults) and today's (with them) are the same job."""
    new = _request({"workerPoolSpecs": [POOL], "scheduling": SCHEDULING, **OPTIONS})
    old = without_defaults(new)
    assert "scheduling" not in old["jobSpec"] or not old["jobSpec"]["scheduling"]
    assert diff(old, new).action is Action.UNCHANGED
    assert fingerprint(old) == fingerprint(new)  # the identity label stays
    props = {"backend": "vertex", "parent": "projects/p/locations/us-central1", "requestKind": "CustomJob",
             "desiredState": "COMPLETED"}
    assert not job_diff({**props, "request": old}, {**props, "request": new}).replaces
    # a real change still replaces: true is not the default
    flipped = {**new, "jobSpec": {**new["jobSpec"], "scheduling": {**SCHEDULING, "disableRetries": True}}}
    assert diff(old, flipped).action is Action.REPLACE
    assert job_diff({**props, "request": old}, {**props, "request": flipped}).replaces == ["request"]


# A worker pool's machineSpec and diskSpec at their defaults (gcloud sends each as written).
NO_ACCELERATOR = {"acceleratorType": "ACCELERATOR_TYPE_UNSPECIFIED", "acceleratorCount": 0}
DISK_DEFAULTS = {"bootDiskType": "", "bootDiskSizeGb": 0}


def _pool(machine: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {**POOL, "machineSpec": {**POOL["machineSpec"], **machine}, **extra}


def _problems(spec: dict[str, Any]) -> list[str]:
    doc = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "defaults"},
           "spec": {"region": "us-central1", **spec}}
    result = validate_bytes(yaml.safe_dump(doc, sort_keys=False).encode(), "spec.yaml", Context())
    return [p.message for p in result.problems if p.is_error]


def test_a_pool_s_unspecified_accelerator_and_zero_count_are_sent() -> None:
    body = _request({"workerPoolSpecs": [_pool(NO_ACCELERATOR)]})
    assert body["jobSpec"]["workerPoolSpecs"][0]["machineSpec"] == {"machineType": "n1-standard-4", **NO_ACCELERATOR}


def test_each_accelerator_default_alone_is_sent_alone() -> None:
    for machine in ({"acceleratorType": "ACCELERATOR_TYPE_UNSPECIFIED"}, {"acceleratorCount": 0}):
        body = _request({"workerPoolSpecs": [_pool(machine)]})
        assert body["jobSpec"]["workerPoolSpecs"][0]["machineSpec"] == {"machineType": "n1-standard-4", **machine}


def test_a_machine_without_accelerators_takes_the_unspecified_one() -> None:
    """e2-standard-4 takes no accelerator; ACCELERATOR_TYPE_UNSPECIFIED with count 0 says none (a public config)."""
    body = _request({"workerPoolSpecs": [_pool({"machineType": "e2-standard-4", **NO_ACCELERATOR})]})
    assert body["jobSpec"]["workerPoolSpecs"][0]["machineSpec"] == {"machineType": "e2-standard-4", **NO_ACCELERATOR}
    assert any("e2-standard-4 takes no accelerators" in p for p in _problems(
        {"workerPoolSpecs": [_pool({"machineType": "e2-standard-4", "acceleratorType": "NVIDIA_TESLA_T4",
                                    "acceleratorCount": 1})]}))


def test_an_unspecified_accelerator_with_a_count_is_refused_by_name() -> None:
    for machine in ({"acceleratorType": "ACCELERATOR_TYPE_UNSPECIFIED", "acceleratorCount": 2},):
        problems = _problems({"workerPoolSpecs": [_pool(machine)]})
        assert any("ACCELERATOR_TYPE_UNSPECIFIED" in p and "acceleratorType" in p for p in problems), problems
    native = {"workerPools": {"chief": {"machineType": "n1-standard-4",
                                        "accelerator": {"type": "ACCELERATOR_TYPE_UNSPECIFIED", "count": 2}}},
              "application": {"container": {"image": "us-docker.pkg.dev/p/r/trainer:1"}}}
    problems = _problems(native)
    assert any("ACCELERATOR_TYPE_UNSPECIFIED" in p for p in problems), problems


def test_a_pool_s_disk_defaults_are_sent() -> None:
    for disk in (DISK_DEFAULTS, {"bootDiskSizeGb": 0}, {"bootDiskType": ""}):
        body = _request({"workerPoolSpecs": [_pool({}, diskSpec=disk)]})
        assert body["jobSpec"]["workerPoolSpecs"][0]["diskSpec"] == disk
    # a disk that sets something gets the catalog's default for what it leaves out, as before
    sized = _request({"workerPoolSpecs": [_pool({}, diskSpec={"bootDiskSizeGb": 200})]})
    assert sized["jobSpec"]["workerPoolSpecs"][0]["diskSpec"] == {"bootDiskType": "pd-ssd", "bootDiskSizeGb": 200}


def test_a_native_pool_s_defaults_are_sent() -> None:
    chief = {"machineType": "n1-standard-4", "accelerator": {"type": "ACCELERATOR_TYPE_UNSPECIFIED", "count": 0},
             "disk": {"type": "", "sizeGb": 0}}
    body = _request({"workerPools": {"chief": chief},
                     "application": {"container": {"image": "us-docker.pkg.dev/p/r/trainer:1"}}})
    pool = body["jobSpec"]["workerPoolSpecs"][0]
    assert pool["machineSpec"] == {"machineType": "n1-standard-4", **NO_ACCELERATOR}
    assert pool["diskSpec"] == DISK_DEFAULTS


def test_a_tuning_trial_pool_s_defaults_are_sent() -> None:
    body = _request({"studySpec": STUDY, "maxTrialCount": 4, "parallelTrialCount": 2,
                     "trialJobSpec": {"workerPoolSpecs": [_pool(NO_ACCELERATOR, diskSpec=DISK_DEFAULTS)]}})
    pool = body["trialJobSpec"]["workerPoolSpecs"][0]
    assert pool["machineSpec"] == {"machineType": "n1-standard-4", **NO_ACCELERATOR}
    assert pool["diskSpec"] == DISK_DEFAULTS


def test_a_pool_written_before_without_defaults_is_the_same_job() -> None:
    """A state whose pools had no accelerator or disk fields reads as today's request that writes them."""
    new = _request({"workerPoolSpecs": [_pool(NO_ACCELERATOR, diskSpec=DISK_DEFAULTS)],
                    "scheduling": {"disableRetries": False}})
    old = _request({"workerPoolSpecs": [POOL]})  # what a state written before holds: no such fields at all
    assert "diskSpec" not in old["jobSpec"]["workerPoolSpecs"][0] and "scheduling" not in old["jobSpec"]
    assert diff(old, new).action is Action.UNCHANGED
    assert fingerprint(old) == fingerprint(new)
    props = {"backend": "vertex", "parent": "projects/p/locations/us-central1", "requestKind": "CustomJob",
             "desiredState": "COMPLETED"}
    assert not job_diff({**props, "request": old}, {**props, "request": new}).replaces
    gpu = _request({"workerPoolSpecs": [_pool({"acceleratorType": "NVIDIA_TESLA_T4", "acceleratorCount": 1})]})
    assert diff(old, gpu).action is Action.REPLACE and fingerprint(old) != fingerprint(gpu)


# machineSpec's other scalars at their defaults: tpuTopology "", gpuPartitionSize "", and a reservationAffinity
# of TYPE_UNSPECIFIED (key "" beside it). gcloud sends each as written (values [] it leaves out, as apitools
# leaves every empty list out: tests/gcloud/corpus.yaml machine_spec_defaults); Vertex AI reads them as unset.
TOPOLOGY_DEFAULTS = {"tpuTopology": "", "gpuPartitionSize": ""}
NO_RESERVATION = {"reservationAffinityType": "TYPE_UNSPECIFIED"}
RESERVATION_DEFAULTS = {"reservationAffinityType": "TYPE_UNSPECIFIED", "key": "", "values": []}
RESERVATION_SENT = {"reservationAffinityType": "TYPE_UNSPECIFIED", "key": ""}


def test_a_pool_s_empty_topology_and_partition_are_sent() -> None:
    for machine in (TOPOLOGY_DEFAULTS, {"tpuTopology": ""}, {"gpuPartitionSize": ""},
                    {"machineType": "e2-standard-4", **TOPOLOGY_DEFAULTS, **NO_ACCELERATOR}):
        body = _request({"workerPoolSpecs": [_pool(machine)]})
        assert body["jobSpec"]["workerPoolSpecs"][0]["machineSpec"] == {"machineType": "n1-standard-4", **machine}


def test_an_unspecified_reservation_is_sent_as_written() -> None:
    for reservation, sent in ((NO_RESERVATION, NO_RESERVATION), (RESERVATION_DEFAULTS, RESERVATION_SENT),
                              ({**NO_RESERVATION, "values": []}, NO_RESERVATION)):
        body = _request({"workerPoolSpecs": [_pool({"reservationAffinity": reservation})]})
        assert body["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["reservationAffinity"] == sent


def test_a_rest_body_s_machine_defaults_are_sent(tmp_path: Path) -> None:
    """A CustomJob REST body through ``trainjobs convert --output request``: the defaults come out as written."""
    machine = {"machineType": "n1-standard-4", **NO_ACCELERATOR, **TOPOLOGY_DEFAULTS,
               "reservationAffinity": RESERVATION_DEFAULTS}
    path = tmp_path / "request.json"
    path.write_text(json.dumps({"displayName": "defaults", "jobSpec": {"workerPoolSpecs": [
        {**POOL, "machineSpec": machine}]}}))
    proc = run_cli("convert", str(path), "--region", "us-central1", "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["body"]["jobSpec"]["workerPoolSpecs"][0]["machineSpec"] == {
        **machine, "reservationAffinity": RESERVATION_SENT}


def test_a_native_pool_s_machine_defaults_are_sent() -> None:
    chief = {"machineType": "n1-standard-4", **TOPOLOGY_DEFAULTS, "reservationAffinity": RESERVATION_DEFAULTS}
    body = _request({"workerPools": {"chief": chief},
                     "application": {"container": {"image": "us-docker.pkg.dev/p/r/trainer:1"}}})
    assert body["jobSpec"]["workerPoolSpecs"][0]["machineSpec"] == {
        "machineType": "n1-standard-4", **TOPOLOGY_DEFAULTS, "reservationAffinity": RESERVATION_SENT}


def test_machine_defaults_are_read_as_not_set_by_validation() -> None:
    """"" is no topology and no partition; TYPE_UNSPECIFIED with a key or values is refused by name."""
    tpu = _problems({"workerPoolSpecs": [_pool({"machineType": "ct5lp-hightpu-4t", "tpuTopology": ""})]})
    assert tpu == ["ct5lp-hightpu-4t needs a tpuTopology"], tpu  # as if it were absent
    topology = _problems({"workerPoolSpecs": [_pool({"tpuTopology": "2x2"})]})
    assert any("tpuTopology" in p for p in topology), topology  # a topology is still refused on n1
    partition = _problems({"workerPoolSpecs": [_pool({"gpuPartitionSize": "1g.5gb"})]})
    assert any("missing the required key 'acceleratorType'" in p for p in partition), partition  # "" needs none
    for reservation in ({**NO_RESERVATION, "key": "compute.googleapis.com/reservation-name"},
                        {**NO_RESERVATION, "values": ["projects/p/zones/us-central1-a/reservations/r"]}):
        problems = _problems({"workerPoolSpecs": [_pool({"reservationAffinity": reservation})]})
        assert any("TYPE_UNSPECIFIED" in p and "SPECIFIC_RESERVATION" in p for p in problems), problems
    local = validate_bytes(yaml.safe_dump({
        "apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "defaults"},
        "spec": {"region": "us-central1", "workerPoolSpecs": [
            _pool({**TOPOLOGY_DEFAULTS, "reservationAffinity": RESERVATION_DEFAULTS})]}}).encode(),
        "spec.yaml", Context(target=Target.LOCAL))
    assert not [p for p in local.problems if "reservationAffinity" in p.message or "gpuPartitionSize" in p.message]


def test_machine_defaults_read_as_absent_by_diff_and_fingerprint() -> None:
    old = _request({"workerPoolSpecs": [POOL]})
    new = _request({"workerPoolSpecs": [_pool({**TOPOLOGY_DEFAULTS, "reservationAffinity": RESERVATION_DEFAULTS})]})
    assert diff(old, new).action is Action.UNCHANGED and fingerprint(old) == fingerprint(new)
    chosen = _request({"workerPoolSpecs": [_pool({"reservationAffinity": {"reservationAffinityType": "ANY_RESERVATION"}})]})
    assert diff(old, chosen).action is Action.REPLACE and fingerprint(old) != fingerprint(chosen)


def test_the_sdk_s_form_reads_empty_topology_and_partition_as_unset() -> None:
    """proto-plus sends a string at "" as nothing (the SDK's worker_pool_specs), where gcloud sends it."""
    pool = {"machine_spec": {"machine_type": "n1-standard-4", "tpu_topology": "", "gpu_partition_size": ""},
            "replica_count": 1, "container_spec": {"image_uri": "us-docker.pkg.dev/p/r/trainer:1"}}
    body = _request({"worker_pool_specs": [pool]})
    assert body["jobSpec"]["workerPoolSpecs"][0]["machineSpec"] == {"machineType": "n1-standard-4"}
