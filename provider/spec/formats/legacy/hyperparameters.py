"""AI Platform's ``trainingInput.hyperparameters`` (a HyperparameterSpec, seed 002) -> the model.

Parameters are ``parameterName`` with ``minValue``/``maxValue`` or ``categoricalValues`` /
``discreteValues``; the metric is ``hyperparameterMetricTag`` (AI Platform's default tag when
unset); ``GOAL_TYPE_UNSPECIFIED`` is read as MAXIMIZE, as the service did.
"""

from __future__ import annotations

from provider.spec.formats.study_fields import number, trial_count
from provider.spec.model import HyperParam, Hyperparameters, Note, ParamType
from provider.spec.reader import ConversionError, Node

DEFAULT_METRIC_TAG = "training/hptuning/metric"


def _discrete(p: Node) -> tuple[float, ...]:
    raw = p.raw("discreteValues") or []
    if not isinstance(raw, list):
        raise ConversionError("discreteValues must be numbers")
    return tuple(number(v, "a discrete value") for v in raw)


def _bound(p: Node, key: str) -> float | None:
    value = p.raw(key)
    return None if value is None else number(value, key)


def _values(p: Node, ptype: ParamType) -> tuple[str | float, ...]:
    if ptype is ParamType.CATEGORICAL:
        return p.strs("categoricalValues") or ()
    if ptype is ParamType.DISCRETE:
        return _discrete(p)
    return ()


def _param(p: Node) -> HyperParam:
    type_name = p.req_str("type")
    if type_name not in ParamType.__members__:
        raise ConversionError(f"unknown parameter type {type_name}")
    ptype = ParamType(type_name)
    return HyperParam(
        name=p.req_str("parameterName"),
        type=ptype,
        min=_bound(p, "minValue"),
        max=_bound(p, "maxValue"),
        values=_values(p, ptype),
        scale=p.text("scaleType"),
        at={"": p.path, "name": p.at("parameterName"), "min": p.at("minValue"), "max": p.at("maxValue"),
            "values": p.at("discreteValues" if ptype is ParamType.DISCRETE else "categoricalValues"),
            "scale": p.at("scaleType")},
    )


# ml v1 HyperparameterSpec: "maxTrials ... Defaults to one", "maxParallelTrials ... Defaults to one"; gcloud
# sends a config's "0" (or 0) as 0, which proto3 reads as unset.
COUNTS_SOURCE = ("tools/catalog/reference/job_rules.json (ai_platform hyperparameters: maxTrials and maxParallelTrials "
                 "default to one); apitools protojson.py ProtoJson.decode_field (a string count is int() of it)")
_UNSET = "AI Platform reads a count of 0 as not given (its default, one)"


def hyperparameters(node: Node | None, notes: list[Note]) -> Hyperparameters | None:
    """The tuning spec, or None when the job does not tune."""
    if node is None:
        return None
    params = tuple(_param(p) for p in node.items("params"))
    goal = node.text("goal") or "MAXIMIZE"
    return Hyperparameters(
        goal="MAXIMIZE" if goal == "GOAL_TYPE_UNSPECIFIED" else goal,
        metric=node.text("hyperparameterMetricTag") or DEFAULT_METRIC_TAG,
        params=params,
        max_trials=trial_count(node, "maxTrials", notes, _UNSET, COUNTS_SOURCE),
        max_parallel_trials=trial_count(node, "maxParallelTrials", notes, _UNSET, COUNTS_SOURCE),
        max_failed_trials=node.integer("maxFailedTrials"),
        algorithm=node.text("algorithm"),
        at={"": node.path, "params": node.at("params"), "max_trials": node.at("maxTrials"),
            "max_parallel_trials": node.at("maxParallelTrials"), "max_failed_trials": node.at("maxFailedTrials"),
            "algorithm": node.at("algorithm"), "metric": node.at("hyperparameterMetricTag")},
    )
