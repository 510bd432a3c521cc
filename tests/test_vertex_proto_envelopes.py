"""A CustomJob and a HyperparameterTuningJob written with proto names convert as their camelCase twins.

The REST API reads a message's fields by their JSON names or their proto names (protobuf's JSON
mapping), and the Python SDK's own printers write the proto names: ``CustomJob.to_dict(job)``
(proto-plus: proto names, enums as numbers, every field without presence at its default) and
``json_format.MessageToDict(..., preserving_proto_field_name=True)``. Each input here is built
from a camelCase fixture by the installed google-cloud-aiplatform itself, and ``trainjobs convert``
must give the same spec and the same ``--format request`` for it as for the camelCase body.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from provider.validation.validator import validate_bytes

from .conftest import no_traceback, run_cli

pytest.importorskip("google.cloud.aiplatform_v1")

POOL: dict[str, Any] = {
    "machineSpec": {"machineType": "a2-highgpu-1g", "acceleratorType": "NVIDIA_TESLA_A100", "acceleratorCount": 1},
    "replicaCount": "1",
    "diskSpec": {"bootDiskType": "pd-ssd", "bootDiskSizeGb": 200},
    "containerSpec": {"imageUri": "us-docker.pkg.dev/acme/train/trainer:1", "args": ["--epochs", "3"],
                      "env": [{"name": "MODE", "value": "full"}]},
}
WORKERS: dict[str, Any] = {"machineSpec": {"machineType": "n1-standard-8"}, "replicaCount": "2",
                           "containerSpec": POOL["containerSpec"]}
CUSTOM_JOB: dict[str, Any] = {
    "displayName": "nightly-train",
    "labels": {"team": "vision"},
    "encryptionSpec": {"kmsKeyName": "projects/p/locations/us-central1/keyRings/k/cryptoKeys/key"},
    "jobSpec": {
        "workerPoolSpecs": [POOL, WORKERS],
        "scheduling": {"timeout": "7200s", "restartJobOnWorkerRestart": True, "strategy": "SPOT"},
        "serviceAccount": "trainer@p.iam.gserviceaccount.com",
        "baseOutputDirectory": {"outputUriPrefix": "gs://acme/out"},
    },
}
TUNING_JOB: dict[str, Any] = {
    "displayName": "tune-lr",
    "maxTrialCount": 12,
    "parallelTrialCount": 3,
    "maxFailedTrialCount": 2,
    "studySpec": {
        "metrics": [{"metricId": "accuracy", "goal": "MAXIMIZE"}],
        "parameters": [
            {"parameterId": "lr", "doubleValueSpec": {"minValue": 0.0001, "maxValue": 0.1}, "scaleType": "UNIT_LOG_SCALE"},
            {"parameterId": "batch", "discreteValueSpec": {"values": [32, 64, 128]}},
            {"parameterId": "optimizer", "categoricalValueSpec": {"values": ["adam", "sgd"]}},
        ],
        "algorithm": "RANDOM_SEARCH",
    },
    "trialJobSpec": {"workerPoolSpecs": [POOL]},
}
# What describe adds: the service's own fields (output only).
DESCRIBED = {"name": "projects/123/locations/us-central1/customJobs/456", "state": "JOB_STATE_SUCCEEDED",
             "createTime": "2026-11-01T10:00:00Z", "updateTime": "2026-11-01T12:00:00Z"}


def _message(kind: str, camel: dict[str, Any]) -> Any:
    """The proto-plus message the SDK builds from a REST (camelCase) body."""
    from google.cloud import aiplatform_v1
    from google.protobuf import json_format

    cls = getattr(aiplatform_v1, kind)
    return cls.wrap(json_format.ParseDict(camel, cls.pb(cls())))


def _proto_named(kind: str, camel: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The body as the SDK's printers write it with proto names."""
    from google.protobuf import json_format

    message = _message(kind, camel)
    cls = type(message)
    return {
        "to_dict": cls.to_dict(message),  # proto names, enum numbers, every default printed
        "to_dict_enum_names": cls.to_dict(message, use_integers_for_enums=False),
        "message_to_dict": json_format.MessageToDict(cls.pb(message), preserving_proto_field_name=True),
    }


def _convert(tmp_path: Path, name: str, body: dict[str, Any], *flags: str) -> tuple[Any, str]:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(body))
    proc = run_cli("convert", str(path), "--region", "us-central1", *flags)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    # the notes: on stderr beside a request, as comments heading a spec
    return (json.loads(proc.stdout) if "request" in flags else yaml.safe_load(proc.stdout)), proc.stdout + proc.stderr


def _same_as_twin(tmp_path: Path, kind: str, camel: dict[str, Any], forms: tuple[str, ...]) -> dict[str, str]:
    twin_spec, _ = _convert(tmp_path, "camel", camel)
    twin_request, _ = _convert(tmp_path, "camel", camel, "--format", "request")
    said = {}
    for form, body in _proto_named(kind, camel).items():
        if form not in forms:
            continue
        assert "job_spec" in body or "study_spec" in body, body  # the printers really wrote proto names
        spec, said[form] = _convert(tmp_path, form, body)
        assert spec == twin_spec, form
        request, _ = _convert(tmp_path, form, body, "--format", "request")
        assert request == twin_request, form
    return said


def test_a_custom_job_written_with_proto_names_converts_as_its_camel_case_twin(tmp_path: Path) -> None:
    said = _same_as_twin(tmp_path, "CustomJob", CUSTOM_JOB, ("to_dict", "to_dict_enum_names", "message_to_dict"))
    # to_dict's enum numbers are the proto's (A100 is 8 there, 7 to gcloud's --config), each named in a note
    assert "accelerator_type: 8 is NVIDIA_TESLA_A100" in said["to_dict"]
    assert "job_spec.scheduling.strategy: 4 is SPOT" in said["to_dict"]


def test_a_tuning_job_written_with_proto_names_converts_as_its_camel_case_twin(tmp_path: Path) -> None:
    # to_dict's own default writes the study's enums (goal, scaleType, algorithm) as numbers: each is
    # named by the API's own numbering (api_types.json's enums, from the installed descriptors), with a note.
    said = _same_as_twin(tmp_path, "HyperparameterTuningJob", TUNING_JOB,
                         ("to_dict", "to_dict_enum_names", "message_to_dict"))
    assert "study_spec.metrics[0].goal: 1 is MAXIMIZE" in said["to_dict"]
    assert "study_spec.algorithm: 3 is RANDOM_SEARCH" in said["to_dict"]
    assert "is MAXIMIZE" not in said["to_dict_enum_names"]


def test_a_described_custom_job_in_proto_names_gets_each_output_only_note_by_its_written_name(tmp_path: Path) -> None:
    body = _proto_named("CustomJob", {**CUSTOM_JOB, **DESCRIBED})["to_dict"]
    assert body["state"] == 4 and "create_time" in body  # what to_dict prints: the state as its number
    spec, said = _convert(tmp_path, "described", body)
    twin, _ = _convert(tmp_path, "camel", CUSTOM_JOB)
    assert spec == twin
    for key in ("name", "state", "create_time", "update_time"):
        assert f"note: {key} is set by the service (output only): ignored" in said, said
    assert "createTime" not in said and "state: 4" not in said


def test_a_described_tuning_job_in_proto_names_warns_of_each_output_only_field(tmp_path: Path) -> None:
    described = {**TUNING_JOB, "name": "projects/123/locations/us-central1/hyperparameterTuningJobs/9",
                 "state": "JOB_STATE_SUCCEEDED", "createTime": "2026-11-01T10:00:00Z",
                 "trials": [{"id": "1", "state": "SUCCEEDED"}]}
    body = _proto_named("HyperparameterTuningJob", described)["message_to_dict"]
    path = tmp_path / "described.json"
    path.write_text(json.dumps(body))
    proc = run_cli("convert", str(path), "--format", "request")  # the region comes from the name
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    for key in ("name", "state", "create_time", "trials"):
        assert f"{key} is output only" in proc.stderr, proc.stderr
    twin, _ = _convert(tmp_path, "camel", TUNING_JOB, "--format", "request")
    assert json.loads(proc.stdout) == twin


def _refused(tmp_path: Path, body: dict[str, Any]) -> str:
    path = tmp_path / "both.yaml"
    path.write_text(yaml.safe_dump(body, sort_keys=False))
    proc = run_cli("convert", str(path), "--region", "us-central1")
    no_traceback(proc)
    assert proc.returncode != 0, proc.stdout
    return proc.stderr


def _snake(camel: dict[str, Any]) -> dict[str, Any]:
    return _proto_named("CustomJob", camel)["message_to_dict"]


def test_a_field_in_both_spellings_is_refused_by_name_at_each_level(tmp_path: Path) -> None:
    job = _snake(CUSTOM_JOB)
    stderr = _refused(tmp_path, {**job, "jobSpec": job["job_spec"]})
    line = next(i for i, text in enumerate((tmp_path / "both.yaml").read_text().splitlines(), 1)
                if text.startswith("job_spec:"))
    assert f"both.yaml:{line}:1: jobSpec is written twice in this CustomJob: as jobSpec and as job_spec" in stderr
    stderr = _refused(tmp_path, {"displayName": "other", **job})
    assert "displayName is written twice in this CustomJob" in stderr, stderr
    assert re.search(r"both\.yaml:\d+:\d+: error: displayName is written twice", stderr), stderr  # at its line
    pool = job["job_spec"]["worker_pool_specs"][0]
    pool["machineSpec"] = pool["machine_spec"]
    stderr = _refused(tmp_path, job)
    assert "machineSpec is written twice in this WorkerPoolSpec" in stderr, stderr
    tuning = _proto_named("HyperparameterTuningJob", TUNING_JOB)["message_to_dict"]
    stderr = _refused(tmp_path, {**tuning, "maxTrialCount": 12})
    assert "maxTrialCount is written twice in this HyperparameterTuningJob" in stderr, stderr


def _spec(body: dict[str, Any]) -> Any:
    doc = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "tune"},
           "spec": {"region": "us-central1", **body}}
    return validate_bytes(yaml.safe_dump(doc, sort_keys=False).encode(), "spec.yaml")


def test_a_tuning_job_in_a_spec_is_read_by_either_name_in_any_mix() -> None:
    snake = _proto_named("HyperparameterTuningJob", TUNING_JOB)["message_to_dict"]
    mixed = {**snake, "trialJobSpec": snake.pop("trial_job_spec"), "maxTrialCount": snake.pop("max_trial_count")}
    camel, pure, either = _spec(TUNING_JOB), _spec(_proto_named("HyperparameterTuningJob", TUNING_JOB)[
        "message_to_dict"]), _spec(mixed)
    assert camel.job is not None and pure.job is not None and either.job is not None, either.problems
    from provider.submission.request import build_request

    sent = build_request(camel.job, "p").body
    assert build_request(pure.job, "p").body == sent
    assert build_request(either.job, "p").body == sent
    both = _spec({**mixed, "max_trial_count": 12})
    assert any("maxTrialCount is written twice" in p.message for p in both.problems), both.problems


def test_the_sdks_worker_pool_dicts_stay_snake_case_only(tmp_path: Path) -> None:
    """A bare worker_pool_specs body is aiplatform.CustomJob's pools: proto-plus refuses a camelCase key in it."""
    path = tmp_path / "pools.yaml"
    path.write_text(yaml.safe_dump({"worker_pool_specs": [
        {"machineSpec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
         "container_spec": {"image_uri": "us-docker.pkg.dev/acme/train/trainer:1"}}]}))
    proc = run_cli("convert", str(path), "--region", "us-central1")
    no_traceback(proc)
    assert proc.returncode != 0 and "did you mean 'machine_spec'" in proc.stderr, proc.stderr
    # what a pool may hold, named in the body's own spelling
    assert "allowed: a WorkerPoolSpec: machine_spec, replica_count, disk_spec and container_spec" in proc.stderr


# Google's own samples: the low-level client's dicts, which proto-plus turns into the message the
# REST API gets. Source: googleapis/python-aiplatform, samples/snippets/job_service/
# create_custom_job_sample.py and create_hyperparameter_tuning_job_sample.py (commit 3a48903), as
# written there but the image (their NVIDIA_TESLA_K80 is retired since: converted with a warning naming it).
GOOGLE_CUSTOM_JOB = {
    "display_name": "sample", "job_spec": {"worker_pool_specs": [{
        "machine_spec": {"machine_type": "n1-standard-4", "accelerator_type": "NVIDIA_TESLA_K80",
                         "accelerator_count": 1},
        "replica_count": 1,
        "container_spec": {"image_uri": "gcr.io/acme/trainer:1", "command": [], "args": []}}]}}
GOOGLE_TUNING_JOB = {
    "display_name": "sample", "max_trial_count": 2, "parallel_trial_count": 1, "max_failed_trial_count": 1,
    "study_spec": {"metrics": [{"metric_id": "accuracy", "goal": "MAXIMIZE"}],
                   "parameters": [{"parameter_id": "lr", "double_value_spec": {"min_value": 0.001, "max_value": 0.1}}]},
    "trial_job_spec": GOOGLE_CUSTOM_JOB["job_spec"]}


@pytest.mark.parametrize("kind,sample", [("CustomJob", GOOGLE_CUSTOM_JOB),
                                         ("HyperparameterTuningJob", GOOGLE_TUNING_JOB)])
def test_googles_samples_convert_with_a_word_on_the_retired_k80(tmp_path: Path, kind: str,
                                                                 sample: dict[str, Any]) -> None:
    from google.cloud import aiplatform_v1
    from google.protobuf import json_format

    message = getattr(aiplatform_v1, kind)(sample)  # the SDK takes the dict as written
    camel = json_format.MessageToDict(type(message).pb(message))  # ... and sends this (REST JSON, camelCase)
    spec, said = _convert(tmp_path, "sample", sample)
    assert "NVIDIA_TESLA_K80" in said and "no longer offers it" in said, said
    assert spec == _convert(tmp_path, "camel", camel)[0]
    request, _ = _convert(tmp_path, "sample", sample, "--format", "request")
    assert request == _convert(tmp_path, "camel", camel, "--format", "request")[0]
    pool = (request["body"].get("jobSpec") or request["body"]["trialJobSpec"])["workerPoolSpecs"][0]
    assert pool["machineSpec"] == {"machineType": "n1-standard-4", "acceleratorType": "NVIDIA_TESLA_K80",
                                   "acceleratorCount": 1}
