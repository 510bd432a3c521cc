"""Tuning jobs as the Vertex AI Python SDK writes them: snake_case dicts, read as their REST twins.

Two forms, each checked against the installed SDK itself rather than against a copy of its rules:

* the low-level client's dicts (``study_spec``, ``parameter_id``, ``double_value_spec`` ...): the
  dict is turned into ``aiplatform_v1.HyperparameterTuningJob`` by proto-plus (so it is one the
  SDK accepts) and back to REST JSON; trainjobs must send the same request for both spellings;
* ``aiplatform.HyperparameterTuningJob``'s own arguments (``metric_spec={"accuracy": "maximize"}``,
  ``parameter_spec={"lr": hpt.DoubleParameterSpec(min=..., max=..., scale="log")}``): the SDK
  builds its request body from the real objects; trainjobs' reading of the same arguments written
  in a spec must give the same request.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
import yaml

from provider.submission.request import build_request
from provider.validation.validator import SpecResult, validate_bytes

POOLS = [{"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
          "container_spec": {"image_uri": "us-docker.pkg.dev/acme/train/trainer:1", "args": ["--epochs=3"]}}]


def _rest(message: Any) -> dict[str, Any]:
    """A proto-plus message as the REST transport writes it: camelCase, set fields only (enum names)."""
    from google.protobuf import json_format

    out: dict[str, Any] = json_format.MessageToDict(type(message).pb(message))
    return out


def _result(spec: dict[str, Any]) -> SpecResult:
    doc = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "tuning"}, "spec": spec}
    return validate_bytes(yaml.safe_dump(doc, sort_keys=False).encode(), "spec.yaml")


def _request(spec: dict[str, Any]) -> dict[str, Any]:
    result = _result(spec)
    errors = [p for p in result.problems if p.is_error]
    assert result.job is not None and not errors, errors
    request = build_request(result.job, "p")
    assert request.kind == "HyperparameterTuningJob"
    body: dict[str, Any] = request.body
    return body


LOW_LEVEL: dict[str, Any] = {
    "display_name": "tune",
    "max_trial_count": 8, "parallel_trial_count": 2, "max_failed_trial_count": 1,
    "study_spec": {
        "metrics": [{"metric_id": "accuracy", "goal": "MAXIMIZE"}],
        "parameters": [
            {"parameter_id": "lr", "double_value_spec": {"min_value": 1e-4, "max_value": 0.1},
             "scale_type": "UNIT_LOG_SCALE"},
            {"parameter_id": "units", "integer_value_spec": {"min_value": 16, "max_value": 64},
             "conditional_parameter_specs": [{
                 "parent_int_values": {"values": [32]},
                 "parameter_spec": {"parameter_id": "dropout",
                                    "double_value_spec": {"min_value": 0.1, "max_value": 0.5}}}]},
        ],
        "algorithm": "RANDOM_SEARCH",
        "measurement_selection_type": "BEST_MEASUREMENT",
        "median_automated_stopping_spec": {"use_elapsed_duration": True},
    },
    "trial_job_spec": {"worker_pool_specs": POOLS, "base_output_directory": {"output_uri_prefix": "gs://b/hpt"}},
}


def test_the_low_level_clients_dict_sends_what_its_rest_twin_sends() -> None:
    from google.cloud import aiplatform_v1

    message = aiplatform_v1.HyperparameterTuningJob(LOW_LEVEL)  # proto-plus takes the dict: it is the SDK's form
    rest = _rest(message)
    assert "studySpec" in rest and "study_spec" not in rest
    snake = _request({"region": "us-central1", **LOW_LEVEL})
    assert snake == _request({"region": "us-central1", **rest})
    condition = snake["studySpec"]["parameters"][1]["conditionalParameterSpecs"][0]
    assert condition["parameterSpec"]["parameterId"] == "dropout" and "parentIntValues" in condition


def test_the_low_level_dict_is_held_to_the_same_rules_with_its_own_key_names() -> None:
    bad = copy.deepcopy(LOW_LEVEL)
    bad["study_spec"]["metrics"][0]["metric_id"] = "val acc"
    bad["study_spec"]["parameters"][0]["double_value_spec"]["min_value"] = 0
    result = _result({"region": "us-central1", **bad})
    errors = {(p.path, p.rule) for p in result.problems if p.is_error}
    assert ("spec.study_spec.parameters[0].scale_type", "hpt.log_scale") in errors
    assert any(path.startswith("spec.study_spec.metrics[0].metric_id") for path, _ in errors)
    unknown = copy.deepcopy(LOW_LEVEL)
    unknown["study_spec"]["parameters"][0]["doubleValueSpec"] = {"min_value": 1, "max_value": 2}
    said = [p.message for p in _result({"region": "us-central1", **unknown}).problems if p.is_error]
    assert said and any("doubleValueSpec" in m for m in said)  # a camelCase key in a snake_case body: named


@pytest.fixture
def sdk() -> Iterator[Any]:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform
    from google.cloud.aiplatform import initializer

    aiplatform.init(project="p", location="us-central1", credentials=AnonymousCredentials(),  # type: ignore[no-untyped-call]
                    staging_bucket="gs://b")
    yield aiplatform
    initializer.global_config.__init__()  # type: ignore[misc]  # forget the project for later tests


ARGS: dict[str, Any] = {
    "metric_spec": {"accuracy": "maximize"},
    "parameter_spec": {
        "lr": {"DoubleParameterSpec": {"min": 1e-4, "max": 0.1, "scale": "log"}},
        "units": {"hpt.IntegerParameterSpec": {"min": 16, "max": 64, "scale": "linear"}},
        "opt": {"CategoricalParameterSpec": {"values": ["adam", "sgd"]}},
        "batch": {"DiscreteParameterSpec": {"values": [16, 32, 64], "scale": "reverse_log"}},
    },
    "max_trial_count": 40, "parallel_trial_count": 4, "max_failed_trial_count": 2,
    "search_algorithm": "random", "measurement_selection": "last",
}


def test_hyperparameter_tuning_job_arguments_send_what_the_sdk_sends(sdk: Any) -> None:
    from google.cloud.aiplatform import hyperparameter_tuning as hpt

    classes = {"DoubleParameterSpec": hpt.DoubleParameterSpec, "IntegerParameterSpec": hpt.IntegerParameterSpec,
               "CategoricalParameterSpec": hpt.CategoricalParameterSpec,
               "DiscreteParameterSpec": hpt.DiscreteParameterSpec}
    params = {}
    for name, written in ARGS["parameter_spec"].items():
        (cls, kwargs), = written.items()
        params[name] = classes[cls.removeprefix("hpt.")](**kwargs)
    custom = sdk.CustomJob(display_name="trial", worker_pool_specs=POOLS, base_output_dir="gs://b/hpt")
    job = sdk.HyperparameterTuningJob(display_name="tune", custom_job=custom,
                                      **{**ARGS, "parameter_spec": params})
    sent = _rest(job._gca_resource)
    ours = _request({"region": "us-central1", "display_name": "tune",
                     "custom_job": {"worker_pool_specs": POOLS, "base_output_dir": "gs://b/hpt"}, **ARGS})
    theirs = _request({"region": "us-central1", **sent})
    assert ours == theirs
    assert ours["studySpec"]["measurementSelectionType"] == "LAST_MEASUREMENT"
    assert ours["studySpec"]["algorithm"] == "RANDOM_SEARCH"


def test_the_sdks_defaults_and_its_refusals() -> None:
    base: dict[str, Any] = {"region": "us-central1", "custom_job": {"worker_pool_specs": POOLS},
            "metric_spec": {"loss": "minimize"},
            "parameter_spec": {"lr": {"DoubleParameterSpec": {"min": 0.0, "max": 1.0, "scale": "linear"}}}}
    study = _request(base)["studySpec"]
    # The SDK's defaults: Bayesian search (no algorithm), the best measurement.
    assert "algorithm" not in study and study["measurementSelectionType"] == "BEST_MEASUREMENT"
    conditional = copy.deepcopy(base)
    conditional["parameter_spec"]["lr"]["DoubleParameterSpec"]["conditional_parameter_spec"] = {}
    result = _result(conditional)
    said = [(p.path, p.message, p.allowed) for p in result.problems if p.is_error]
    assert said, said
    assert any("conditional_parameter_spec" in f"{path} {message}" for path, message, _ in said), said
    log_at_zero = copy.deepcopy(base)
    log_at_zero["parameter_spec"]["lr"]["DoubleParameterSpec"]["scale"] = "log"
    errors = [p for p in _result(log_at_zero).problems if p.is_error]
    assert [(p.rule, p.path) for p in errors] == [("hpt.log_scale", "spec.parameter_spec.lr.DoubleParameterSpec.scale")]


# Conditional parameters as the SDK takes them: conditional_parameter_spec on the parent (child id -> its hpt
# class), parent_values on the child; under INTEGER, CATEGORICAL and DISCRETE parents, and one level deeper.
CONDITIONAL: dict[str, Any] = {
    "units": {"IntegerParameterSpec": {"min": 16, "max": 64, "scale": "linear", "conditional_parameter_spec": {
        "dropout": {"DoubleParameterSpec": {"min": 0.1, "max": 0.5, "scale": "linear", "parent_values": [32, 64]}},
        "layers": {"hpt.DiscreteParameterSpec": {"values": [1, 2, 4], "scale": "linear", "parent_values": [16]}}}}},
    "opt": {"CategoricalParameterSpec": {"values": ["adam", "sgd"], "conditional_parameter_spec": {
        "momentum": {"DoubleParameterSpec": {"min": 0.0, "max": 0.9, "scale": "linear", "parent_values": ["sgd"]}},
        "beta": {"CategoricalParameterSpec": {"values": ["low", "high"], "parent_values": ["adam"],
                                              "conditional_parameter_spec": {
            "eps": {"DoubleParameterSpec": {"min": 1e-8, "max": 1e-6, "scale": "log", "parent_values": ["high"]}}}}}}}},
    "batch": {"DiscreteParameterSpec": {"values": [16, 32, 64], "scale": "unspecified", "conditional_parameter_spec": {
        "accum": {"IntegerParameterSpec": {"min": 1, "max": 8, "scale": "linear", "parent_values": [16, 32]}}}}},
}


def _sdk_objects(written: dict[str, Any]) -> dict[str, Any]:
    """The hpt objects a script builds for the written arguments (conditional children built first)."""
    from google.cloud.aiplatform import hyperparameter_tuning as hpt

    out = {}
    for name, spec in written.items():
        (cls, kwargs), = spec.items()
        kwargs = dict(kwargs)
        if "conditional_parameter_spec" in kwargs:
            kwargs["conditional_parameter_spec"] = _sdk_objects(kwargs["conditional_parameter_spec"])
        out[name] = getattr(hpt, cls.removeprefix("hpt."))(**kwargs)
    return out


def _wire(params: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from google.cloud import aiplatform_v1
    from google.protobuf import json_format

    pb = aiplatform_v1.StudySpec.ParameterSpec.pb()
    return [json_format.MessageToDict(json_format.ParseDict(p, pb())) for p in params]


def test_conditional_parameters_send_what_the_sdk_sends(sdk: Any) -> None:
    custom = sdk.CustomJob(display_name="trial", worker_pool_specs=POOLS, base_output_dir="gs://b/hpt")
    args = {"metric_spec": {"accuracy": "maximize"}, "max_trial_count": 20, "parallel_trial_count": 2}
    job = sdk.HyperparameterTuningJob(display_name="tune", custom_job=custom, parameter_spec=_sdk_objects(CONDITIONAL),
                                      **args)
    sent = _rest(job._gca_resource)
    ours = _request({"region": "us-central1", "display_name": "tune", "parameter_spec": CONDITIONAL,
                     "custom_job": {"worker_pool_specs": POOLS, "base_output_dir": "gs://b/hpt"}, **args})
    # What the SDK sends, field for field (the REST JSON of its own StudySpec), is what trainjobs sends, once
    # trainjobs' JSON is read as the service reads it (proto3: minValue 0.0 and no minValue are one value).
    assert _wire(ours["studySpec"]["parameters"]) == sent["studySpec"]["parameters"]
    assert ours == _request({"region": "us-central1", **sent})
    eps = ours["studySpec"]["parameters"][1]["conditionalParameterSpecs"][1]["parameterSpec"]
    assert eps["conditionalParameterSpecs"][0]["parentCategoricalValues"] == {"values": ["high"]}


def test_a_conditional_parameter_the_sdk_would_send_broken_is_refused_by_name() -> None:
    base: dict[str, Any] = {"region": "us-central1", "custom_job": {"worker_pool_specs": POOLS},
                            "metric_spec": {"loss": "minimize"}}
    child = {"DoubleParameterSpec": {"min": 0.1, "max": 0.5, "scale": "linear"}}
    cases = {
        # the SDK would send a condition with no values
        "no parent_values": ({"units": {"IntegerParameterSpec": {"min": 1, "max": 4, "scale": "linear",
                                                                 "conditional_parameter_spec": {"d": child}}}},
                             "conditional parameter 'd' has no parent_values"),
        # the SDK would send a condition with no parent kind: a DOUBLE parent has none
        "double parent": ({"lr": {"DoubleParameterSpec": {"min": 0.1, "max": 0.5, "scale": "linear",
                                                          "conditional_parameter_spec": {"d": {"DoubleParameterSpec": {
                                                              **child["DoubleParameterSpec"], "parent_values": [0.2]}}}}}},
                          "DOUBLE parameter 'lr' has conditional parameters"),
        # parent_values on a parameter with no parent: the SDK never reads it
        "orphan": ({"d": {"DoubleParameterSpec": {**child["DoubleParameterSpec"], "parent_values": [1]}}},
                   "parameter 'd' has parent_values but no parent"),
        # a value the parent cannot take
        "outside": ({"units": {"IntegerParameterSpec": {"min": 1, "max": 4, "scale": "linear",
                                                        "conditional_parameter_spec": {"d": {"DoubleParameterSpec": {
                                                            **child["DoubleParameterSpec"], "parent_values": [9]}}}}}},
                    "a value 'units' cannot take"),
    }
    for name, (params, message) in cases.items():
        said = [f"{p.path}: {p.message}" for p in _result({**base, "parameter_spec": params}).problems if p.is_error]
        assert any(message in line for line in said), (name, said)


def test_scale_is_required_where_the_sdk_requires_it_and_none_is_its_unset(sdk: Any) -> None:
    """DoubleParameterSpec, IntegerParameterSpec and DiscreteParameterSpec take scale as a required argument (a
    TypeError without it); scale=None is accepted and sends no scaleType, as "unspecified" does."""
    from google.cloud.aiplatform import hyperparameter_tuning as hpt

    base: dict[str, Any] = {"region": "us-central1", "custom_job": {"worker_pool_specs": POOLS},
                            "metric_spec": {"loss": "minimize"}, "max_trial_count": 4, "parallel_trial_count": 2}
    written = {"DoubleParameterSpec": {"min": 0.1, "max": 0.5}, "IntegerParameterSpec": {"min": 1, "max": 4},
               "DiscreteParameterSpec": {"values": [1, 2]}}
    for cls, kwargs in written.items():
        with pytest.raises(TypeError, match="scale"):
            getattr(hpt, cls)(**kwargs)
        said = [(p.path, p.message) for p in _result({**base, "parameter_spec": {"x": {cls: kwargs}}}).problems
                if p.is_error]
        assert said == [(f"spec.parameter_spec.x.{cls}", f"spec.parameter_spec.x.{cls} is missing the required key "
                                                        "'scale'")], said
    hpt.CategoricalParameterSpec(values=["a", "b"])  # no scale to give
    assert not [p for p in _result({**base, "parameter_spec": {"x": {"CategoricalParameterSpec": {"values": ["a"]}}}})
                .problems if p.is_error]
    params = {"x": {"DiscreteParameterSpec": {"values": [1, 2], "scale": None}}}
    custom = sdk.CustomJob(display_name="trial", worker_pool_specs=POOLS, base_output_dir="gs://b/hpt")
    job = sdk.HyperparameterTuningJob(display_name="tune", custom_job=custom, metric_spec={"loss": "minimize"},
                                      parameter_spec={"x": hpt.DiscreteParameterSpec(values=[1, 2], scale=None)},
                                      max_trial_count=4, parallel_trial_count=2)
    sent = _rest(job._gca_resource)["studySpec"]["parameters"]
    ours = _request({**base, "display_name": "tune", "parameter_spec": params,
                     "custom_job": {"worker_pool_specs": POOLS, "base_output_dir": "gs://b/hpt"}})
    assert "scaleType" not in sent[0] and _wire(ours["studySpec"]["parameters"]) == sent


def test_custom_job_takes_the_custom_jobs_own_staging_bucket_and_display_name() -> None:
    """aiplatform.CustomJob(display_name=..., worker_pool_specs=..., staging_bucket=...) as custom_job: the staging
    bucket gives the trials their output prefix, as the SDK writes it; the CustomJob's display_name, which the SDK
    requires and the tuning job does not send, is read with a warning that says so."""
    spec: dict[str, Any] = {"region": "us-central1", "display_name": "tune", "metric_spec": {"loss": "minimize"},
                            "parameter_spec": {"x": {"CategoricalParameterSpec": {"values": ["a", "b"]}}},
                            "custom_job": {"display_name": "trial", "worker_pool_specs": POOLS,
                                           "staging_bucket": "gs://b/stage"}}
    result = _result(spec)
    assert not [p for p in result.problems if p.is_error], result.problems
    warned = [(p.path, p.rule) for p in result.problems if not p.is_error]
    assert ("spec.custom_job.display_name", "vx.hpt.trial_display_name") in warned, warned
    body = _request(spec)
    assert body["displayName"] == "tune"
    assert body["trialJobSpec"]["baseOutputDirectory"]["outputUriPrefix"].startswith(
        "gs://b/stage/aiplatform-custom-job-")


def test_a_scale_the_sdk_does_not_map_is_sent_unset_as_the_sdk_sends_it_and_warned(sdk: Any) -> None:
    """hpt's _SCALE_TYPE_MAP.get(scale): a misspelt scale ('liear', as a public script writes it) raises nothing and
    sends no scaleType. trainjobs sends the same study, and says which scale of which parameter (and its own
    conditional children) the SDK dropped."""
    from google.cloud.aiplatform import hyperparameter_tuning as hpt

    child = hpt.DoubleParameterSpec(min=0.1, max=0.5, scale="Log", parent_values=[32])
    custom = sdk.CustomJob(display_name="trial", worker_pool_specs=POOLS, base_output_dir="gs://b/hpt")
    job = sdk.HyperparameterTuningJob(
        display_name="tune", custom_job=custom, metric_spec={"loss": "minimize"}, max_trial_count=4,
        parallel_trial_count=2,
        parameter_spec={"lr": hpt.DoubleParameterSpec(min=0.09, max=0.2, scale="liear"),
                        "units": hpt.DiscreteParameterSpec(values=[16, 32], scale="linear",
                                                           conditional_parameter_spec={"dropout": child})})
    sent = _rest(job._gca_resource)["studySpec"]["parameters"]
    params = {"lr": {"hpt.DoubleParameterSpec": {"min": 0.09, "max": 0.2, "scale": "liear"}},
              "units": {"hpt.DiscreteParameterSpec": {"values": [16, 32], "scale": "linear", "conditional_parameter_spec": {
                  "dropout": {"hpt.DoubleParameterSpec": {"min": 0.1, "max": 0.5, "scale": "Log",
                                                          "parent_values": [32]}}}}}}
    spec = {"region": "us-central1", "display_name": "tune", "metric_spec": {"loss": "minimize"},
            "max_trial_count": 4, "parallel_trial_count": 2, "parameter_spec": params,
            "custom_job": {"worker_pool_specs": POOLS, "base_output_dir": "gs://b/hpt"}}
    assert "scaleType" not in sent[0]
    assert _wire(_request(spec)["studySpec"]["parameters"]) == sent
    warned = {p.path: p.message for p in _result(spec).problems if p.rule == "vx.hpt.unknown_scale"}
    assert set(warned) == {"spec.parameter_spec.lr.hpt.DoubleParameterSpec.scale",
                           "spec.parameter_spec.units.hpt.DiscreteParameterSpec.conditional_parameter_spec.dropout"
                           ".hpt.DoubleParameterSpec.scale"}, warned
    assert "'liear' of parameter 'lr'" in warned["spec.parameter_spec.lr.hpt.DoubleParameterSpec.scale"]
    assert "did you mean 'linear'?" in warned["spec.parameter_spec.lr.hpt.DoubleParameterSpec.scale"]
