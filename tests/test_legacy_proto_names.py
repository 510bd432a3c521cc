"""An AI Platform ``trainingInput`` read as ml.googleapis.com reads it: a field by its JSON or its proto name,
and an ``acceleratorConfig`` at its proto3 defaults as no accelerator.

The input is tensorflow_cloud's own ``projects.jobs.create`` body:
github.com/tensorflow/cloud ``src/python/tensorflow_cloud/core/tests/unit/deploy_test.py``,
``expected_request_dict`` (``"use_chief_in_tf_config": True``, what ``deploy.deploy_job`` sends) and
``test_request_dict_with_TPU_worker`` (a CPU chief: ``{"count": "0", "type": "ACCELERATOR_TYPE_UNSPECIFIED"}``),
with region us-central1 and an image for the mock's placeholders. Two changes, each refused by gcloud and
trainjobs alike as written: the mock's job id ``tf-train-abcde`` (AI Platform job ids take no hyphen) is
written ``tf_train_abcde``, and ``"scaleTier": "custom"`` is written ``CUSTOM``.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import no_traceback, run_cli

IMAGE = "gcr.io/my-gcp-project/tf_cloud_train:abcde"
CHIEF_WORD = "unless useChiefInTfConfig was true"  # the warning a job without it gets (legacy/convert.py)


def _tfcloud_body() -> dict[str, Any]:
    return {"jobId": "tf_train_abcde", "trainingInput": {
        "use_chief_in_tf_config": True, "scaleTier": "CUSTOM", "region": "us-central1", "args": ["1000"],
        "masterType": "n1-standard-16", "workerType": "n1-standard-8", "workerCount": "2",
        "workerConfig": {"acceleratorConfig": {"count": "1", "type": "NVIDIA_TESLA_K80"}, "imageUri": IMAGE},
        "masterConfig": {"acceleratorConfig": {"count": "4", "type": "NVIDIA_TESLA_K80"}, "imageUri": IMAGE}}}


def _cpu_chief_body() -> dict[str, Any]:
    body = _tfcloud_body()
    ti = body["trainingInput"]
    ti["useChiefInTfConfig"] = ti.pop("use_chief_in_tf_config")
    ti["masterType"] = "n1-standard-4"
    ti["masterConfig"]["acceleratorConfig"] = {"count": "0", "type": "ACCELERATOR_TYPE_UNSPECIFIED"}
    return body


def _convert(path: Path, body: Any) -> subprocess.CompletedProcess[str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(body, indent=2) if path.suffix == ".json" else yaml.safe_dump(body, sort_keys=False))
    proc = run_cli("convert", str(path), "--output", "request")
    no_traceback(proc)
    return proc


def _request(path: Path, body: Any) -> dict[str, Any]:
    proc = _convert(path, body)
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def _refused_text(path: Path, text: str) -> str:
    """The stderr of converting ``text`` (written to ``path``), which must be refused without a traceback."""
    path.write_text(text)
    proc = run_cli("convert", str(path), "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 1, proc.stdout
    return proc.stderr


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_the_tensorflow_cloud_body_converts_with_its_proto_named_field(tmp_path: Path) -> None:
    proc = _convert(tmp_path / "snake" / "tfcloud.json", _tfcloud_body())
    assert proc.returncode == 0, proc.stderr
    assert "unknown key" not in proc.stderr
    assert CHIEF_WORD not in proc.stderr, proc.stderr  # the user set it, by its proto name
    camel = _tfcloud_body()
    ti = camel["trainingInput"]
    ti["useChiefInTfConfig"] = ti.pop("use_chief_in_tf_config")
    assert json.loads(proc.stdout) == _request(tmp_path / "camel" / "tfcloud.json", camel)


def test_the_proto_named_field_is_read_for_its_value(tmp_path: Path) -> None:
    """false by its proto name is read as false: the warning comes, at the line the user wrote."""
    body = _tfcloud_body()
    body["trainingInput"]["use_chief_in_tf_config"] = False
    path = tmp_path / "tfcloud.json"
    proc = _convert(path, body)
    assert proc.returncode == 0, proc.stderr
    line = _line_of(path, '"use_chief_in_tf_config"')
    assert f"{path}:{line}:" in proc.stderr, proc.stderr
    assert "unless use_chief_in_tf_config was true" in proc.stderr, proc.stderr  # named as written


def test_every_level_by_its_proto_name_converts_as_its_camel_case_twin(tmp_path: Path) -> None:
    camel = {"jobId": "tuned", "trainingInput": {
        "scaleTier": "CUSTOM", "region": "us-central1", "masterType": "n1-standard-8",
        "masterConfig": {"imageUri": IMAGE, "acceleratorConfig": {"count": 1, "type": "NVIDIA_TESLA_T4"},
                         "diskConfig": {"bootDiskType": "pd-ssd", "bootDiskSizeGb": 200}},
        "scheduling": {"maxRunningTime": "3600s"},
        "args": ["--job_dir", "use_chief_in_tf_config"],
        "hyperparameters": {"goal": "MAXIMIZE", "maxTrials": 4, "hyperparameterMetricTag": "max_trials",
                            "params": [{"parameterName": "learning_rate", "type": "DOUBLE",
                                        "minValue": 0.001, "maxValue": 0.1, "scaleType": "UNIT_LOG_SCALE"}]}}}
    snake = copy.deepcopy(camel)
    ti = snake["trainingInput"]
    ti["scale_tier"] = ti.pop("scaleTier")
    ti["master_type"] = ti.pop("masterType")
    master = ti.pop("masterConfig")
    master["image_uri"] = master.pop("imageUri")
    master["disk_config"] = {"boot_disk_type": "pd-ssd", "boot_disk_size_gb": 200}
    del master["diskConfig"]
    ti["master_config"] = master
    ti["scheduling"] = {"max_running_time": "3600s"}
    tuning = ti["hyperparameters"]
    tuning["max_trials"] = tuning.pop("maxTrials")
    tuning["params"][0]["parameter_name"] = tuning["params"][0].pop("parameterName")
    ours = _request(tmp_path / "snake" / "job.yaml", snake)
    assert ours == _request(tmp_path / "camel" / "job.yaml", camel)
    # what the user wrote as data is left as written
    assert "use_chief_in_tf_config" in json.dumps(ours) and "max_trials" in json.dumps(ours)


def test_notes_name_a_field_as_the_user_wrote_it(tmp_path: Path) -> None:
    path = tmp_path / "notes.yaml"
    path.write_text(
        "trainingInput:\n"
        "  scale_tier: CUSTOM\n"
        "  region: us-central1\n"
        "  master_type: n1-standard-4\n"
        "  master_config:\n"
        "    image_uri: gcr.io/p/i\n"
        "  hyperparameters:\n"
        "    goal: MAXIMIZE\n"
        "    enable_trial_early_stopping: true\n"
        "    params:\n"
        "      - {parameter_name: lr, type: DOUBLE, min_value: 0.1, max_value: 0.2}\n")
    proc = run_cli("convert", str(path), "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    assert (f"{path}:9:34: warning: trainingInput.hyperparameters.enable_trial_early_stopping (true) is not sent "
            "to Vertex AI") in proc.stderr, proc.stderr
    assert "at spec.trainingInput.hyperparameters.enable_trial_early_stopping" in proc.stderr
    assert "enableTrialEarlyStopping" not in proc.stderr


def test_a_field_written_in_both_spellings_is_refused_by_name_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "both.yaml"
    path.write_text(
        "trainingInput:\n"
        "  scaleTier: CUSTOM\n"
        "  region: us-central1\n"
        "  masterType: n1-standard-4\n"
        "  masterConfig:\n"
        "    imageUri: gcr.io/p/i\n"
        "    image_uri: gcr.io/p/j\n"
        "  useChiefInTfConfig: true\n"
        "  use_chief_in_tf_config: false\n")
    proc = run_cli("convert", str(path), "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 1, proc.stdout
    assert (f"{path}:9:27: error: useChiefInTfConfig is written twice in trainingInput: as useChiefInTfConfig "
            "and as use_chief_in_tf_config, its proto name") in proc.stderr, proc.stderr
    assert f"{path}:7:16: error: imageUri is written twice in trainingInput.masterConfig" in proc.stderr, proc.stderr
    assert "keep useChiefInTfConfig (the REST API's JSON name), remove use_chief_in_tf_config" in proc.stderr


def test_a_proto_named_field_keeps_its_line(tmp_path: Path) -> None:
    path = tmp_path / "machine.yaml"
    said = _refused_text(path, "trainingInput:\n  scale_tier: CUSTOM\n  region: us-central1\n  master_type: n1-standard-5\n"
                               "  master_config:\n    image_uri: gcr.io/p/i\n")
    assert f"{path}:4:16: error:" in said and "n1-standard-5" in said, said


def test_a_schema_finding_names_the_field_as_written(tmp_path: Path) -> None:
    # the schema checks the body read by JSON names; its message names what the user wrote
    path = tmp_path / "typed.yaml"
    said = _refused_text(path, "trainingInput:\n  scaleTier: CUSTOM\n  region: us-central1\n  master_type: n1-standard-4\n"
                               "  master_config:\n    image_uri: 7\n")
    assert (f"{path}:6:16: error: spec.trainingInput.master_config.image_uri is a number, expected a string\n"
            "    at spec.trainingInput.master_config.image_uri\n") in said, said
    finding = said.split("[schema]")[0]
    assert "masterConfig" not in finding and "imageUri" not in finding, said


def test_a_missing_field_is_named_as_its_proto_named_message_names_its_fields(tmp_path: Path) -> None:
    # every field of this trainingInput is written by its proto name: so is the one it lacks, once
    path = tmp_path / "nomodule.yaml"
    said = _refused_text(path, "training_input:\n  scale_tier: CUSTOM\n  master_type: n1-standard-4\n  region: us-central1\n"
                               "  package_uris: [gs://b/p.tar.gz]\n")
    errors = [line for line in said.splitlines() if ": error: " in line]
    assert errors == [f"{path}:2:3: error: no Python module to run: set trainingInput.python_module or moduleName"], said
    assert "    at spec.trainingInput.python_module\n" in said, said


def test_a_cpu_chief_at_the_proto3_defaults_has_no_accelerator(tmp_path: Path) -> None:
    proc = _convert(tmp_path / "with" / "cpu.json", _cpu_chief_body())
    assert proc.returncode == 0, proc.stderr
    assert "ACCELERATOR_TYPE_UNSPECIFIED" not in proc.stderr, proc.stderr
    ours = json.loads(proc.stdout)
    chief = ours["body"]["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]
    assert chief == {"machineType": "n1-standard-4"}
    plain = _cpu_chief_body()
    del plain["trainingInput"]["masterConfig"]["acceleratorConfig"]
    assert ours == _request(tmp_path / "without" / "cpu.json", plain)


@pytest.mark.parametrize(("accelerator", "message", "at"), [
    ({"type": "ACCELERATOR_TYPE_UNSPECIFIED", "count": 2},
     '"ACCELERATOR_TYPE_UNSPECIFIED" is not allowed for type here', "type: ACCELERATOR_TYPE_UNSPECIFIED"),
    ({"type": "NVIDIA_TESLA_T4", "count": "0"}, "0 x NVIDIA_TESLA_T4 is not a valid count on n1-standard-4",
     "count: '0'"),
])
def test_an_accelerator_half_at_its_default_is_refused_once(tmp_path: Path, accelerator: dict[str, Any],
                                                             message: str, at: str) -> None:
    """gcloud sends both as written (its --config passes them through, checked through the stand-in); neither
    says what the user meant, and the Vertex machineSpec is held to the same rule (count_needs_type), so
    trainjobs refuses each, once, at its line."""
    body = _cpu_chief_body()
    body["trainingInput"]["masterConfig"]["acceleratorConfig"] = accelerator
    path = tmp_path / "half.yaml"
    proc = _convert(path, body)
    assert proc.returncode == 1, proc.stdout
    errors = [line for line in proc.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 1 and message in errors[0], proc.stderr
    assert errors[0].startswith(f"{path}:{_line_of(path, at)}:"), proc.stderr


def test_a_snake_case_pool_names_mount_point_in_its_mounts(tmp_path: Path) -> None:
    """GoogleCloudPlatform/vertex-ai-alphafold-inference-pipeline src/pipelines/alphafold_inference_pipeline.py:
    ``nfs_mounts=[dict(server=..., path=..., mountPoint=...)]`` in a snake_case (SDK) pool."""
    path = tmp_path / "nfs.yaml"
    path.write_text(yaml.safe_dump({
        "apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "kfp_alphafold_nfs_mounts"},
        "spec": {"region": "us-central1", "network": "projects/123456789012/global/networks/default",
                 "worker_pool_specs": [{
                     "machine_spec": {"machine_type": "c2-standard-16"}, "replica_count": 1,
                     "container_spec": {"image_uri": "gcr.io/my-project/alphafold-components"},
                     "nfs_mounts": [{"server": "10.130.0.2", "path": "/datasets", "mountPoint": "alphafold"}],
                     "lustre_mounts": [{"filesystem": "fs", "mountPoint": "lustre"}]}]}}))
    proc = run_cli("validate", str(path))
    no_traceback(proc)
    assert proc.returncode == 1, proc.stdout
    allowed = [line for line in proc.stdout.splitlines() + proc.stderr.splitlines() if "allowed:" in line]
    assert any("server, path, mount_point" in line for line in allowed), allowed
    assert any("instance_ip, volume_handle, filesystem, mount_point" in line for line in allowed), allowed
    assert not any("mountPoint" in line for line in allowed), allowed


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("gcloud") is None, reason="gcloud is not installed: this oracle needs it")
def test_gcloud_sends_the_config_as_written_and_trainjobs_reads_it_as_the_twin(tmp_path: Path) -> None:
    """gcloud ai-platform jobs submit training --config, through the stand-in: it sends the proto-named key and
    the CPU chief's defaults as written, and trainjobs reads what it sent as the camelCase body without them."""
    from .gcloud.standin import start, write_config

    config = _tfcloud_body()["trainingInput"]
    config["masterType"] = "n1-standard-4"
    config["masterConfig"]["acceleratorConfig"] = {"count": "0", "type": "ACCELERATOR_TYPE_UNSPECIFIED"}
    (tmp_path / "snake.yaml").write_text(yaml.safe_dump({"trainingInput": config}))
    standin = start()
    try:
        write_config(tmp_path / "cfg", standin.url)
        proc = subprocess.run(["gcloud", "ai-platform", "jobs", "submit", "training", "tf_train_abcde",
                               "--region=us-central1", "--config=snake.yaml"], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300, env={**os.environ, "CLOUDSDK_CONFIG": str(tmp_path / "cfg")})
        assert proc.returncode == 0, proc.stderr
        sent = standin.jobs()[-1]["trainingInput"]
    finally:
        standin.close()
    assert sent["use_chief_in_tf_config"] is True
    assert sent["masterConfig"]["acceleratorConfig"] == {"count": "0", "type": "ACCELERATOR_TYPE_UNSPECIFIED"}
    theirs = _convert(tmp_path / "sent" / "job.json", {"jobId": "tf_train_abcde", "trainingInput": sent})
    assert theirs.returncode == 0 and CHIEF_WORD not in theirs.stderr, theirs.stderr
    twin = _cpu_chief_body()
    del twin["trainingInput"]["masterConfig"]["acceleratorConfig"]
    assert json.loads(theirs.stdout) == _request(tmp_path / "twin" / "job.json", twin)


def test_a_job_whose_own_markers_are_proto_names_converts_as_its_camel_case_twin(tmp_path: Path) -> None:
    # the Job itself by protobuf's other names (job_id, training_input, and describe's create_time), as
    # ml.googleapis.com reads a projects.jobs.create body: the same request as the camelCase body
    camel = _tfcloud_body()
    camel["trainingInput"]["masterType"] = camel["trainingInput"]["workerType"] = "n1-standard-8"
    for pool in ("masterConfig", "workerConfig"):
        camel["trainingInput"][pool]["acceleratorConfig"] = {"count": "1", "type": "NVIDIA_TESLA_T4"}
    snake = {"job_id": camel["jobId"], "create_time": "2020-06-01T10:00:00Z",
             "training_input": copy.deepcopy(camel["trainingInput"])}
    assert _request(tmp_path / "snake" / "job.json", snake) == _request(tmp_path / "camel" / "job.json", camel)
    said = _convert(tmp_path / "snake2" / "job.json", snake).stderr
    assert "create_time is set by the service (output only)" in said


def test_a_job_marker_in_both_spellings_is_refused_by_name(tmp_path: Path) -> None:
    body = _tfcloud_body()
    body["training_input"] = copy.deepcopy(body["trainingInput"])
    proc = _convert(tmp_path / "job.json", body)
    assert proc.returncode != 0
    line = _line_of(tmp_path / "job.json", '"training_input"')
    assert (f"{tmp_path / 'job.json'}:{line}:3: trainingInput is written twice in this Job: as trainingInput and "
            "as training_input") in proc.stderr, proc.stderr
