"""A schema problem's "allowed" speaks of the value itself, never of the object that holds it.

tensorflow/cloud's AI Platform runner (find_string id 1071338437) sets
``job_spec["trainingInput"]["useChiefInTfConfig"] = "True"``: a string where TrainingInput takes a
boolean. The refusal said "allowed: AI Platform Training's TrainingInput (config.yaml); no scaleTier
means BASIC" (the description of trainingInput, found by climbing above the field, which has none of
its own), which tells the user nothing about the field. It now says what the field takes, and how to
write it.
"""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import no_traceback, run_cli

TF_CLOUD_BODY = {
    "job_id": "tf_cloud_train_1234",
    "trainingInput": {
        "masterConfig": {"imageUri": "gcr.io/my-proj/tf_cloud_train:abc"},
        "scaleTier": "CUSTOM",
        "masterType": "n1-standard-4",
        "region": "us-central1",
        "useChiefInTfConfig": "True",
    },
}


def _refusal(tmp_path: Path, body: dict[str, object]) -> str:
    path = tmp_path / "job.json"
    path.write_text(json.dumps(body, indent=2))
    proc = run_cli("convert", str(path), "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    return proc.stderr


def test_a_boolean_written_as_a_string_says_what_the_field_takes(tmp_path: Path) -> None:
    said = _refusal(tmp_path, TF_CLOUD_BODY)
    assert "job.json:10:27: error: spec.trainingInput.useChiefInTfConfig is a string, expected true or false" in said
    assert "allowed: true or false\n" in said
    assert "TrainingInput" not in said  # the description of the object holding the field is not its allowed
    assert "write true without quotes" in said


def test_a_field_with_a_description_of_its_own_keeps_it(tmp_path: Path) -> None:
    """A field described in the schema keeps its own words (serviceAccount: a $ref to a described definition)."""
    body = {**TF_CLOUD_BODY, "trainingInput": {**TF_CLOUD_BODY["trainingInput"],  # type: ignore[dict-item]
                                               "useChiefInTfConfig": True, "serviceAccount": 12}}
    said = _refusal(tmp_path, body)
    assert "spec.trainingInput.serviceAccount is a number, expected a string" in said
    assert "allowed: a service account email" in said
