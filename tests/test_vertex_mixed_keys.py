"""A REST body whose keys mix protobuf's two names of a field is read as the REST API reads it.

The REST API's JSON mapping takes a field by its JSON name (``baseOutputDirectory``) or its proto
name (``base_output_directory``); Google's own tensorboard example mixes them, and gcloud passes
the proto-named key through. ``trainjobs convert`` must build the same request as from the
all-camelCase body, refuse a field written both ways by name, and never rename what is the
user's data (label keys, environment variables, args).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from provider.spec.formats.vertex.keys import snake
from provider.spec.formats.vertex.proto_names import messages

from .conftest import no_traceback, run_cli

REST = Path(__file__).parent / "gcloud" / "rest"
OUTPUT = {"outputUriPrefix": "gs://my-bucket/out"}


def _camel_job() -> dict[str, Any]:
    return {
        "displayName": "mixed-keys",
        "labels": {"team": "vision"},
        "jobSpec": {
            "workerPoolSpecs": [{
                "machineSpec": {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4",
                                "acceleratorCount": 1},
                "replicaCount": "1",
                "diskSpec": {"bootDiskType": "pd-ssd", "bootDiskSizeGb": 200},
                "containerSpec": {"imageUri": "us-docker.pkg.dev/my-project/train/trainer:1",
                                  "args": ["--epochs", "3"], "env": [{"name": "MODE", "value": "fast"}]},
            }],
            "baseOutputDirectory": dict(OUTPUT),
            "serviceAccount": "trainer@my-project.iam.gserviceaccount.com",
            "scheduling": {"timeout": "3600s", "restartJobOnWorkerRestart": True},
        },
    }


def _mixed_job() -> dict[str, Any]:
    """The same job with a proto name at every level the walk must reach."""
    job = _camel_job()
    spec = job["jobSpec"]
    pool = spec["workerPoolSpecs"][0]
    pool["machine_spec"] = {"machine_type": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_T4",
                            "accelerator_count": 1}
    del pool["machineSpec"]
    pool["replica_count"] = pool.pop("replicaCount")
    pool["disk_spec"] = {"boot_disk_type": "pd-ssd", "bootDiskSizeGb": 200}
    del pool["diskSpec"]
    container = pool.pop("containerSpec")
    container["image_uri"] = container.pop("imageUri")
    pool["container_spec"] = container
    spec["base_output_directory"] = {"output_uri_prefix": OUTPUT["outputUriPrefix"]}
    del spec["baseOutputDirectory"]
    spec["service_account"] = spec.pop("serviceAccount")
    spec["scheduling"] = {"timeout": "3600s", "restart_job_on_worker_restart": True}
    return job


def _request(tmp_path: Path, name: str, body: dict[str, Any]) -> dict[str, Any]:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(body, indent=2))
    proc = run_cli("convert", str(path), "--region", "us-central1", "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def test_a_mixed_body_converts_to_the_request_of_the_camel_case_one(tmp_path: Path) -> None:
    camel = _request(tmp_path, "job", _camel_job())
    (tmp_path / "mixed").mkdir()
    mixed = _request(tmp_path / "mixed", "job", _mixed_job())
    assert camel["body"]["jobSpec"]["baseOutputDirectory"] == OUTPUT
    assert mixed == camel


def test_the_docs_tensorboard_request_gets_its_output_directory(tmp_path: Path) -> None:
    """Google's own example (tests/gcloud/rest_corpus.yaml, docs_tensorboard_request) as written."""
    proc = run_cli("convert", str(REST / "docs_tensorboard_request.json"), "--region", "us-central1",
                   "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    spec = json.loads(proc.stdout)["body"]["jobSpec"]
    assert spec["baseOutputDirectory"] == {
        "outputUriPrefix": "gs://gcs-bucket-name/tensorboard-example-job-20260101-120000"}
    assert "base_output_directory" not in spec


def test_a_mixed_tuning_body_converts_to_the_request_of_the_camel_case_one(tmp_path: Path) -> None:
    camel = json.loads((REST / "docs_tuning_response_algorithm.json").read_text())
    mixed = copy.deepcopy(camel)
    mixed["max_trial_count"] = mixed.pop("maxTrialCount")
    study = mixed["studySpec"]
    study["metrics"][0]["metric_id"] = study["metrics"][0].pop("metricId")
    first = study["parameters"][0]
    first["parameter_id"] = first.pop("parameterId")
    first["integer_value_spec"] = {"min_value": "1", "maxValue": "128"}
    del first["integerValueSpec"]
    trial = mixed.pop("trialJobSpec")
    trial["worker_pool_specs"] = trial.pop("workerPoolSpecs")  # the trial job's own marker, by its proto name
    trial["worker_pool_specs"][0]["python_package_spec"] = trial["worker_pool_specs"][0].pop("pythonPackageSpec")
    mixed["trial_job_spec"] = trial
    (tmp_path / "camel").mkdir()
    (tmp_path / "mixed").mkdir()
    assert _request(tmp_path / "mixed", "tuning", mixed) == _request(tmp_path / "camel", "tuning", camel)


def test_a_field_written_in_both_spellings_is_refused_by_name(tmp_path: Path) -> None:
    job = _camel_job()
    job["jobSpec"]["base_output_directory"] = {"output_uri_prefix": "gs://other-bucket/out"}
    path = tmp_path / "both.json"
    path.write_text(json.dumps(job, indent=2))
    proc = run_cli("convert", str(path), "--region", "us-central1", "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 1, proc.stdout
    assert "baseOutputDirectory is written twice in this CustomJobSpec: as baseOutputDirectory and as " \
           "base_output_directory" in proc.stderr, proc.stderr
    assert "keep baseOutputDirectory (the REST API's JSON name), remove base_output_directory" in proc.stderr, \
        proc.stderr


def test_a_nested_field_written_in_both_spellings_is_refused_by_name(tmp_path: Path) -> None:
    job = _camel_job()
    job["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["machine_type"] = "n1-standard-4"
    path = tmp_path / "both.json"
    path.write_text(json.dumps(job, indent=2))
    proc = run_cli("convert", str(path), "--region", "us-central1", "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 1, proc.stdout
    assert "machineType is written twice in this MachineSpec" in proc.stderr, proc.stderr


def test_user_data_spelled_like_a_proto_field_name_is_left_as_written(tmp_path: Path) -> None:
    job = _mixed_job()
    job["labels"] = {"service_account": "team-a", "display_name": "x"}
    container = job["jobSpec"]["workerPoolSpecs"][0]["container_spec"]
    container["env"] = [{"name": "base_output_directory", "value": "image_uri"}]
    container["args"] = ["base_output_directory", "--service_account=a"]
    body = _request(tmp_path, "job", job)["body"]
    assert {"service_account": "team-a", "display_name": "x"}.items() <= body["labels"].items()
    assert body["displayName"] == "mixed-keys"
    container = body["jobSpec"]["workerPoolSpecs"][0]["containerSpec"]
    assert container["env"] == [{"name": "base_output_directory", "value": "image_uri"}]
    assert container["args"] == ["base_output_directory", "--service_account=a"]
    assert body["jobSpec"]["serviceAccount"] == "trainer@my-project.iam.gserviceaccount.com"


def test_every_proto_name_of_the_table_is_the_snake_case_of_its_json_name() -> None:
    """The walk finds a field's proto name as the snake_case of the JSON name api_types.json holds:
    checked against the installed v1 descriptors, field by field."""
    from google.cloud import aiplatform_v1

    checked = 0
    for name, fields in messages().items():
        outer, *nested = name.split(".")
        descriptor = getattr(aiplatform_v1, outer).pb().DESCRIPTOR
        for part in nested:
            descriptor = descriptor.nested_types_by_name[part]
        by_json = {f.json_name: f.name for f in descriptor.fields}
        for json_name in fields:
            assert by_json[json_name] == snake(json_name), (name, json_name)
            checked += 1
    assert checked > 100


def test_a_schema_finding_names_a_mixed_bodys_field_as_written(tmp_path: Path) -> None:
    # a proto-named field among JSON names is read by its JSON name; the message names what was written
    path = tmp_path / "mixed.yaml"
    path.write_text("workerPoolSpecs:\n- machine_spec: {machine_type: 5}\n  replicaCount: 1\n"
                    "  containerSpec: {imageUri: gcr.io/p/i}\nregion: us-central1\n")
    proc = run_cli("convert", str(path), "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 1, proc.stdout
    assert f"{path}:2:32: error: 5 is not allowed for machine_type\n" in proc.stderr, proc.stderr
    assert "    at spec.workerPoolSpecs[0].machine_spec.machine_type\n" in proc.stderr, proc.stderr


def test_a_warning_on_a_proto_named_field_is_said_once_by_that_name(tmp_path: Path) -> None:
    # the reader's JSON name (startTime) is how the converter's note names it; the user wrote start_time
    path = tmp_path / "tuning.yaml"
    path.write_text("displayName: hp\nregion: us-central1\nstudySpec:\n  metrics: [{metricId: acc, goal: MAXIMIZE}]\n"
                    "  parameters: [{parameterId: lr, doubleValueSpec: {minValue: 0.001, maxValue: 0.1}}]\n"
                    "maxTrialCount: 4\nparallelTrialCount: 2\ntrialJobSpec:\n  workerPoolSpecs:\n"
                    "  - {machineSpec: {machineType: n1-standard-4}, replicaCount: 1, containerSpec: {imageUri: gcr.io/p/i}}\n"
                    "start_time: '2026-01-01T00:00:00Z'\n")
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stdout.splitlines() if "output only" in line]
    assert said == ["# warning: start_time is output only (set by the service; when the job started): ignored, as "
                    "hyperparameterTuningJobs.create ignores it"], proc.stdout
