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


def test_the_same_exponent_in_a_yaml_config_is_read_as_gcloud_reads_it(tmp_path: Path) -> None:
    """A YAML file holding a job's configuration is gcloud's --config: alone, convert reads it as --config does
    (gcloud's YAML: the plain 1e-07 is the number gcloud sends), and names the reading."""
    import yaml

    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(TUNING, sort_keys=False).replace("minValue: MIN", "minValue: 1e-07"))
    proc = run_cli("convert", str(path), "--region", "us-central1", "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    assert "unquoted 1e-07 is read as gcloud reads its --config (YAML 1.1): 1e-07" in proc.stderr
    spec = json.loads(proc.stdout)["body"]["studySpec"]["parameters"][0]["doubleValueSpec"]
    assert spec == {"minValue": 1e-07, "maxValue": 1}


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


# corpus10: what the AI Platform bodies of rest_corpus.yaml's c10_ cases showed.

def test_a_null_field_of_a_training_input_is_unset_as_rest_reads_it(tmp_path: Path) -> None:
    """Airflow's MLEngineTrainingOperator sends 'scaleTier': None (JSON null) when no tier is given; the REST API and
    gcloud's --config read null as unset. Refused before: "null is not allowed for scaleTier"."""
    proc = run_cli("convert", str(REST / "c10_airflow_v2_null_scale_tier.json"), "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    assert "warning: trainingInput.scaleTier: null is read as not set, as the REST API and gcloud read it" in proc.stderr
    assert "trainingInput.scaleTier is not set: read as BASIC" in proc.stderr
    body = json.loads(REST.joinpath("c10_airflow_v2_null_scale_tier.json").read_text())
    body["labels"], body["trainingInput"]["masterConfig"] = None, None
    path = tmp_path / "job.json"
    path.write_text(json.dumps(body))
    again = run_cli("convert", str(path), "--output", "request")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["body"] == json.loads(proc.stdout)["body"]
    assert "warning: labels: null is read as not set" in again.stderr
    assert "warning: trainingInput.masterConfig: null is read as not set" in again.stderr


def test_a_null_in_a_list_is_still_refused_without_advice_to_quote_it(tmp_path: Path) -> None:
    body = json.loads(REST.joinpath("c10_airflow_v2_null_scale_tier.json").read_text())
    body["trainingInput"]["args"].append(None)
    path = tmp_path / "job.json"
    path.write_text(json.dumps(body))
    proc = run_cli("convert", str(path), "--output", "request")
    assert proc.returncode == 1
    assert "spec.trainingInput.args[4] is null, expected a string" in proc.stderr
    assert "quote it" not in proc.stderr


def test_a_number_where_rest_takes_a_string_is_advised_in_quotes_json_also_takes(tmp_path: Path) -> None:
    """The advice was YAML's single quotes, which a JSON body cannot hold."""
    body = json.loads(REST.joinpath("c10_airflow_v2_null_scale_tier.json").read_text())
    body["trainingInput"]["args"][3] = 10
    path = tmp_path / "job.json"
    path.write_text(json.dumps(body))
    proc = run_cli("convert", str(path), "--output", "request")
    assert proc.returncode == 1
    assert 'quote it: "10"' in proc.stderr


def test_a_runtime_without_a_container_makes_no_request() -> None:
    """runtime 1.12 runs no Vertex AI prebuilt container: the request said executorImageUri "" (which Vertex AI
    refuses) under a warning. The request is refused; the converted spec keeps the warning."""
    path = str(REST / "c10_cloudssifier_standard_p100.json")
    request = run_cli("convert", path, "--output", "request")
    no_traceback(request)
    assert request.returncode == 1 and not request.stdout
    assert ("error: no Vertex AI prebuilt training container matches runtime 1.12: the request would have no "
            "executorImageUri, which Vertex AI requires") in request.stderr
    spec = run_cli("convert", path)
    assert spec.returncode == 0, spec.stderr
    assert "# warning: no Vertex AI prebuilt training container matches runtime 1.12" in spec.stdout


@pytest.mark.parametrize(("name", "written", "enum"), [
    ("c10_lyrical_hyphen_k80", "NVIDIA-TESLA-K80", "NVIDIA_TESLA_K80"),
    ("c10_kfp_od_lowercase_p100", "nvidia-tesla-p100", "NVIDIA_TESLA_P100"),
])
def test_gclouds_flag_spelling_of_an_accelerator_is_named_with_the_enum(name: str, written: str, enum: str) -> None:
    """The closest-match guess offered NVIDIA_TESLA_V100 for NVIDIA-TESLA-K80 (the K80 is retired, so no guess)."""
    proc = run_cli("convert", str(REST / f"{name}.json"), "--output", "request")
    assert proc.returncode == 1
    assert f"{written} is not an accelerator type Vertex AI knows" in proc.stderr
    assert f"the AcceleratorType enum spells it {enum} ({written} is gcloud's flag spelling" in proc.stderr
    assert "did you mean" not in proc.stderr


def test_package_fields_beside_a_custom_container_are_named() -> None:
    """A TFX custom config writes pythonVersion beside masterConfig.imageUri: it reached no request and no warning."""
    proc = run_cli("convert", str(REST / "c10_tfx_generic_executor_t4.json"), "--output", "request")
    assert proc.returncode == 0, proc.stderr
    assert ("warning: trainingInput.pythonVersion is not sent to Vertex AI: the job runs the custom container "
            "masterConfig.imageUri, so the Python version is the image's") in proc.stderr
    assert "pythonVersion" not in proc.stdout


def test_a_package_path_beside_a_custom_container_is_named(tmp_path: Path) -> None:
    """AI Platform's PyTorch command (--master-image-uri gcr.io/cloud-ml-public/training/pytorch-* with --package-path
    and --module-name; a public sweep, gcleft): gcloud builds and uploads the package, and the converted job runs the
    image, so the package was dropped without a word."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "trainer").mkdir()
    (tmp_path / "trainer" / "__init__.py").write_text("")
    (tmp_path / "trainer" / "task.py").write_text("print('hi')\n")
    proc = run_cli("convert", "--gcloud", "gcloud ai-platform jobs submit training j1 --region=us-central1 "
                   "--master-image-uri=gcr.io/cloud-ml-public/training/pytorch-gpu.1-4 --package-path=trainer "
                   "--module-name=trainer.task --scale-tier=BASIC --staging-bucket=gs://bkt", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert ("# warning: packagePath 'trainer' (--package-path) is not built nor sent to Vertex AI: the job runs the "
            "custom container masterConfig.imageUri") in proc.stdout
    assert "# warning: trainingInput.pythonModule is not sent to Vertex AI" in proc.stdout


def test_a_batch_prediction_job_is_named_as_such() -> None:
    """Airflow's MLEngineStartBatchPredictionJobOperator tests (tests/providers/google/cloud/operators/
    test_mlengine.py, find_string id 197334376) create a Job with predictionInput: convert said only "not a spec
    and not a config"."""
    proc = run_cli("convert", str(REST / "c10_airflow_batch_prediction_job.json"), "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 1 and not proc.stdout
    assert "an AI Platform batch prediction job (predictionInput), not a training job" in proc.stderr
