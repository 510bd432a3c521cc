"""The native ``spec.hyperparameters`` block -> the model's Hyperparameters (Vertex AI's whole StudySpec).

``goal`` and ``metric`` (the first metric), ``otherMetrics``, ``params`` (each with ``default``
and ``conditionalParams``), ``algorithm``, ``measurementSelection``, ``observationNoise``,
``stopping`` (one of Vertex AI's three automated stopping specs, by ``type``) and
``studyStopping``; the schema is ``schema_study.py``.
"""

from __future__ import annotations

from provider.spec.formats.study_fields import bound, study_stopping, trial_stopping
from provider.spec.model import (
    HyperParam,
    Hyperparameters,
    Metric,
    ParamCondition,
    ParamType,
    Safety,
    StoppingKind,
    TrialStopping,
)
from provider.spec.reader import ConversionError, Node

STOPPING_TYPES = {"DECAY_CURVE": StoppingKind.DECAY_CURVE, "MEDIAN": StoppingKind.MEDIAN,
                  "CONVEX": StoppingKind.CONVEX}


def _param_values(node: Node, key: str) -> tuple[str | float, ...]:
    raw = node.raw(key)
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ConversionError(f"{key} is not a list")
    out: list[str | float] = []
    for v in raw:
        if isinstance(v, bool) or not isinstance(v, (str, int, float)):
            raise ConversionError(f"{key} holds a non-scalar")
        out.append(v if isinstance(v, str) else float(v))
    return tuple(out)


def _default(p: Node) -> str | float | None:
    raw = p.raw("default")
    if raw is None or isinstance(raw, str):
        return raw
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise ConversionError("default is not a scalar")
    return float(raw)


def _bound(p: Node, key: str, type_name: str) -> float | None:
    """min or max: a number, or an INTEGER parameter's int64 written as a string of digits (past 18 digits, a
    plain YAML number is refused by the reader) kept exact."""
    raw = p.raw(key)
    return None if raw is None else bound(raw, key, type_name == ParamType.INTEGER.value)


def param(p: Node) -> HyperParam:
    type_name = p.req_str("type")
    if type_name not in ParamType.__members__:
        raise ConversionError(f"unknown parameter type {type_name}")
    conditions = tuple(
        ParamCondition(parent_values=_param_values(c, "parentValues"), param=param(c.child("param") or Node({}, c.at("param"))),
                       at={"": c.path, "parent_values": c.at("parentValues")})
        for c in p.items("conditionalParams"))
    return HyperParam(
        name=p.req_str("name"),
        type=ParamType(type_name),
        min=_bound(p, "min", type_name),
        max=_bound(p, "max", type_name),
        values=_param_values(p, "values"),
        scale=p.text("scale"),
        default=_default(p),
        conditions=conditions,
        at={"": p.path, "name": p.at("name"), "min": p.at("min"), "max": p.at("max"),
            "values": p.at("values"), "scale": p.at("scale"), "default": p.at("default"),
            "conditions": p.at("conditionalParams")},
    )


def safety(node: Node | None) -> Safety | None:
    if node is None:
        return None
    return Safety(threshold=node.number("threshold"), min_safe_trials_fraction=node.number("minSafeTrialsFraction"))


def _stopping(node: Node | None) -> TrialStopping | None:
    if node is None:
        return None
    kind = STOPPING_TYPES.get(node.req_str("type"))
    if kind is None:
        raise ConversionError("unknown stopping type")
    return trial_stopping(node, kind)


def hyperparameters(node: Node | None) -> Hyperparameters | None:
    if node is None:
        return None
    others = tuple(Metric(id=m.req_str("metric"), goal=m.text("goal") or "MAXIMIZE", safety=safety(m.child("safety")),
                          at={"": m.path, "id": m.at("metric"), "safety": m.at("safety")})
                   for m in node.items("otherMetrics"))
    return Hyperparameters(
        goal=node.text("goal") or "MAXIMIZE",
        metric=node.req_str("metric"),
        params=tuple(param(p) for p in node.items("params")),
        max_trials=node.integer("maxTrials", 1) or 0,
        max_parallel_trials=node.integer("maxParallelTrials", 1) or 0,
        max_failed_trials=node.integer("maxFailedTrials"),
        algorithm=node.text("algorithm"),
        safety=safety(node.child("safety")),
        other_metrics=others,
        measurement_selection=node.text("measurementSelection"),
        observation_noise=node.text("observationNoise"),
        trial_stopping=_stopping(node.child("stopping")),
        study_stopping=study_stopping(node.child("studyStopping"), "minimumRuntime", "maximumRuntime"),
        at={
            "": node.path,
            "params": node.at("params"),
            "max_trials": node.at("maxTrials"),
            "max_parallel_trials": node.at("maxParallelTrials"),
            "max_failed_trials": node.at("maxFailedTrials"),
            "algorithm": node.at("algorithm"),
            "metric": node.at("metric"),
            "goal": node.at("goal"),
            "other_metrics": node.at("otherMetrics"),
            "measurement_selection": node.at("measurementSelection"),
            "observation_noise": node.at("observationNoise"),
            "trial_stopping": node.at("stopping"),
            "study_stopping": node.at("studyStopping"),
            "safety": node.at("safety"),
        },
    )
