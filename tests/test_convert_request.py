"""A create request written whole converts as the job it creates, with its parent's region.

The requests are built by the installed google-cloud-aiplatform itself (``CreateCustomJobRequest``,
``CreateHyperparameterTuningJobRequest``) and printed by its own printers, as a script that saves
``request=`` dicts writes them; ``convert --output request``'s own ``{kind, parent, body}`` converts back
to the same request. Each must give the request its job alone gives with ``--region`` set to the parent's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import no_traceback, run_cli
from .test_vertex_proto_envelopes import CUSTOM_JOB, TUNING_JOB

pytest.importorskip("google.cloud.aiplatform_v1")

PARENT = "projects/acme-ml/locations/europe-west4"


def _request_forms(kind: str, job: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The create request for ``job`` as the SDK's printers write it."""
    from google.cloud import aiplatform_v1
    from google.protobuf import json_format

    cls = getattr(aiplatform_v1, f"Create{kind}Request")
    field = "custom_job" if kind == "CustomJob" else "hyperparameter_tuning_job"
    inner = getattr(aiplatform_v1, kind)
    message = cls(parent=PARENT, **{field: inner.wrap(json_format.ParseDict(job, inner.pb(inner())))})
    return {
        "message_to_json": json.loads(json_format.MessageToJson(cls.pb(message))),  # customJob, jobSpec
        "to_dict": cls.to_dict(message),  # custom_job, job_spec, enum numbers, defaults printed
        "message_to_dict_proto_names": json_format.MessageToDict(cls.pb(message), preserving_proto_field_name=True),
    }


def _convert(tmp_path: Path, name: str, body: dict[str, Any], *flags: str) -> tuple[Any, str]:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(body))
    proc = run_cli("convert", str(path), "--output", "request", *flags)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr


@pytest.mark.parametrize("kind, job", [("CustomJob", CUSTOM_JOB), ("HyperparameterTuningJob", TUNING_JOB)])
def test_a_create_request_converts_as_its_job_in_the_parents_region(tmp_path: Path, kind: str, job: dict[str, Any]) -> None:
    twin, _ = _convert(tmp_path, "job", job, "--region", "europe-west4")
    forms = _request_forms(kind, job)
    assert "customJob" in forms["message_to_json"] or "hyperparameterTuningJob" in forms["message_to_json"]
    for form, request in forms.items():
        assert request["parent"] == PARENT
        converted, said = _convert(tmp_path, form, request)
        assert converted == twin, form
        assert converted["parent"].endswith("/locations/europe-west4")
        assert "the project acme-ml is where the request would be sent, not part of the job" in said, said


def test_convert_reads_its_own_request_output_back(tmp_path: Path) -> None:
    for kind, job in (("custom", CUSTOM_JOB), ("tuning", TUNING_JOB)):
        first, _ = _convert(tmp_path, kind, job, "--region", "us-east1")
        again, said = _convert(tmp_path, f"{kind}-again", first)
        assert again == first, kind
        assert "read as the job the request creates" in said


def test_region_flag_wins_over_the_parent(tmp_path: Path) -> None:
    request = _request_forms("CustomJob", CUSTOM_JOB)["message_to_json"]
    converted, _ = _convert(tmp_path, "req", request, "--region", "us-central1")
    assert converted["parent"] == "projects/PROJECT/locations/us-central1"


def _refused(tmp_path: Path, body: dict[str, Any]) -> str:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(body))
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode != 0, proc.stdout
    return proc.stderr


def test_what_a_create_request_cannot_hold_is_refused_by_name(tmp_path: Path) -> None:
    assert ("validateOnly beside customJob: CreateCustomJobRequest has no such field; allowed: parent and customJob"
            in _refused(tmp_path, {"parent": PARENT, "customJob": CUSTOM_JOB, "validateOnly": True}))
    assert "holds customJob and hyperparameterTuningJob" in _refused(
        tmp_path, {"parent": PARENT, "customJob": CUSTOM_JOB, "hyperparameterTuningJob": TUNING_JOB})
    assert "holds customJob and custom_job" in _refused(
        tmp_path, {"parent": PARENT, "customJob": CUSTOM_JOB, "custom_job": CUSTOM_JOB})
    assert "parent is 'europe-west4'; allowed: projects/PROJECT/locations/REGION" in _refused(
        tmp_path, {"parent": "europe-west4", "customJob": CUSTOM_JOB})
    assert "customJob is a list; allowed: a CustomJob mapping" in _refused(tmp_path, {"parent": PARENT, "customJob": []})
    assert "kind is 'TrainingPipeline', not a job kind convert --output request writes" in _refused(
        tmp_path, {"kind": "TrainingPipeline", "parent": PARENT, "body": CUSTOM_JOB})


def test_a_region_the_catalog_lacks_is_reported_at_the_parents_line(tmp_path: Path) -> None:
    path = tmp_path / "req.yaml"
    path.write_text("customJob:\n  displayName: x\n  jobSpec:\n    workerPoolSpecs:\n"
                    "    - machineSpec: {machineType: n1-standard-4}\n      replicaCount: 1\n"
                    "      containerSpec: {imageUri: gcr.io/p/i:1}\n"
                    "parent: projects/p/locations/mars-central1\n")
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode == 1, proc.stdout
    assert "req.yaml:8:" in proc.stderr and "mars-central1" in proc.stderr, proc.stderr
