"""What the public REST bodies and describe outputs (rest_corpus.yaml) showed, checked without gcloud installed.

test_rest_oracle.py compares each case with what gcloud sends; these tests hold the readings it
found wrong: a JSON file's ``1e-07`` is JSON's number (the REST API's reading), not a YAML 1.1
trap; ``convert --output request`` / ``--output json`` say the conversion's warnings and
notes on stderr, as the YAML output writes them as comments, instead of dropping them; and a
TrainingInput written without its ``trainingInput:`` key is named as such, with the fix.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..conftest import no_traceback, run_cli

REST = Path(__file__).parent / "rest"

TUNING = {
    "displayName": "lr-search",
    "studySpec": {"metrics": [{"metricId": "loss", "goal": "MINIMIZE"}],
                  "parameters": [{"parameterId": "lr", "doubleValueSpec": {"minValue": "MIN", "maxValue": 1}}]},
    "maxTrialCount": 4, "parallelTrialCount": 2,
    "trialJobSpec": {"workerPoolSpecs": [{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
                                          "containerSpec": {"imageUri": "gcr.io/p/trainer:1"}}]},
}


def test_a_json_bodys_exponent_is_the_number_rest_reads(tmp_path: Path) -> None:
    """Google's own hyperparameterTuningJobs example writes minValue 1e-07: a JSON number, refused before as
    "ambiguous" (YAML 1.1 reads it as a string: no JSON reader does)."""
    path = tmp_path / "request.json"
    path.write_text(json.dumps(TUNING, indent=2).replace('"MIN"', "1e-07"))
    proc = run_cli("convert", str(path), "--region", "us-central1", "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    spec = json.loads(proc.stdout)["body"]["studySpec"]["parameters"][0]["doubleValueSpec"]
    assert spec == {"minValue": 1e-07, "maxValue": 1}


def test_the_same_exponent_in_a_yaml_file_is_still_named(tmp_path: Path) -> None:
    """A YAML file keeps the YAML reading: its plain 1e-07 is refused, with the fix, as before."""
    import yaml

    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(TUNING, sort_keys=False).replace("minValue: MIN", "minValue: 1e-07"))
    proc = run_cli("convert", str(path), "--region", "us-central1", "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 1
    assert "unquoted 1e-07 is ambiguous" in proc.stderr


@pytest.mark.parametrize("output", ["request", "json"])
def test_the_json_outputs_say_the_warnings_and_notes_on_stderr(output: str) -> None:
    """vulnhunter_package_body.json names a retired image: the YAML output says so in a comment; the JSON
    outputs said nothing before (only convert's own notes reached stderr)."""
    proc = run_cli("convert", str(REST / "vulnhunter_package_body.json"), "--region", "us-central1",
                   "--output", output)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    json.loads(proc.stdout)  # stdout stays the JSON alone
    assert "warning: the prebuilt container tf-gpu.2-11.py310 reached its end of availability" in proc.stderr
    assert "1 file checked: 1 valid, 0 invalid (0 errors, 1 warning)" in proc.stderr
    assert "note: 'vulnhunter-production-training' is not a valid job name" in proc.stderr


def test_a_model_note_reaches_stderr_of_the_json_outputs() -> None:
    """starchart_job.json has no scaleTier: read as BASIC, which the YAML output notes; so does stderr now."""
    yaml_out = run_cli("convert", str(REST / "starchart_job.json"))
    request = run_cli("convert", str(REST / "starchart_job.json"), "--output", "request")
    assert yaml_out.returncode == 0 and request.returncode == 0, request.stderr
    said = [line.removeprefix("# ").split(": ", 1) for line in yaml_out.stdout.splitlines()
            if line.startswith(("# note: ", "# warning: "))]
    assert said
    for severity, message in said:
        assert message in request.stderr, (severity, message, request.stderr)


def test_a_training_input_without_its_key_is_named_with_the_fix() -> None:
    """rapidsai/cloud-ml-examples' example_config.json writes a TrainingInput's fields at the top level: gcloud
    drops them in silence (and fails for want of packages); convert said only "not a spec and not a config"."""
    proc = run_cli("convert", str(REST / "rapids_bare_training_input.json"), "--region", "us-west1")
    no_traceback(proc)
    assert proc.returncode == 1 and not proc.stdout
    assert ("its top level holds scaleTier, masterType, masterConfig, hyperparameters, fields of an AI Platform "
            "TrainingInput, without the trainingInput: key") in proc.stderr
    assert "write them under trainingInput:" in proc.stderr
