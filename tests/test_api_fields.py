"""Issue 29, item 3: the API's own field list is the checklist.

The test walks the installed google-cloud-aiplatform v1 message descriptors (CustomJobSpec,
HyperparameterTuningJob, StudySpec and every message they hold) and fails on any field that
trainjobs neither carries end to end nor names in provider/spec/formats/vertex/field_table.py
with its reason. "Carried end to end" is checked, for every field, on bodies that set it:

* the schema and the converter accept it (the spec is valid);
* the exact request holds exactly what was written (both parsed by the SDK's own message
  classes, which refuse unknown fields, and compared field by field);
* ``trainjobs convert`` writes a native spec that builds the same request;
* a change to it is a change the Pulumi provider replaces the job for (labels: no change);
* in a local stack, it either has a local meaning or gets the "not emulated locally" warning
  that the table's NOT_EMULATED_LOCALLY names.

A field that appears in a new google-cloud-aiplatform fails here until it is carried (and set
in the bodies below) or named in the table.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from provider.resources.job_diff import job_diff
from provider.spec.formats.vertex.field_table import NOT_EMULATED_LOCALLY, OUTPUT_ONLY, REFUSED
from provider.submission.diffing import flatten, label
from provider.submission.emit import to_native
from provider.submission.request import build_request
from provider.validation.rules import Context, Target
from provider.validation.validator import SpecResult, validate_bytes

PREFIX = "google.cloud.aiplatform.v1."
ROOTS = ("CustomJobSpec", "WorkerPoolSpec", "MachineSpec", "DiskSpec", "NfsMount", "LustreMount", "ContainerSpec",
         "PythonPackageSpec", "Scheduling", "ReservationAffinity", "HyperparameterTuningJob", "StudySpec")
SA = "trainer@p.iam.gserviceaccount.com"
ENV = [{"name": "MODE", "value": "tune"}]


def _descriptor(name: str) -> Any:
    from google.cloud.aiplatform_v1 import types

    return getattr(types, name).meta.pb.DESCRIPTOR


def _short(full_name: str) -> str:
    return full_name[len(PREFIX):] if full_name.startswith(PREFIX) else full_name


def _is_value(message: Any) -> bool:
    """Well-known types (Duration, Timestamp, BoolValue ...) and map entries are values, not messages to walk."""
    return message.full_name.startswith(("google.protobuf.", "google.rpc.")) or message.GetOptions().map_entry


def api_fields() -> list[tuple[str, str]]:
    """(message, field) for every field reachable from the roots; output-only fields are not walked into."""
    seen: set[str] = set()
    out: list[tuple[str, str]] = []

    def walk(message: Any) -> None:
        name = _short(message.full_name)
        if name in seen:
            return
        seen.add(name)
        for f in message.fields:
            out.append((name, f.json_name))
            if f.message_type is not None and not _is_value(f.message_type) \
                    and f.json_name not in OUTPUT_ONLY.get(name, {}):
                walk(f.message_type)

    for root in ROOTS:
        walk(_descriptor(root))
    return out


def _param(pid: str, kind: str, spec: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"parameterId": pid, kind: spec, **extra}


def _trial(tpu: bool = False, **extra: Any) -> dict[str, Any]:
    if tpu:
        machine = {"machineType": "ct5lp-hightpu-4t", "tpuTopology": "2x2"}
    else:
        machine = {"machineType": "a2-highgpu-1g", "acceleratorType": "NVIDIA_TESLA_A100", "acceleratorCount": 1,
                   "gpuPartitionSize": "1g.5gb",
                   "reservationAffinity": {"reservationAffinityType": "SPECIFIC_RESERVATION",
                                           "key": "compute.googleapis.com/reservation-name",
                                           "values": ["projects/p/zones/us-central1-a/reservations/r"]}}
    chief = {
        "machineSpec": machine,
        "replicaCount": "1",
        "diskSpec": {"bootDiskType": "pd-ssd", "bootDiskSizeGb": 200},
        "nfsMounts": [{"server": "10.0.0.2", "path": "/share", "mountPoint": "data"}],
        "lustreMounts": [{"instanceIp": "10.0.0.3", "volumeHandle": "p/us-central1-a/lustre1",
                          "filesystem": "fs1", "mountPoint": "scratch"}],
        "pythonPackageSpec": {"executorImageUri": "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest",
                              "packageUris": ["gs://b/trainer-0.1.tar.gz"], "pythonModule": "trainer.task",
                              "args": ["--epochs=3"], "env": ENV},
    }
    reducer = {"machineSpec": {"machineType": "n1-highcpu-16"}, "replicaCount": "2",
               "containerSpec": {"imageUri": "us-docker.pkg.dev/vertex-ai-restricted/training/reductionserver:latest",
                                 "command": ["/reducer"], "args": ["--verbose"], "env": ENV}}
    spec: dict[str, Any] = {
        "workerPoolSpecs": [chief, {}, reducer],
        "scheduling": {"timeout": "7200s", "restartJobOnWorkerRestart": True, "strategy": "FLEX_START",
                       "disableRetries": True, "maxWaitDuration": "1800s"},
        "serviceAccount": SA,
        "network": "projects/12345/global/networks/vpc",
        "reservedIpRanges": ["vertex-range"],
        "pscInterfaceConfig": {"networkAttachment": "projects/p/regions/us-central1/networkAttachments/na",
                               "dnsPeeringConfigs": [{"domain": "corp.example.com.", "targetProject": "host",
                                                      "targetNetwork": "shared"}]},
        "baseOutputDirectory": {"outputUriPrefix": "gs://b/out"},
        "protectedArtifactLocationId": "us-central1",
        "enableWebAccess": True,
        "enableDashboardAccess": True,
        "persistentResourceId": "team-pool",
        "models": ["projects/p/locations/us-central1/models/123@2"],
    }
    if tpu:  # a TPU job is one pool of one replica
        spec["workerPoolSpecs"] = [chief]
    spec.update(extra)
    return spec


def _study(stopping: dict[str, Any]) -> dict[str, Any]:
    return {
        "metrics": [{"metricId": "accuracy", "goal": "MAXIMIZE",
                     "safetyConfig": {"safetyThreshold": 0.5, "desiredMinSafeTrialsFraction": 0.9}},
                    {"metricId": "latency", "goal": "MINIMIZE"}],
        "parameters": [
            _param("lr", "doubleValueSpec", {"minValue": 0.0001, "maxValue": 0.1, "defaultValue": 0.01},
                   scaleType="UNIT_LOG_SCALE"),
            _param("layers", "integerValueSpec", {"minValue": "1", "maxValue": "4", "defaultValue": "2"},
                   conditionalParameterSpecs=[{"parentIntValues": {"values": ["3", "4"]},
                                               "parameterSpec": _param("skip", "categoricalValueSpec",
                                                                       {"values": ["yes", "no"]})}]),
            _param("optimizer", "categoricalValueSpec", {"values": ["sgd", "adam"], "defaultValue": "adam"},
                   conditionalParameterSpecs=[{"parentCategoricalValues": {"values": ["sgd"]},
                                               "parameterSpec": _param("momentum", "doubleValueSpec",
                                                                       {"minValue": 0.1, "maxValue": 0.99},
                                                                       scaleType="UNIT_REVERSE_LOG_SCALE")}]),
            _param("batch", "discreteValueSpec", {"values": [16, 32, 64], "defaultValue": 32},
                   scaleType="UNIT_LINEAR_SCALE",
                   conditionalParameterSpecs=[{"parentDiscreteValues": {"values": [64]},
                                               "parameterSpec": _param("accum", "integerValueSpec",
                                                                       {"minValue": "1", "maxValue": "8"})}]),
        ],
        "algorithm": "RANDOM_SEARCH",
        "observationNoise": "HIGH",
        "measurementSelectionType": "BEST_MEASUREMENT",
        **stopping,
        "studyStoppingConfig": {
            "shouldStopAsap": True,
            "minimumRuntimeConstraint": {"maxDuration": "600s"},
            "maximumRuntimeConstraint": {"endTime": "2030-01-01T00:00:00Z"},
            "minNumTrials": 2, "maxNumTrials": 8, "maxNumTrialsNoProgress": 4, "maxDurationNoProgress": "3600s"},
    }


STOPPING = {
    "decay": {"decayCurveStoppingSpec": {"useElapsedDuration": True}},
    "median": {"medianAutomatedStoppingSpec": {"useElapsedDuration": True}},
    "convex": {"convexAutomatedStoppingSpec": {"maxStepCount": "100", "minStepCount": "10",
                                               "minMeasurementCount": "5", "learningRateParameterName": "lr",
                                               "useElapsedDuration": True, "updateAllStoppedTrials": True}},
}
EXPERIMENT = "projects/p/locations/us-central1/metadataStores/default/contexts/exp"


def tuning_bodies() -> dict[str, dict[str, Any]]:
    """HyperparameterTuningJob bodies that together set every carried field (each a valid job)."""
    bodies = {}
    for name, stopping in STOPPING.items():
        trial = _trial(tpu=name == "convex",
                       **({"experiment": EXPERIMENT, "experimentRun": EXPERIMENT + "-run"} if name == "median"
                          else {"tensorboard": "projects/p/locations/us-central1/tensorboards/1"}))
        bodies[name] = {"displayName": f"tune-{name}", "studySpec": _study(stopping), "maxTrialCount": 8,
                        "parallelTrialCount": 2, "maxFailedTrialCount": 3, "trialJobSpec": trial,
                        "labels": {"team": "vision"},
                        "encryptionSpec": {"kmsKeyName": "projects/p/locations/us-central1/keyRings/k/cryptoKeys/c"}}
    return bodies


def _check(body: dict[str, Any], target: Target = Target.ANY) -> SpecResult:
    doc = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "fields"},
           "spec": {"region": "us-central1", **body}}
    return validate_bytes(yaml.safe_dump(doc, sort_keys=False).encode(), "spec.yaml", Context(target=target))


def _canonical(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """The body as the SDK's message class reads and writes it (unknown fields refused, int64 as strings)."""
    from google.cloud import aiplatform_v1

    cls = getattr(aiplatform_v1, kind)
    out: dict[str, Any] = json.loads(cls.to_json(cls.from_json(json.dumps(body)), use_integers_for_enums=False,
                                                 always_print_fields_with_no_presence=False))
    return out


def _set_fields(kind: str, body: dict[str, Any]) -> set[tuple[str, str]]:
    """(message, field) of every field ``body`` sets, by walking it beside the descriptors."""
    found: set[tuple[str, str]] = set()

    def walk(message: Any, value: dict[str, Any]) -> None:
        by_name = {f.json_name: f for f in message.fields}
        for key, item in value.items():
            f = by_name[key]
            found.add((_short(message.full_name), key))
            if f.message_type is None or _is_value(f.message_type):
                continue
            for element in item if isinstance(item, list) else [item]:
                walk(f.message_type, element)

    walk(_descriptor(kind), body)
    return found


def _request(result: SpecResult) -> dict[str, Any]:
    assert result.job is not None and not [p for p in result.problems if p.is_error], result.problems
    body: dict[str, Any] = build_request(result.job, "p").body
    return body


@pytest.mark.parametrize("name", sorted(STOPPING))
def test_the_request_holds_exactly_what_was_written(name: str) -> None:
    body = tuning_bodies()[name]
    request = _request(_check(body))
    assert _canonical("HyperparameterTuningJob", request) == _canonical("HyperparameterTuningJob", body)
    # The same trial job as a CustomJobSpec body (the Vertex format) builds the same jobSpec.
    trial = _request(_check(body["trialJobSpec"]))["jobSpec"]
    assert _canonical("CustomJobSpec", trial) == _canonical("CustomJobSpec", body["trialJobSpec"])


@pytest.mark.parametrize("name", sorted(STOPPING))
def test_convert_writes_a_native_spec_with_the_same_request(name: str) -> None:
    result = _check(tuning_bodies()[name])
    assert result.job is not None
    native = validate_bytes(yaml.safe_dump(to_native(result.job), sort_keys=False).encode(), "native.yaml")
    assert _canonical("HyperparameterTuningJob", _request(native)) == \
        _canonical("HyperparameterTuningJob", _request(result))


def test_every_api_field_is_carried_or_named_with_its_reason() -> None:
    fields = api_fields()
    assert ("WorkerPoolSpec", "nfsMounts") in fields and ("CustomJobSpec", "enableDashboardAccess") in fields
    named = {(m, f) for table in (OUTPUT_ONLY, REFUSED) for m, fs in table.items() for f in fs}
    for table in (OUTPUT_ONLY, REFUSED, NOT_EMULATED_LOCALLY):
        for message, entries in table.items():
            for field, reason in entries.items():
                assert (message, field) in fields, f"{message}.{field} is in the table but not in the API"
                assert reason.strip(), f"{message}.{field} has no reason"
    carried: set[tuple[str, str]] = set()
    for body in tuning_bodies().values():
        carried |= _set_fields("HyperparameterTuningJob", body)
        assert not (carried & named), "a named field is also in a body that must be carried"
    missing = [f"{m}.{f}" for m, f in fields if (m, f) not in carried and (m, f) not in named]
    assert not missing, "neither carried end to end nor named in field_table.py: " + ", ".join(missing)


def _mutated(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, list):
        return [*value, value[-1] if value else "x"]
    return f"{value}x"


def _set_path(body: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(body)
    parts = [p for chunk in path.replace("]", "").split(".") for p in chunk.split("[")]
    node: Any = out
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    last = parts[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return out


@pytest.mark.parametrize("name", sorted(STOPPING))
def test_a_change_to_any_field_replaces_the_job(name: str) -> None:
    """Pulumi diff: every leaf of the request forces a replacement (labels change nothing), and is named."""
    request = _request(_check(tuning_bodies()[name]))
    props = {"backend": "vertex", "parent": "projects/p/locations/us-central1", "requestKind": "HyperparameterTuningJob",
             "request": request, "desiredState": "COMPLETED"}
    for path, value in flatten(request).items():
        changed = {**props, "request": _set_path(request, path, _mutated(value))}
        result = job_diff(props, changed)
        if path.startswith("labels"):
            assert not result.replaces, path
        else:
            assert result.replaces == ["request"], path
            assert label(path), path


def _not_emulated(result: SpecResult) -> set[str]:
    return {p.message.split(" ", 1)[0] for p in result.problems if p.rule == "local.not_emulated"}


@pytest.mark.parametrize("name", sorted(STOPPING))
def test_a_local_stack_hears_of_every_field_it_runs_without(name: str) -> None:
    body = tuning_bodies()[name]
    expected = {f for m, f in _set_fields("HyperparameterTuningJob", body)
                if f in NOT_EMULATED_LOCALLY.get(m, {})} | {"the"}  # "the study has 2 metrics: ..."
    warned = _not_emulated(_check(body, Target.LOCAL))
    assert warned == expected
    assert not _not_emulated(_check(body, Target.VERTEX))


def _iter_output_only() -> Iterator[tuple[str, Any]]:
    values = {"name": "projects/p/locations/us-central1/hyperparameterTuningJobs/123", "trials": [{"id": "1"}],
              "state": "JOB_STATE_SUCCEEDED", "createTime": "2024-01-01T00:00:00Z", "error": {"code": 1},
              "satisfiesPzs": False, "satisfiesPzi": False}
    for field in OUTPUT_ONLY["HyperparameterTuningJob"]:
        yield field, values.get(field, "2024-01-01T00:00:00Z")


def test_output_only_fields_are_ignored_with_a_warning_naming_each() -> None:
    body = tuning_bodies()["decay"]
    described = {**body, **dict(_iter_output_only())}
    result = _check(described)
    warned = {p.path.split(".")[-1] for p in result.problems if p.rule == "vx.hpt.output_only"}
    assert warned == set(OUTPUT_ONLY["HyperparameterTuningJob"])
    assert all(not p.is_error for p in result.problems if p.rule == "vx.hpt.output_only")
    assert _request(result) == _request(_check(body))
