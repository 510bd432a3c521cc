"""Vertex AI's ``studySpec`` (REST camelCase) -> the model's Hyperparameters.

Every field of google.cloud.aiplatform.v1.StudySpec: the metrics (the first is the one trials
are ranked by locally), the parameters with their value specs, defaults, scales and
conditional children, the algorithm, observation noise, measurement selection, one of the
three automated stopping specs and the study stopping config. The ``*_UNSPECIFIED`` values
mean the service's default and are read as unset. int64 values may be numbers or decimal
strings (the REST API's JSON writes them as strings).
"""

from __future__ import annotations

from provider.spec.formats.study_fields import study_stopping, trial_stopping
from provider.spec.model import (
    DocPath,
    HyperParam,
    Hyperparameters,
    Metric,
    Note,
    ParamCondition,
    ParamType,
    Safety,
    StoppingKind,
    TrialStopping,
)
from provider.spec.reader import ConversionError, Node

VALUE_SPECS = {"doubleValueSpec": ParamType.DOUBLE, "integerValueSpec": ParamType.INTEGER,
               "categoricalValueSpec": ParamType.CATEGORICAL, "discreteValueSpec": ParamType.DISCRETE}
PARENT_CONDITIONS = ("parentIntValues", "parentDiscreteValues", "parentCategoricalValues")
CONDITION_OF = {ParamType.INTEGER: "parentIntValues", ParamType.DISCRETE: "parentDiscreteValues",
                ParamType.CATEGORICAL: "parentCategoricalValues"}
SOURCE = "google/cloud/aiplatform_v1/types/study.py StudySpec.ParameterSpec.ConditionalParameterSpec"


def _unspecified(value: str | None) -> str | None:
    return None if value is None or value.endswith("_UNSPECIFIED") else value


def _number(value: object, what: str) -> float:
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise ConversionError(f"{what} is not a number") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConversionError(f"{what} is not a number")
    return float(value)


def _values(node: Node, ptype: ParamType) -> tuple[str | float, ...]:
    raw = node.raw("values")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ConversionError("values is not a list")
    if ptype is ParamType.CATEGORICAL:
        if not all(isinstance(v, str) for v in raw):
            raise ConversionError("categorical values are not strings")
        return tuple(raw)
    return tuple(_number(v, "a value") for v in raw)


def _condition_kind(parent: ParamType, key: str, at: DocPath, notes: list[Note]) -> None:
    """The condition must be the one of the parent's type (the request writes the one of the parent's type)."""
    expected = CONDITION_OF.get(parent)
    if key != expected:
        notes.append(Note(
            f"{key} conditions a {parent.value} parent", at, "vx.hpt.condition", SOURCE,
            allowed=f"{expected} for a {parent.value} parent" if expected else
            "conditional parameters under INTEGER (parentIntValues), DISCRETE (parentDiscreteValues) or "
            "CATEGORICAL (parentCategoricalValues) parents only", error=True))


def parameter(p: Node, notes: list[Note]) -> HyperParam:
    """One ParameterSpec and its conditional children."""
    kinds = [key for key in VALUE_SPECS if key in p]
    if len(kinds) != 1:
        raise ConversionError("a parameter needs exactly one value spec")
    ptype, spec = VALUE_SPECS[kinds[0]], p.child(kinds[0]) or Node({}, p.at(kinds[0]))
    low, high, default = spec.raw("minValue"), spec.raw("maxValue"), spec.raw("defaultValue")
    conditions = []
    for c in p.items("conditionalParameterSpecs"):
        parents = [key for key in PARENT_CONDITIONS if key in c]
        if len(parents) != 1:
            raise ConversionError("a conditional parameter needs exactly one parent condition")
        child = c.child("parameterSpec")
        if child is None:
            raise ConversionError("parameterSpec is missing")
        values = (c.child(parents[0]) or Node({}, c.at(parents[0])))
        _condition_kind(ptype, parents[0], c.at(parents[0]), notes)
        conditions.append(ParamCondition(
            parent_values=_values(values, ParamType.CATEGORICAL if parents[0] == "parentCategoricalValues"
                                  else ParamType.DISCRETE),
            param=parameter(child, notes), at={"": c.path, "parent_values": c.at(parents[0]), "parent": c.at(parents[0])}))
    return HyperParam(
        name=p.req_str("parameterId"),
        type=ptype,
        min=None if low is None else _number(low, "minValue"),
        max=None if high is None else _number(high, "maxValue"),
        values=_values(spec, ptype),
        scale=_unspecified(p.text("scaleType")),
        default=None if default is None else default if ptype is ParamType.CATEGORICAL else _number(default, "defaultValue"),
        conditions=tuple(conditions),
        at={"": p.path, "name": p.at("parameterId"), "min": spec.at("minValue"), "max": spec.at("maxValue"),
            "values": spec.at("values"), "scale": p.at("scaleType"), "default": spec.at("defaultValue"),
            "conditions": p.at("conditionalParameterSpecs")},
    )


def _safety(node: Node | None) -> Safety | None:
    if node is None:
        return None
    return Safety(threshold=node.number("safetyThreshold"),
                  min_safe_trials_fraction=node.number("desiredMinSafeTrialsFraction"))


def _metric(m: Node) -> Metric:
    return Metric(id=m.req_str("metricId"), goal=m.req_str("goal"), safety=_safety(m.child("safetyConfig")),
                  at={"": m.path, "id": m.at("metricId"), "safety": m.at("safetyConfig")})


def _trial_stopping(study: Node, notes: list[Note]) -> TrialStopping | None:
    kinds = [kind for kind in StoppingKind if kind.value in study]
    if not kinds:
        return None
    if len(kinds) > 1:
        names = " and ".join(k.value for k in kinds)
        notes.append(Note(f"{names} are alternatives (StudySpec's automatedStoppingSpec is one of them)", study.path,
                          "vx.hpt.stopping", "google/cloud/aiplatform_v1/types/study.py StudySpec (oneof "
                          "automated_stopping_spec)", allowed="one of decayCurveStoppingSpec, "
                          "medianAutomatedStoppingSpec or convexAutomatedStoppingSpec", error=True))
    node = study.child(kinds[0].value) or Node({}, study.at(kinds[0].value))
    return trial_stopping(node, kinds[0])


def hyperparameters(job: Node, notes: list[Note]) -> Hyperparameters:
    """A HyperparameterTuningJob's studySpec and trial counts (format rules broken go to ``notes``)."""
    study = job.child("studySpec")
    if study is None:
        raise ConversionError("studySpec is missing")
    metrics = [_metric(m) for m in study.items("metrics")]
    if not metrics:
        raise ConversionError("studySpec.metrics is empty")
    first = metrics[0]
    return Hyperparameters(
        goal=first.goal,
        metric=first.id,
        params=tuple(parameter(p, notes) for p in study.items("parameters")),
        max_trials=job.integer("maxTrialCount", 1) or 0,
        max_parallel_trials=job.integer("parallelTrialCount", 1) or 0,
        max_failed_trials=job.integer("maxFailedTrialCount", 0) or 0,
        algorithm=study.text("algorithm") or "ALGORITHM_UNSPECIFIED",
        safety=first.safety,
        other_metrics=tuple(metrics[1:]),
        measurement_selection=_unspecified(study.text("measurementSelectionType")),
        observation_noise=_unspecified(study.text("observationNoise")),
        trial_stopping=_trial_stopping(study, notes),
        study_stopping=study_stopping(study.child("studyStoppingConfig"), "minimumRuntimeConstraint",
                                      "maximumRuntimeConstraint"),
        at={
            "": study.path,
            "params": study.at("parameters"),
            "max_trials": job.at("maxTrialCount"),
            "max_parallel_trials": job.at("parallelTrialCount"),
            "max_failed_trials": job.at("maxFailedTrialCount"),
            "algorithm": study.at("algorithm"),
            "metric": first.at.get("id", study.at("metrics")),
            "goal": study.at("metrics"),
            "other_metrics": study.at("metrics"),
            "measurement_selection": study.at("measurementSelectionType"),
            "observation_noise": study.at("observationNoise"),
            "trial_stopping": next((study.at(k.value) for k in StoppingKind if k.value in study), study.path),
            "safety": first.at.get("safety", study.at("metrics")),
            "study_stopping": study.at("studyStoppingConfig"),
        },
    )
