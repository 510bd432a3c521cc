"""The HyperparameterTuningJob format's JSON Schema fragment: ``vertexTuningJob``, ``vertexStudy``,
``vertexParam`` and ``vertexTrialSpec``.

The rules of Vertex AI's REST reference (HyperparameterTuningJob, StudySpec) that a schema can
hold: a metric id without whitespace, goals MAXIMIZE or MINIMIZE, exactly one value spec per
parameter, at most one automated stopping spec, one parent condition per conditional
parameter, positive trial counts. The trial job is the Vertex format's CustomJobSpec without
what trainjobs adds beside it (region, labels ...: those belong to the tuning job).
"""

from __future__ import annotations

from provider.spec.formats.schema_kit import Schema, int64, limits, obj, string
from provider.spec.formats.vertex.field_table import OUTPUT_ONLY
from provider.spec.formats.vertex.schema import defs as vertex_defs
from provider.spec.model import StoppingKind

# What the Vertex format's body takes beside a CustomJobSpec's own fields.
_NOT_IN_TRIAL = ("region", "displayName", "labels", "stagingBucket", "desiredState", "kmsKey")


def _one_of(keys: list[str], what: str) -> Schema:
    return {"oneOf": [{"required": [k], "description": f"exactly one of {', '.join(keys)} ({what})"} for k in keys]}


def _trial_spec() -> Schema:
    spec: Schema = dict(vertex_defs()["vertexSpec"])
    spec["properties"] = {k: v for k, v in spec["properties"].items() if k not in _NOT_IN_TRIAL}
    spec["required"] = ["workerPoolSpecs"]
    spec["description"] = "the CustomJobSpec every trial runs (workerPoolSpecs, scheduling, baseOutputDirectory ...)"
    return spec


def _param() -> Schema:
    hp = limits()["hyperparameters"]
    number = {"anyOf": [{"type": "number"}, {"type": "string", "pattern": "^-?[0-9.eE+-]+$"}]}
    whole = {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^-?[0-9]+$"}],
             "description": "a whole number (int64: a number, or a decimal string as the REST API writes it)"}
    values = {"type": "array", "minItems": 1, "maxItems": hp["max_discrete_values"]}
    conditions = ["parentIntValues", "parentDiscreteValues", "parentCategoricalValues"]
    value_specs = {
        "doubleValueSpec": obj({"minValue": number, "maxValue": number, "defaultValue": number},
                               required=("minValue", "maxValue"), description="minValue, maxValue, defaultValue"),
        "integerValueSpec": obj({"minValue": whole, "maxValue": whole, "defaultValue": whole},
                                required=("minValue", "maxValue"), description="minValue, maxValue, defaultValue"),
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
    counts = {"type": "integer", "minimum": 1}
    output_only = {key: {"description": f"output only ({why}): ignored with a warning"}
                   for key, why in OUTPUT_ONLY["HyperparameterTuningJob"].items()}
    return obj(
        {"region": {"$ref": "#/$defs/region"},
         "displayName": string("the tuning job's display name", maxLength=128),
         "studySpec": {"$ref": "#/$defs/vertexStudy"},
         "maxTrialCount": {"anyOf": [counts, {"type": "string", "pattern": "^[1-9][0-9]*$"}]},
         "parallelTrialCount": {"anyOf": [counts, {"type": "string", "pattern": "^[1-9][0-9]*$"}]},
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


def defs() -> dict[str, Schema]:
    return {"vertexTuningJob": _job(), "vertexStudy": _study(), "vertexParam": _param(),
            "vertexTrialSpec": _trial_spec()}
