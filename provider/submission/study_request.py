"""Hyperparameters -> the ``studySpec`` of a HyperparameterTuningJob request (REST JSON).

Part of the exact request (``request.py``): camelCase keys, int64 values as decimal strings,
only what the model sets (Vertex AI's defaults stay unset, as the SDK leaves them).
"""

from __future__ import annotations

from provider.core.vertex_request import Json
from provider.spec.model import (
    HyperParam,
    Hyperparameters,
    ParamType,
    Safety,
    StudyStopping,
    TimeConstraint,
    TrialStopping,
)
from provider.spec.reader import format_duration

# The condition on a parent's value, by the parent's type (ConditionalParameterSpec's oneof).
_PARENT_CONDITION = {
    ParamType.INTEGER: "parentIntValues",
    ParamType.DISCRETE: "parentDiscreteValues",
    ParamType.CATEGORICAL: "parentCategoricalValues",
}


def _int64(value: float | None) -> str:
    return str(int(value or 0))


def _typed(p: HyperParam, value: str | float) -> str | float:
    """A value of ``p`` as its value spec writes it (int64 as a string, doubles as numbers)."""
    if p.type is ParamType.INTEGER:
        return _int64(float(value))
    if p.type is ParamType.CATEGORICAL:
        return str(value)
    return float(value)


def parameter(p: HyperParam) -> Json:
    """One ParameterSpec, with its conditional children."""
    out: Json = {"parameterId": p.name}
    if p.type is ParamType.DOUBLE:
        spec: Json = {"minValue": p.min, "maxValue": p.max}
        key = "doubleValueSpec"
    elif p.type is ParamType.INTEGER:
        spec = {"minValue": _int64(p.min), "maxValue": _int64(p.max)}
        key = "integerValueSpec"
    elif p.type is ParamType.CATEGORICAL:
        spec = {"values": [str(v) for v in p.values]}
        key = "categoricalValueSpec"
    else:
        spec = {"values": [float(v) for v in p.values]}
        key = "discreteValueSpec"
    if p.default is not None:
        spec["defaultValue"] = _typed(p, p.default)
    out[key] = spec
    if p.scale and p.scale != "NONE":
        out["scaleType"] = p.scale
    if p.conditions and p.type in _PARENT_CONDITION:  # a DOUBLE parent has none (an error says so)
        out["conditionalParameterSpecs"] = [
            {_PARENT_CONDITION[p.type]: {"values": [_typed(p, v) for v in c.parent_values]},
             "parameterSpec": parameter(c.param)}
            for c in p.conditions
        ]
    return out


def _safety(safety: Safety | None) -> Json | None:
    if safety is None:
        return None
    out: Json = {}
    if safety.threshold is not None:
        out["safetyThreshold"] = safety.threshold
    if safety.min_safe_trials_fraction is not None:
        out["desiredMinSafeTrialsFraction"] = safety.min_safe_trials_fraction
    return out


def _trial_stopping(s: TrialStopping) -> Json:
    values: Json = {
        "maxStepCount": None if s.max_step_count is None else str(s.max_step_count),
        "minStepCount": None if s.min_step_count is None else str(s.min_step_count),
        "minMeasurementCount": None if s.min_measurement_count is None else str(s.min_measurement_count),
        "learningRateParameterName": s.learning_rate_parameter_name,
        "useElapsedDuration": s.use_elapsed_duration,
        "updateAllStoppedTrials": s.update_all_stopped_trials,
    }
    return {k: v for k, v in values.items() if v is not None}  # an explicit false as written


def _time(c: TimeConstraint | None) -> Json | None:
    if c is None:
        return None
    if c.max_duration_seconds is not None:
        return {"maxDuration": format_duration(c.max_duration_seconds)}
    return {"endTime": c.end_time}


def _study_stopping(s: StudyStopping) -> Json:
    values: Json = {
        "shouldStopAsap": s.should_stop_asap,
        "minimumRuntimeConstraint": _time(s.minimum_runtime),
        "maximumRuntimeConstraint": _time(s.maximum_runtime),
        "minNumTrials": s.min_num_trials,
        "maxNumTrials": s.max_num_trials,
        "maxNumTrialsNoProgress": s.max_num_trials_no_progress,
        "maxDurationNoProgress": None if s.max_duration_no_progress_seconds is None
        else format_duration(s.max_duration_no_progress_seconds),
    }
    return {k: v for k, v in values.items() if v is not None}


def study_spec(hp: Hyperparameters) -> Json:
    """The StudySpec of ``hp``: metrics, parameters, algorithm and the study's options."""
    metrics = []
    for m in hp.metrics:
        metric: Json = {"metricId": m.id, "goal": m.goal}
        safety = _safety(m.safety)
        if safety is not None:
            metric["safetyConfig"] = safety
        metrics.append(metric)
    study: Json = {"metrics": metrics, "parameters": [parameter(p) for p in hp.params]}
    if hp.algorithm is not None:  # ALGORITHM_UNSPECIFIED too, when written: gcloud sends it
        study["algorithm"] = hp.algorithm
    if hp.observation_noise:
        study["observationNoise"] = hp.observation_noise
    if hp.measurement_selection:
        study["measurementSelectionType"] = hp.measurement_selection
    if hp.trial_stopping is not None:
        study[hp.trial_stopping.kind.value] = _trial_stopping(hp.trial_stopping)
    if hp.study_stopping is not None:
        study["studyStoppingConfig"] = _study_stopping(hp.study_stopping)
    return study
