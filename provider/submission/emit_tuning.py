"""Hyperparameters -> the native ``spec.hyperparameters`` block (what ``trainjobs convert`` prints).

The inverse of ``provider/spec/formats/native/tuning.py``: every part of Vertex AI's StudySpec
that the model holds is written, so a converted tuning job builds the same request.
"""

from __future__ import annotations

from typing import Any

from provider.spec.model import HyperParam, Hyperparameters, ParamType, Safety, StudyStopping, TimeConstraint
from provider.spec.reader import format_duration

Json = dict[str, Any]

_STOPPING_TYPE = {"decayCurveStoppingSpec": "DECAY_CURVE", "medianAutomatedStoppingSpec": "MEDIAN",
                  "convexAutomatedStoppingSpec": "CONVEX"}


def _number(p: HyperParam, value: float | str) -> float | int | str:
    if isinstance(value, str):
        return value
    return int(value) if p.type is ParamType.INTEGER or (p.type is ParamType.DISCRETE and value.is_integer()) \
        else value


def _bound(p: HyperParam, value: float) -> float | int | str:
    """An INTEGER parameter's bound as a whole number; past 18 digits (a plain YAML number the reader refuses) the
    int64 as REST writes it, a string of digits."""
    if p.type is not ParamType.INTEGER:
        return value
    whole = int(value)
    return whole if abs(whole) < 10**18 else str(whole)


def _param(p: HyperParam) -> Json:
    param: Json = {"name": p.name, "type": p.type.value}
    if p.min is not None:
        param["min"] = _bound(p, p.min)
    if p.max is not None:
        param["max"] = _bound(p, p.max)
    if p.values:
        param["values"] = [_number(p, v) for v in p.values]
    if p.scale and p.scale != "NONE":
        param["scale"] = p.scale
    if p.default is not None:
        param["default"] = _number(p, p.default)
    if p.conditions:
        param["conditionalParams"] = [{"parentValues": [_number(p, v) for v in c.parent_values],
                                       "param": _param(c.param)} for c in p.conditions]
    return param


def _safety(s: Safety) -> Json:
    out: Json = {}
    if s.threshold is not None:
        out["threshold"] = s.threshold
    if s.min_safe_trials_fraction is not None:
        out["minSafeTrialsFraction"] = s.min_safe_trials_fraction
    return out


def _time(c: TimeConstraint) -> Json:
    if c.max_duration_seconds is not None:
        return {"maxDuration": format_duration(c.max_duration_seconds)}
    return {"endTime": c.end_time}


def _study_stopping(s: StudyStopping) -> Json:
    values: Json = {
        "shouldStopAsap": s.should_stop_asap,
        "minimumRuntime": _time(s.minimum_runtime) if s.minimum_runtime else None,
        "maximumRuntime": _time(s.maximum_runtime) if s.maximum_runtime else None,
        "minNumTrials": s.min_num_trials,
        "maxNumTrials": s.max_num_trials,
        "maxNumTrialsNoProgress": s.max_num_trials_no_progress,
        "maxDurationNoProgress": None if s.max_duration_no_progress_seconds is None
        else format_duration(s.max_duration_no_progress_seconds),
    }
    return {k: v for k, v in values.items() if v is not None}


def _options(hp: Hyperparameters, out: Json) -> Json:
    if hp.safety is not None:
        out["safety"] = _safety(hp.safety)
    if hp.other_metrics:
        out["otherMetrics"] = [{"metric": m.id, "goal": m.goal, **({"safety": _safety(m.safety)} if m.safety else {})}
                               for m in hp.other_metrics]
    if hp.measurement_selection:
        out["measurementSelection"] = hp.measurement_selection
    if hp.observation_noise:
        out["observationNoise"] = hp.observation_noise
    s = hp.trial_stopping
    if s is not None:
        stop: Json = {"type": _STOPPING_TYPE[s.kind.value], "useElapsedDuration": s.use_elapsed_duration,
                      "maxStepCount": s.max_step_count, "minStepCount": s.min_step_count,
                      "minMeasurementCount": s.min_measurement_count,
                      "learningRateParameterName": s.learning_rate_parameter_name,
                      "updateAllStoppedTrials": s.update_all_stopped_trials}
        out["stopping"] = {k: v for k, v in stop.items() if v is not None}
    if hp.study_stopping is not None:
        out["studyStopping"] = _study_stopping(hp.study_stopping)
    return out


def tuning(hp: Hyperparameters) -> Json:
    out: Json = {"goal": hp.goal, "metric": hp.metric, "params": [_param(p) for p in hp.params],
                 "maxTrials": hp.max_trials, "maxParallelTrials": hp.max_parallel_trials}
    if hp.max_failed_trials is not None:
        out["maxFailedTrials"] = hp.max_failed_trials
    if hp.algorithm is not None:
        out["algorithm"] = hp.algorithm
    return _options(hp, out)
