"""The HyperparameterTuningJob format's JSON Schema fragment: ``vertexTuningJob``, ``vertexStudy``,
``vertexParam`` and ``vertexTrialSpec``.

The rules of Vertex AI's REST reference (HyperparameterTuningJob, StudySpec) that a schema can
hold: a metric id without whitespace, goals MAXIMIZE or MINIMIZE, exactly one value spec per
parameter, at most one automated stopping spec, one parent condition per conditional
parameter, positive trial counts. The trial job is the Vertex format's CustomJobSpec without
what trainjobs adds beside it (region, labels ...: those belong to the tuning job).

The ``*Snake`` definitions are the same message in the snake_case of the Python SDK's low-level
client (``study_spec``, ``trial_job_spec``), made from the camelCase ones by ``_snake_tree``: every
property name, required key and own ``$ref`` renamed, nothing else changed.
"""

from __future__ import annotations

from typing import Any

from provider.spec.formats.schema_kit import Schema, double, int64, limits, obj, string
from provider.spec.formats.vertex.field_table import OUTPUT_ONLY
from provider.spec.formats.vertex.keys import in_spelling, snake
from provider.spec.formats.vertex.schema import defs as vertex_defs
from provider.spec.model import StoppingKind

# What the Vertex format's body takes beside a CustomJobSpec's own fields.
_NOT_IN_TRIAL = ("region", "displayName", "labels", "stagingBucket", "desiredState", "kmsKey", "encryptionSpecKeyName")


def _one_of(keys: list[str], what: str) -> Schema:
    return {"oneOf": [{"required": [k], "description": f"exactly one of {', '.join(keys)} ({what})"} for k in keys]}


def _trial_spec(snake_case: bool = False) -> Schema:
    spec: Schema = dict(vertex_defs()["vertexSpecSnake" if snake_case else "vertexSpec"])
    drop = {snake(k) if snake_case else k for k in _NOT_IN_TRIAL}
    spec["properties"] = {k: v for k, v in spec["properties"].items() if k not in drop}
    spec.pop("not", None)  # kms_key or encryption_spec_key_name: the job's key, not the trial's
    spec["required"] = ["worker_pool_specs" if snake_case else "workerPoolSpecs"]
    spec["description"] = "the CustomJobSpec every trial runs (workerPoolSpecs, scheduling, baseOutputDirectory ...)"
    return spec


def _param() -> Schema:
    hp = limits()["hyperparameters"]
    number = double()
    whole = {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^-?[0-9]+$"}],
             "description": "a whole number (int64: a number, or a decimal string as the REST API writes it)"}
    values = {"type": "array", "minItems": 1, "maxItems": hp["max_discrete_values"]}
    conditions = ["parentIntValues", "parentDiscreteValues", "parentCategoricalValues"]
    value_specs = {
        # Not required: proto3 JSON (a describe output, what the SDK sends) leaves out a bound of 0, and
        # the service reads a missing bound as 0 (study.py reads it so).
        "doubleValueSpec": obj({"minValue": number, "maxValue": number, "defaultValue": number},
                               description="minValue, maxValue (0 where left out, as in proto3 JSON), defaultValue"),
        "integerValueSpec": obj({"minValue": whole, "maxValue": whole, "defaultValue": whole},
                                description="minValue, maxValue (0 where left out, as in proto3 JSON), defaultValue"),
        "categoricalValueSpec": obj({"values": {**values, "items": {"type": "string"}},
                                     "defaultValue": {"type": "string"}},
                                    required=("values",), description="values (strings), defaultValue"),
        "discreteValueSpec": obj({"values": {**values, "items": number}, "defaultValue": number},
                                 required=("values",), description="values (increasing numbers), defaultValue"),
    }
    condition = obj(
        {"parentIntValues": obj({"values": {**values, "items": whole}}, required=("values",)),
         "parentDiscreteValues": obj({"values": {**values, "items": number}}, required=("values",)),
         "parentCategoricalValues": obj({"values": {**values, "items": {"type": "string"}}}, required=("values",)),
         "parameterSpec": {"$ref": "#/$defs/vertexParam"}},
        required=("parameterSpec",),
        description="a parameter searched only when its parent takes one of the parent values",
        **_one_of(conditions, "the condition on the parent's value, by the parent's type"),
    )
    return obj(
        {"parameterId": string("the parameter's id, passed to the trainer as --ID=VALUE", pattern="^\\S+$"),
         **value_specs,
         "scaleType": {"enum": ["SCALE_TYPE_UNSPECIFIED", "UNIT_LINEAR_SCALE", "UNIT_LOG_SCALE",
                                "UNIT_REVERSE_LOG_SCALE"]},
         "conditionalParameterSpecs": {"type": "array", "minItems": 1, "items": condition}},
        required=("parameterId",),
        description="a ParameterSpec: parameterId, one value spec, scaleType, conditionalParameterSpecs",
        **_one_of(list(value_specs), "the parameter's type"),
    )


def _study() -> Schema:
    safety = obj({"safetyThreshold": {"type": "number"},
                  "desiredMinSafeTrialsFraction": {"type": "number", "minimum": 0, "maximum": 1}},
                 description="safetyThreshold, desiredMinSafeTrialsFraction")
    metric = obj({"metricId": {"$ref": "#/$defs/metricId"}, "goal": {"enum": ["MAXIMIZE", "MINIMIZE"]},
                  "safetyConfig": safety},
                 required=("metricId", "goal"), description="a MetricSpec: metricId (no whitespace), goal, safetyConfig")
    elapsed = {"useElapsedDuration": {"type": "boolean"}}
    count = int64("a count")
    stopping = {
        StoppingKind.DECAY_CURVE.value: obj(elapsed, description="useElapsedDuration"),
        StoppingKind.MEDIAN.value: obj(elapsed, description="useElapsedDuration"),
        StoppingKind.CONVEX.value: obj(
            {**elapsed, "maxStepCount": count, "minStepCount": count, "minMeasurementCount": count,
             "learningRateParameterName": {"type": "string"}, "updateAllStoppedTrials": {"type": "boolean"}},
            description="maxStepCount, minStepCount, minMeasurementCount, learningRateParameterName, "
            "useElapsedDuration, updateAllStoppedTrials"),
    }
    positive = {"type": "integer", "minimum": 0}
    study_stopping = obj(
        {"shouldStopAsap": {"type": "boolean"}, "minimumRuntimeConstraint": {"$ref": "#/$defs/studyTime"},
         "maximumRuntimeConstraint": {"$ref": "#/$defs/studyTime"}, "minNumTrials": positive,
         "maxNumTrials": positive, "maxNumTrialsNoProgress": positive,
         "maxDurationNoProgress": {"$ref": "#/$defs/duration"}},
        description="when the whole study stops")
    return obj(
        {"metrics": {"type": "array", "minItems": 1, "items": metric},
         "parameters": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/vertexParam"}},
         "algorithm": {"enum": ["ALGORITHM_UNSPECIFIED", "GRID_SEARCH", "RANDOM_SEARCH"],
                       "description": "ALGORITHM_UNSPECIFIED (Bayesian optimisation), GRID_SEARCH or RANDOM_SEARCH"},
         "observationNoise": {"enum": ["OBSERVATION_NOISE_UNSPECIFIED", "LOW", "HIGH"]},
         "measurementSelectionType": {"enum": ["MEASUREMENT_SELECTION_TYPE_UNSPECIFIED", "LAST_MEASUREMENT",
                                               "BEST_MEASUREMENT"]},
         **stopping,
         "studyStoppingConfig": study_stopping},
        required=("metrics", "parameters"),
        description="a StudySpec: metrics, parameters, algorithm, observationNoise, measurementSelectionType, "
        "one automated stopping spec, studyStoppingConfig",
        **{"not": {"anyOf": [{"required": [a, b]} for i, a in enumerate(stopping) for b in list(stopping)[i + 1:]]},
           "$comment": "automatedStoppingSpec is a oneof: at most one stopping spec"},
    )


def _job() -> Schema:
    # A count of 0 ("0" alike) is read as gcloud reads it: not given, so 1 (study.py ``_count`` says so);
    # a string is the number Python's int() reads in it, as apitools reads a --config.
    counts = {"type": "integer", "minimum": 0}
    count_text = {"type": "string", "pattern": "^\\s*\\+?[0-9]+\\s*$"}
    output_only = {key: {"description": f"output only ({why}): ignored with a warning"}
                   for key, why in OUTPUT_ONLY["HyperparameterTuningJob"].items()}
    return obj(
        {"region": {"$ref": "#/$defs/region"},
         "displayName": string("the tuning job's display name", maxLength=128),
         "studySpec": {"$ref": "#/$defs/vertexStudy"},
         "maxTrialCount": {"anyOf": [counts, count_text]},
         "parallelTrialCount": {"anyOf": [counts, count_text]},
         "maxFailedTrialCount": {"anyOf": [{"type": "integer", "minimum": 0},
                                           {"type": "string", "pattern": "^[0-9]+$"}]},
         "trialJobSpec": {"$ref": "#/$defs/vertexTrialSpec"},
         "labels": {"$ref": "#/$defs/labels"},
         "encryptionSpec": obj({"kmsKeyName": string("the customer-managed key: projects/P/locations/R/keyRings/K/"
                                                     "cryptoKeys/KEY")}, required=("kmsKeyName",)),
         "desiredState": {"$ref": "#/$defs/desiredState"},
         **output_only},
        required=("studySpec", "trialJobSpec"),
        description="a Vertex AI HyperparameterTuningJob (REST camelCase; gcloud ai hp-tuning-jobs create --config; "
        "a describe output) with region beside it (a describe output's name gives it)",
    )


# Definitions renamed with their snake_case twins; the shared ones (duration, labels ...) have no camelCase keys.
_TWINS = ("vertexTuningJob", "vertexStudy", "vertexParam", "studyTime")


def _snake_tree(node: Any) -> Any:
    """A schema node with every property name, required key and own ``$ref`` in snake_case."""
    if isinstance(node, list):
        return [_snake_tree(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties":
            out[key] = {snake(k): _snake_tree(v) for k, v in value.items()}
        elif key == "required":
            out[key] = [snake(k) for k in value]
        elif key == "$ref" and value.split("/")[-1] in (*_TWINS, "vertexTrialSpec"):
            out[key] = value + "Snake"
        elif key == "description" and isinstance(value, str):
            out[key] = in_spelling(value, snake_case=True)
        else:
            out[key] = _snake_tree(value)
    return out


def _sdk_param() -> Schema:
    """One hpt class by name with its keyword arguments, conditional children included (recursive)."""
    number = {"type": "number"}
    # scale is a required argument of the three classes that take it (a TypeError without it); None, like
    # "unspecified" or any other string, sends no scaleType (_SCALE_TYPE_MAP.get(scale), hyperparameter_tuning.py):
    # a string the map lacks is accepted as the SDK accepts it, and warned about by name (sdk.py).
    scale = {"type": ["string", "null"],
             "description": "the SDK's scale, a required argument: linear, log, reverse_log, unspecified or null"}
    values = {"type": "array", "minItems": 1, "maxItems": limits()["hyperparameters"]["max_discrete_values"]}
    # _ParameterSpec.__init__: every class takes conditional_parameter_spec (child id -> its hpt class) and,
    # as a child, parent_values (the parent's values it is searched on).
    conditional = {
        "conditional_parameter_spec": {
            "type": "object", "minProperties": 1, "propertyNames": {"pattern": "^\\S+$"},
            "additionalProperties": {"$ref": "#/$defs/vertexTuningSdkParam"},
            "description": "conditional parameter id -> its hpt class, with parent_values"},
        "parent_values": {"type": "array", "minItems": 1, "items": {"type": ["number", "string"]},
                          "description": "as a conditional parameter: the parent's values it is searched on"}}
    classes = {
        "DoubleParameterSpec": obj({"min": number, "max": number, "scale": scale, **conditional},
                                   required=("min", "max", "scale"), description="hpt.DoubleParameterSpec(min, max, scale)"),
        "IntegerParameterSpec": obj({"min": {"type": "integer"}, "max": {"type": "integer"}, "scale": scale,
                                     **conditional},
                                    required=("min", "max", "scale"), description="hpt.IntegerParameterSpec(min, max, scale)"),
        "CategoricalParameterSpec": obj({"values": {**values, "items": {"type": "string"}}, **conditional},
                                        required=("values",), description="hpt.CategoricalParameterSpec(values)"),
        "DiscreteParameterSpec": obj({"values": {**values, "items": number}, "scale": scale, **conditional},
                                     required=("values", "scale"), description="hpt.DiscreteParameterSpec(values, scale)"),
    }
    return {"type": "object", "minProperties": 1, "maxProperties": 1,
            "properties": {**classes, **{f"hpt.{name}": schema for name, schema in classes.items()}},
            "additionalProperties": False,
            "description": "one hpt class by name (DoubleParameterSpec, IntegerParameterSpec, "
            "CategoricalParameterSpec, DiscreteParameterSpec) with its keyword arguments"}


def _sdk_custom_job() -> Schema:
    """aiplatform.CustomJob's arguments as custom_job: the trial's CustomJobSpec, and the constructor's staging_bucket
    (the trials' output prefix under it, as the SDK writes it) and display_name (required by the SDK, not sent)."""
    spec = _trial_spec(snake_case=True)
    job = vertex_defs()["vertexSpecSnake"]["properties"]
    spec["properties"] = {**spec["properties"], "staging_bucket": job["staging_bucket"], "display_name": job["display_name"]}
    spec["description"] = "the aiplatform.CustomJob's arguments (worker_pool_specs, base_output_dir, staging_bucket ...)"
    return spec


def _sdk() -> Schema:
    """aiplatform.HyperparameterTuningJob's arguments (formats/vertex_tuning/sdk.py)."""
    param = {"$ref": "#/$defs/vertexTuningSdkParam"}
    count = {"type": "integer", "minimum": 1}
    return obj(
        {"region": {"$ref": "#/$defs/region"},
         "display_name": string("the tuning job's display name", maxLength=128),
         "custom_job": _sdk_custom_job(),
         "metric_spec": {"type": "object", "minProperties": 1, "propertyNames": {"$ref": "#/$defs/metricId"},
                         "additionalProperties": {"enum": ["maximize", "minimize"]},
                         "description": "metric id -> maximize or minimize"},
         "parameter_spec": {"type": "object", "minProperties": 1, "propertyNames": {"pattern": "^\\S+$"},
                            "additionalProperties": param, "description": "parameter id -> its hpt class"},
         "max_trial_count": count, "parallel_trial_count": count,
         "max_failed_trial_count": {"type": "integer", "minimum": 0},
         "search_algorithm": {"enum": [None, "grid", "random"],
                              "description": "null (Bayesian optimisation), grid or random"},
         "measurement_selection": {"enum": ["best", "last"]},
         "labels": {"$ref": "#/$defs/labels"},
         "encryption_spec_key_name": string("the customer-managed key: projects/P/locations/R/keyRings/K/"
                                            "cryptoKeys/KEY"),
         "desired_state": {"$ref": "#/$defs/desiredState"}},
        required=("region", "custom_job", "metric_spec", "parameter_spec"),
        description="the arguments of the Vertex AI SDK's aiplatform.HyperparameterTuningJob (custom_job, "
        "metric_spec, parameter_spec, max_trial_count ...) with region beside it",
    )


def defs() -> dict[str, Schema]:
    from provider.spec.schema import common_defs  # the document schema imports this module: no cycle at import

    camel = {"vertexTuningJob": _job(), "vertexStudy": _study(), "vertexParam": _param(),
             "vertexTrialSpec": _trial_spec()}
    twins = {**camel, "studyTime": common_defs()["studyTime"]}
    snake_defs = {f"{name}Snake": _snake_tree(twins[name]) for name in _TWINS}
    snake_defs["vertexTuningJobSnake"]["description"] = (
        "a Vertex AI HyperparameterTuningJob as the Python SDK's low-level client takes it (snake_case: "
        "study_spec, trial_job_spec, max_trial_count ...) with region beside it")
    return {**camel, **snake_defs, "vertexTrialSpecSnake": _trial_spec(snake_case=True), "vertexTuningSdk": _sdk(),
            "vertexTuningSdkParam": _sdk_param()}
