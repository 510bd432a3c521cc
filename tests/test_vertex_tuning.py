"""Issue 29, item 2: Vertex AI hyperparameter tuning as Google writes it.

A ``hyperparameterTuningJobs.create`` REST body, the ``--config`` file of ``gcloud ai
hp-tuning-jobs create`` (the same HyperparameterTuningJob message) and ``describe`` output are
spec bodies; each case names its source. The exact request is asserted, as in test_requests.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from provider.submission.request import build_request
from provider.validation.rules import Context, Target
from provider.validation.validator import SpecResult, validate_bytes

from .conftest import run_cli

REST = "https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.hyperparameterTuningJobs"


def _check(body: dict[str, Any], target: Target = Target.ANY) -> SpecResult:
    doc = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "tuning"}, "spec": body}
    return validate_bytes(json.dumps(doc, indent=1).encode(), "spec.yaml", Context(target=target))


def _config(config: str, **flags: Any) -> SpecResult:
    """A --config file as written (its text, under spec), with the gcloud flags beside it."""
    lines = [f"  {k}: {json.dumps(v)}" for k, v in flags.items()] + [f"  {line}" for line in config.splitlines()]
    text = "apiVersion: trainjobs/v1\nkind: TrainingJob\nmetadata: {name: tuning}\nspec:\n" + "\n".join(lines) + "\n"
    return validate_bytes(text.encode(), "spec.yaml", Context())


def _request(body: dict[str, Any] | SpecResult) -> dict[str, Any]:
    result = body if isinstance(body, SpecResult) else _check(body)
    errors = [p for p in result.problems if p.is_error]
    assert result.job is not None and not errors, errors
    request = build_request(result.job, "p")
    assert request.kind == "HyperparameterTuningJob"
    assert request.parent == f"projects/p/locations/{result.job.region}"
    out: dict[str, Any] = request.body
    return out


# https://github.com/nonokangwei/Stable-Diffusion-on-GCP/blob/ed3e27d08e4240ba831673bb580d86ee3d4fcd06/
# Stable-Diffusion-Vertex/hpo/diffusers/vertex-config-diffusers.yaml, with the flags of its cloud-cli.sh
# (--region=us-central1 --display-name=sd-diffusers-hpo --max-trial-count=5 --parallel-trial-count=2) beside it.
DIFFUSERS_CONFIG = """
studySpec:
  metrics:
  - metricId: loss
    goal: MINIMIZE
  parameters:
  - parameterId: lr
    scaleType: UNIT_LOG_SCALE
    doubleValueSpec:
      minValue: 0.00001
      maxValue: 0.0001
  measurementSelectionType: BEST_MEASUREMENT
trialJobSpec:
  workerPoolSpecs:
    - machineSpec:
        machineType: n1-standard-8
        acceleratorType: NVIDIA_TESLA_V100
        acceleratorCount: 1
      replicaCount: 1
      containerSpec:
        imageUri: us-central1-docker.pkg.dev/PROJECT_ID/ARTIFACT_REGISTRY_NAME/sd-training:diffusers-hpo
        args: ["--method","diffuser_dreambooth","--hpo","y"]
        command: ["python3","train.py"]
"""

# https://github.com/pontusj101/compromise_heatmap/blob/199be06baa86de0cdebea821b24a65c3785760f3/scripts/hp_config.yaml
# (three of its parameters), with the flags of scripts/hp_tuning.sh beside it.
HEATMAP_CONFIG = """
studySpec:
  metrics:
  - metricId: F1
    goal: MAXIMIZE
  parameters:
  - parameterId: iterations
    integerValueSpec:
      minValue: 100
      maxValue: 1000
    scaleType: UNIT_LOG_SCALE
  - parameterId: fp-rate
    doubleValueSpec:
      minValue: 0.005
      maxValue: 0.1
    scaleType: UNIT_LOG_SCALE
  - parameterId: heads-per-layer
    integerValueSpec:
      minValue: 1
      maxValue: 8
    scaleType: UNIT_LOG_SCALE
trialJobSpec:
  workerPoolSpecs:
    - machineSpec:
        machineType: n1-highcpu-32
      replicaCount: 1
      containerSpec:
        imageUri: europe-north1-docker.pkg.dev/aps-validation-joarjox/heatmap-images/heatmap:latest
"""


def test_gcloud_config_with_its_flags_diffusers() -> None:
    body = _config(DIFFUSERS_CONFIG, region="us-central1", displayName="sd-diffusers-hpo", maxTrialCount=5,
                   parallelTrialCount=2)
    assert _request(body) == {
        "displayName": "sd-diffusers-hpo",
        "studySpec": {
            "metrics": [{"metricId": "loss", "goal": "MINIMIZE"}],
            "parameters": [{"parameterId": "lr", "doubleValueSpec": {"minValue": 0.00001, "maxValue": 0.0001},
                            "scaleType": "UNIT_LOG_SCALE"}],
            "measurementSelectionType": "BEST_MEASUREMENT",
        },
        "maxTrialCount": 5,
        "parallelTrialCount": 2,
        "trialJobSpec": {"workerPoolSpecs": [{
            "machineSpec": {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_V100",
                            "acceleratorCount": 1},
            "replicaCount": "1",
            "containerSpec": {
                "imageUri": "us-central1-docker.pkg.dev/PROJECT_ID/ARTIFACT_REGISTRY_NAME/sd-training:diffusers-hpo",
                "command": ["python3", "train.py"], "args": ["--method", "diffuser_dreambooth", "--hpo", "y"]},
        }]},
    }


def test_gcloud_config_with_its_flags_integer_log_scales() -> None:
    body = _config(HEATMAP_CONFIG, region="us-central1", displayName="heatmap", maxTrialCount=64,
                   parallelTrialCount=64)
    request = _request(body)
    assert request["studySpec"]["parameters"] == [
        {"parameterId": "iterations", "integerValueSpec": {"minValue": "100", "maxValue": "1000"},
         "scaleType": "UNIT_LOG_SCALE"},
        {"parameterId": "fp-rate", "doubleValueSpec": {"minValue": 0.005, "maxValue": 0.1},
         "scaleType": "UNIT_LOG_SCALE"},
        {"parameterId": "heads-per-layer", "integerValueSpec": {"minValue": "1", "maxValue": "8"},
         "scaleType": "UNIT_LOG_SCALE"},
    ]
    assert request["maxTrialCount"] == 64 and request["parallelTrialCount"] == 64


# The REST reference's HyperparameterTuningJob (REST above) and StudySpec
# (https://cloud.google.com/vertex-ai/docs/reference/rest/v1/StudySpec): a create body in JSON.
REST_BODY = {
    "displayName": "rest-tuning",
    "studySpec": {
        "metrics": [{"metricId": "val_accuracy", "goal": "MAXIMIZE"}],
        "parameters": [
            {"parameterId": "learning_rate", "doubleValueSpec": {"minValue": 0.0001, "maxValue": 0.1},
             "scaleType": "UNIT_REVERSE_LOG_SCALE"},
            {"parameterId": "num_units", "discreteValueSpec": {"values": [64, 128, 512]},
             "scaleType": "UNIT_LINEAR_SCALE"},
            {"parameterId": "optimizer", "categoricalValueSpec": {"values": ["sgd", "adam"]},
             "conditionalParameterSpecs": [{"parentCategoricalValues": {"values": ["sgd"]},
                                            "parameterSpec": {"parameterId": "momentum",
                                                              "doubleValueSpec": {"minValue": 0.0, "maxValue": 0.9}}}]},
        ],
        "algorithm": "ALGORITHM_UNSPECIFIED",
        "observationNoise": "LOW",
    },
    "maxTrialCount": "20",
    "parallelTrialCount": "4",
    "maxFailedTrialCount": "2",
    "trialJobSpec": {"workerPoolSpecs": [{
        "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
        "pythonPackageSpec": {"executorImageUri": "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest",
                              "packageUris": ["gs://bucket/trainer-0.1.tar.gz"], "pythonModule": "trainer.task"}}],
        "baseOutputDirectory": {"outputUriPrefix": "gs://bucket/hpt"}},
    "labels": {"team": "vision"},
}


def test_rest_body() -> None:
    request = _request({**REST_BODY, "region": "europe-west4"})
    assert request["studySpec"] == {
        "metrics": [{"metricId": "val_accuracy", "goal": "MAXIMIZE"}],
        "parameters": [
            {"parameterId": "learning_rate", "doubleValueSpec": {"minValue": 0.0001, "maxValue": 0.1},
             "scaleType": "UNIT_REVERSE_LOG_SCALE"},
            {"parameterId": "num_units", "discreteValueSpec": {"values": [64.0, 128.0, 512.0]},
             "scaleType": "UNIT_LINEAR_SCALE"},
            {"parameterId": "optimizer", "categoricalValueSpec": {"values": ["sgd", "adam"]},
             "conditionalParameterSpecs": [{"parentCategoricalValues": {"values": ["sgd"]},
                                            "parameterSpec": {"parameterId": "momentum",
                                                              "doubleValueSpec": {"minValue": 0.0, "maxValue": 0.9}}}]},
        ],
        "algorithm": "ALGORITHM_UNSPECIFIED",  # written explicitly: sent as written, as gcloud sends it
        "observationNoise": "LOW",
    }
    assert (request["maxTrialCount"], request["parallelTrialCount"], request["maxFailedTrialCount"]) == (20, 4, 2)
    assert request["labels"] == {"team": "vision"}
    assert request["trialJobSpec"]["baseOutputDirectory"] == {"outputUriPrefix": "gs://bucket/hpt"}


@pytest.mark.parametrize(("spec", "expected"), [
    ({"decayCurveStoppingSpec": {"useElapsedDuration": True}}, {"decayCurveStoppingSpec": {"useElapsedDuration": True}}),
    ({"medianAutomatedStoppingSpec": {}}, {"medianAutomatedStoppingSpec": {}}),
    ({"convexAutomatedStoppingSpec": {"maxStepCount": 100, "minStepCount": "10", "minMeasurementCount": 3,
                                      "learningRateParameterName": "learning_rate", "updateAllStoppedTrials": True}},
     {"convexAutomatedStoppingSpec": {"maxStepCount": "100", "minStepCount": "10", "minMeasurementCount": "3",
                                      "learningRateParameterName": "learning_rate", "updateAllStoppedTrials": True}}),
])
def test_every_stopping_spec(spec: dict[str, Any], expected: dict[str, Any]) -> None:
    body = {**REST_BODY, "region": "us-central1", "studySpec": {**REST_BODY["studySpec"], **spec}}
    study = _request(body)["studySpec"]
    assert {k: v for k, v in study.items() if "Stopping" in k} == expected


def test_integer_and_discrete_parents_and_defaults() -> None:
    study = {"metrics": [{"metricId": "auc", "goal": "MAXIMIZE"}], "algorithm": "GRID_SEARCH", "parameters": [
        {"parameterId": "depth", "integerValueSpec": {"minValue": 1, "maxValue": 3, "defaultValue": 2},
         "conditionalParameterSpecs": [{"parentIntValues": {"values": [3]},
                                        "parameterSpec": {"parameterId": "leaves",
                                                          "discreteValueSpec": {"values": [8, 16]}}}]},
        {"parameterId": "batch", "discreteValueSpec": {"values": [32, 64], "defaultValue": 64},
         "conditionalParameterSpecs": [{"parentDiscreteValues": {"values": [64]},
                                        "parameterSpec": {"parameterId": "accum",
                                                          "integerValueSpec": {"minValue": 1, "maxValue": 2}}}]},
        {"parameterId": "loss", "categoricalValueSpec": {"values": ["l1", "l2"], "defaultValue": "l2"}},
    ]}
    body = {**REST_BODY, "region": "us-central1", "studySpec": study, "maxTrialCount": 12}
    assert _request(body)["studySpec"]["parameters"] == [
        {"parameterId": "depth", "integerValueSpec": {"minValue": "1", "maxValue": "3", "defaultValue": "2"},
         "conditionalParameterSpecs": [{"parentIntValues": {"values": ["3"]},
                                        "parameterSpec": {"parameterId": "leaves",
                                                          "discreteValueSpec": {"values": [8.0, 16.0]}}}]},
        {"parameterId": "batch", "discreteValueSpec": {"values": [32.0, 64.0], "defaultValue": 64.0},
         "conditionalParameterSpecs": [{"parentDiscreteValues": {"values": [64.0]},
                                        "parameterSpec": {"parameterId": "accum",
                                                          "integerValueSpec": {"minValue": "1", "maxValue": "2"}}}]},
        {"parameterId": "loss", "categoricalValueSpec": {"values": ["l1", "l2"], "defaultValue": "l2"}},
    ]


def _describe() -> dict[str, Any]:
    """What ``gcloud ai hp-tuning-jobs describe`` prints: the job as created, and what the service set (REST)."""
    return {**REST_BODY, "name": "projects/123/locations/asia-east1/hyperparameterTuningJobs/987",
            "state": "JOB_STATE_SUCCEEDED", "createTime": "2024-05-01T10:00:00.123456Z",
            "startTime": "2024-05-01T10:01:00Z", "endTime": "2024-05-01T12:00:00Z", "updateTime": "2024-05-01T12:00:00Z",
            "trials": [{"id": "1", "state": "SUCCEEDED", "parameters": [{"parameterId": "learning_rate", "value": 0.01}],
                        "finalMeasurement": {"stepCount": "10", "metrics": [{"metricId": "val_accuracy",
                                                                             "value": 0.91}]}}]}


def test_describe_output_ignores_what_the_service_set_with_a_warning_each() -> None:
    result = _check(_describe())
    assert result.job is not None and result.job.region == "asia-east1"  # from the job's name
    warned = sorted(p.path for p in result.problems if p.rule == "vx.hpt.output_only")
    assert warned == ["spec.createTime", "spec.endTime", "spec.name", "spec.startTime", "spec.state", "spec.trials",
                      "spec.updateTime"]
    assert not [p for p in result.problems if p.is_error]
    assert _request(_describe()) == _request({**REST_BODY, "region": "asia-east1"})


def test_convert_reads_a_describe_output_and_writes_a_native_spec(tmp_path: Path) -> None:
    path = tmp_path / "describe.json"
    path.write_text(json.dumps(_describe()))
    proc = run_cli("convert", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "# warning: trials is output only" in proc.stdout
    native = tmp_path / "native.yaml"
    native.write_text(proc.stdout)
    again = validate_bytes(native.read_bytes(), "native.yaml")
    assert again.job is not None and again.ok, again.problems
    assert build_request(again.job, "p").body == _request({**REST_BODY, "region": "asia-east1"}) | {
        "displayName": "rest-tuning"}
    hp = yaml.safe_load(proc.stdout)["spec"]["hyperparameters"]
    assert hp["params"][2]["conditionalParams"] == [
        {"parentValues": ["sgd"], "param": {"name": "momentum", "type": "DOUBLE", "min": 0.0, "max": 0.9}}]
    assert hp["observationNoise"] == "LOW" and hp["maxFailedTrials"] == 2


def _rules(body: dict[str, Any]) -> dict[str, str]:
    return {p.rule: p.message for p in _check(body).problems if p.is_error}


def test_vertex_rules() -> None:
    base = {**REST_BODY, "region": "us-central1"}

    def study(**changes: Any) -> dict[str, Any]:
        return {**base, "studySpec": {**REST_BODY["studySpec"], **changes}}

    spaced = study(metrics=[{"metricId": "val accuracy", "goal": "MAXIMIZE"}])
    assert "hpt.id_whitespace" in _rules(spaced)  # the rule (with its source) speaks where the schema pattern would
    log = study(parameters=[{"parameterId": "lr", "doubleValueSpec": {"minValue": 0, "maxValue": 1},
                             "scaleType": "UNIT_LOG_SCALE"}])
    assert "hpt.log_scale" in _rules(log)
    grid = study(algorithm="GRID_SEARCH")
    assert "hpt.grid" in _rules(grid)
    conditional_double = study(parameters=[{"parameterId": "lr", "doubleValueSpec": {"minValue": 0.1, "maxValue": 1},
                                            "conditionalParameterSpecs": [{"parentDiscreteValues": {"values": [0.5]},
                                                                           "parameterSpec": REST_BODY["studySpec"][
                                                                               "parameters"][0]}]}])
    assert "vx.hpt.condition" in _rules(conditional_double) and "hpt.conditional" in _rules(conditional_double)
    wrong_kind = study(parameters=[{"parameterId": "opt", "categoricalValueSpec": {"values": ["a", "b"]},
                                    "conditionalParameterSpecs": [{"parentIntValues": {"values": [1]},
                                                                   "parameterSpec": REST_BODY["studySpec"][
                                                                       "parameters"][0]}]}])
    assert _rules(wrong_kind)["vx.hpt.condition"] == "parentIntValues conditions a CATEGORICAL parent"
    outside = study(parameters=[{"parameterId": "opt", "categoricalValueSpec": {"values": ["a", "b"]},
                                 "conditionalParameterSpecs": [{"parentCategoricalValues": {"values": ["c"]},
                                                                "parameterSpec": REST_BODY["studySpec"][
                                                                    "parameters"][0]}]}])
    assert "cannot take" in _rules(outside)["hpt.conditional"]
    two_stoppings = study(medianAutomatedStoppingSpec={}, decayCurveStoppingSpec={})
    assert "are alternatives" in _rules(two_stoppings)["vx.hpt.stopping"]
    default_outside = study(parameters=[{"parameterId": "n", "discreteValueSpec": {"values": [1, 2], "defaultValue": 3}}])
    assert "cannot take" in _rules(default_outside)["hpt.default"]
    assert "schema" in _rules(study(metrics=[{"metricId": "a", "goal": "BIGGER"}]))


# github.com/nandafiku/fillesg config.yaml (commit 176c729efaaf0c1ecb7a7d6db374316ae80b9c15): one value where the
# study takes a list. gcloud's --config loader (apitools protojson) reads a single value for a repeated field as a
# one-item list, and sends it (the gcloud oracle's c6_fillesg_scalar_discrete case): read as gcloud reads it, named.
SCALAR_VALUES_CONFIG = """
studySpec:
  metrics:
  - metricId: accuracy
    goal: MAXIMIZE
  parameters:
  - parameterId: num_neurons
    discreteValueSpec:
      values: 64
  - parameterId: optimizer
    categoricalValueSpec:
      values: adam
    conditionalParameterSpecs:
    - parentCategoricalValues:
        values: adam
      parameterSpec:
        parameterId: beta
        discreteValueSpec:
          values: 0.9
trialJobSpec:
  workerPoolSpecs:
    - machineSpec:
        machineType: n1-standard-4
      replicaCount: 1
      containerSpec:
        imageUri: i
"""


def test_a_single_value_for_a_study_list_is_read_as_gcloud_reads_it() -> None:
    result = _config(SCALAR_VALUES_CONFIG, region="us-central1", displayName="tes", maxTrialCount=12,
                     parallelTrialCount=2)
    params = _request(result)["studySpec"]["parameters"]
    assert params[0]["discreteValueSpec"] == {"values": [64.0]}
    assert params[1]["categoricalValueSpec"] == {"values": ["adam"]}
    conditional = params[1]["conditionalParameterSpecs"][0]
    assert conditional["parentCategoricalValues"] == {"values": ["adam"]}
    assert conditional["parameterSpec"]["discreteValueSpec"] == {"values": [0.9]}
    warnings = [p.message for p in result.problems if not p.is_error]
    for written in ("values: 64", "values: 'adam'", "values: 0.9"):
        assert any(f"gcloud reads {written} as the one-item list" in w for w in warnings), warnings


def test_a_tuning_config_without_its_trial_job_is_refused_at_its_first_line(tmp_path: Path) -> None:
    path = tmp_path / "hp.yaml"
    path.write_text("displayName: hp\nstudySpec:\n  metrics: [{metricId: acc, goal: MAXIMIZE}]\n  parameters:\n"
                    "  - {parameterId: lr, doubleValueSpec: {minValue: 0.001, maxValue: 0.1}}\nmaxTrialCount: 4\n"
                    "parallelTrialCount: 2\n")
    proc = run_cli("convert", str(path), "--region", "us-central1")
    assert proc.returncode == 1, proc.stdout
    assert f"{path}:1:1: error: spec is missing the required key 'trialJobSpec'" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_placeholder_naming_a_parameter_in_the_trial_args_is_warned_and_sent_as_written() -> None:
    """search:35119357461 writes "--learning_rate", "{{trial.parameters.learning_rate}}" in its trial args: Vertex AI
    substitutes nothing there (it appends --learning_rate=VALUE itself), so the braces reach the trainer. A
    placeholder naming no parameter, and the same args in a job that tunes nothing, are left alone."""
    pool = REST_BODY["trialJobSpec"]["workerPoolSpecs"][0]
    args = ["--lr", "{{trial.parameters.learning_rate}}", "--tag={{ run_id }}", "--units={{num_units}}"]
    trial = {**REST_BODY["trialJobSpec"],
             "workerPoolSpecs": [{**pool, "pythonPackageSpec": {**pool["pythonPackageSpec"], "args": args}}]}
    result = _check({**REST_BODY, "region": "us-central1", "trialJobSpec": trial})
    said = {p.path: p.message for p in result.problems if p.rule == "hpt.arg_template"}
    where = "spec.trialJobSpec.workerPoolSpecs[0].pythonPackageSpec.args"
    assert set(said) == {f"{where}[1]", f"{where}[3]"}, said
    assert "appends --learning_rate=VALUE" in said[f"{where}[1]"]
    assert "appends --num_units=VALUE" in said[f"{where}[3]"]
    assert _request(result)["trialJobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["args"] == args
    plain = _check({"region": "us-central1", **trial})
    assert plain.job is not None and plain.job.hyperparameters is None, plain.problems
    assert not [p for p in plain.problems if p.rule == "hpt.arg_template"], plain.problems
