"""Vertex AI's ``studySpec`` (REST camelCase) -> the model's Hyperparameters.

Every field of google.cloud.aiplatform.v1.StudySpec: the metrics (the first is the one trials
are ranked by locally), the parameters with their value specs, defaults, scales and
conditional children, the algorithm, observation noise, measurement selection, one of the
three automated stopping specs and the study stopping config. A ``*_UNSPECIFIED`` value means
the service's default; it is kept as written, so the request sends it as gcloud does. int64 values may be numbers or decimal
strings (the REST API's JSON writes them as strings). Every reader takes ``k``, which names a
camelCase field as the body writes it: itself in REST, snake_case in the dicts of the Python
SDK's low-level client (``study_spec``, ``parameter_id``; provider.spec.formats.vertex.keys).
"""

from __future__ import annotations

from provider.spec.formats.study_fields import KeyName, bound, number, study_stopping, trial_count, trial_stopping
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
INT_SOURCE = ("google/cloud/aiplatform_v1/types/study.py IntegerValueSpec (int64); gcloud: apitools "
              "protojson.py (a float for an integer field is a ScalarTypeMismatchError)")
COUNTS_SOURCE = ("gcloud: api_lib/ai/hp_tuning_jobs/client.py HpTuningJobsClient.Create (a count of 0 is not given: 1), "
                 "apitools protojson.py ProtoJson.decode_field (a string count is int() of it)")


def _values(node: Node, ptype: ParamType) -> tuple[str | float, ...]:
    raw = node.raw("values")  # the same word in both spellings
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ConversionError("values is not a list")
    if ptype is ParamType.CATEGORICAL:
        if not all(isinstance(v, str) for v in raw):
            raise ConversionError("categorical values are not strings")
        return tuple(raw)
    return tuple(number(v, "a value") for v in raw)


def _same(name: str) -> str:
    return name


def _condition_kind(parent: ParamType, key: str, at: DocPath, notes: list[Note], k: KeyName) -> None:
    """The condition must be the one of the parent's type (the request writes the one of the parent's type)."""
    expected = CONDITION_OF.get(parent)
    if key != expected:
        notes.append(Note(
            f"{k(key)} conditions a {parent.value} parent", at, "vx.hpt.condition", SOURCE,
            allowed=f"{k(expected)} for a {parent.value} parent" if expected else
            f"conditional parameters under INTEGER ({k('parentIntValues')}), DISCRETE ({k('parentDiscreteValues')}) "
            f"or CATEGORICAL ({k('parentCategoricalValues')}) parents only", error=True))


def _whole(node: Node, keys: tuple[str, ...], notes: list[Note]) -> None:
    """An int64 bound written with a decimal point (``minValue: 1.0``) is refused, as gcloud's config reader
    refuses it ("Expected type int for field minValue, found 1.0") and as ``replicaCount: 2.0`` is (reader.py)."""
    for key in keys:
        raw = node.raw(key)
        for i, value in enumerate(raw) if isinstance(raw, list) else [(None, raw)]:
            if isinstance(value, float):
                what, at = (key, node.at(key)) if i is None else (f"{key}[{i}]", node.at(key) + (i,))
                notes.append(Note(f"{what} is {value!r}, not an integer", at, "type.integer", INT_SOURCE,
                                  allowed=f"an integer, such as {int(value)} (no decimal point)"
                                  if value.is_integer() else "an integer (no decimal point)", error=True))


def _conditions(p: Node, ptype: ParamType, notes: list[Note], k: KeyName) -> tuple[ParamCondition, ...]:
    """A parameter's conditional children, each with the parent values it is searched under."""
    conditions = []
    for c in p.items(k("conditionalParameterSpecs")):
        parents = [key for key in PARENT_CONDITIONS if k(key) in c]
        if len(parents) != 1:
            raise ConversionError("a conditional parameter needs exactly one parent condition")
        child = c.child(k("parameterSpec"))
        if child is None:
            raise ConversionError(f"{k('parameterSpec')} is missing")
        where = c.at(k(parents[0]))
        values = c.child(k(parents[0])) or Node({}, where)
        _condition_kind(ptype, parents[0], where, notes, k)
        if parents[0] == "parentIntValues":
            _whole(values, ("values",), notes)
        conditions.append(ParamCondition(
            parent_values=_values(values, ParamType.CATEGORICAL if parents[0] == "parentCategoricalValues"
                                  else ParamType.DISCRETE),
            param=parameter(child, notes, k), at={"": c.path, "parent_values": where, "parent": where}))
    return tuple(conditions)


def parameter(p: Node, notes: list[Note], k: KeyName = _same) -> HyperParam:
    """One ParameterSpec and its conditional children."""
    kinds = [key for key in VALUE_SPECS if k(key) in p]
    if len(kinds) != 1:
        raise ConversionError("a parameter needs exactly one value spec")
    ptype, spec = VALUE_SPECS[kinds[0]], p.child(k(kinds[0])) or Node({}, p.at(k(kinds[0])))
    low, high, default = spec.raw(k("minValue")), spec.raw(k("maxValue")), spec.raw(k("defaultValue"))
    if ptype is ParamType.INTEGER:
        _whole(spec, (k("minValue"), k("maxValue"), k("defaultValue")), notes)
    if ptype in (ParamType.DOUBLE, ParamType.INTEGER):  # proto3 JSON leaves out a bound of 0: the service reads 0
        low, high = 0 if low is None else low, 0 if high is None else high
    conditions = _conditions(p, ptype, notes, k)
    return HyperParam(
        name=p.req_str(k("parameterId")),
        type=ptype,
        min=None if low is None else bound(low, k("minValue"), ptype is ParamType.INTEGER),
        max=None if high is None else bound(high, k("maxValue"), ptype is ParamType.INTEGER),
        values=_values(spec, ptype),
        scale=p.text(k("scaleType")),
        default=None if default is None else default if ptype is ParamType.CATEGORICAL else number(default, k("defaultValue")),
        conditions=tuple(conditions),
        at={"": p.path, "name": p.at(k("parameterId")), "min": spec.at(k("minValue")), "max": spec.at(k("maxValue")),
            "values": spec.at("values"), "scale": p.at(k("scaleType")), "default": spec.at(k("defaultValue")),
            "conditions": p.at(k("conditionalParameterSpecs"))},
    )


def _safety(node: Node | None, k: KeyName) -> Safety | None:
    if node is None:
        return None
    return Safety(threshold=node.number(k("safetyThreshold")),
                  min_safe_trials_fraction=node.number(k("desiredMinSafeTrialsFraction")))


def _metric(m: Node, k: KeyName) -> Metric:
    return Metric(id=m.req_str(k("metricId")), goal=m.req_str("goal"), safety=_safety(m.child(k("safetyConfig")), k),
                  at={"": m.path, "id": m.at(k("metricId")), "safety": m.at(k("safetyConfig"))})


def _trial_stopping(study: Node, notes: list[Note], k: KeyName) -> TrialStopping | None:
    kinds = [kind for kind in StoppingKind if k(kind.value) in study]
    if not kinds:
        return None
    if len(kinds) > 1:
        names = " and ".join(k(kind.value) for kind in kinds)
        notes.append(Note(f"{names} are alternatives (StudySpec's automatedStoppingSpec is one of them)", study.path,
                          "vx.hpt.stopping", "google/cloud/aiplatform_v1/types/study.py StudySpec (oneof "
                          "automated_stopping_spec)", allowed="one of {}, {} or {}".format(
                              *(k(kind.value) for kind in StoppingKind)), error=True))
    node = study.child(k(kinds[0].value)) or Node({}, study.at(k(kinds[0].value)))
    return trial_stopping(node, kinds[0], k)


def _count(job: Node, key: str, notes: list[Note]) -> int:
    return trial_count(job, key, notes, "gcloud reads a count of 0 as not given", COUNTS_SOURCE)


def hyperparameters(job: Node, notes: list[Note], k: KeyName = _same) -> Hyperparameters:
    """A HyperparameterTuningJob's studySpec and trial counts (format rules broken go to ``notes``)."""
    study = job.child(k("studySpec"))
    if study is None:
        raise ConversionError(f"{k('studySpec')} is missing")
    metrics = [_metric(m, k) for m in study.items("metrics")]
    if not metrics:
        raise ConversionError(f"{k('studySpec')}.metrics is empty")
    first = metrics[0]
    return Hyperparameters(
        goal=first.goal,
        metric=first.id,
        params=tuple(parameter(p, notes, k) for p in study.items("parameters")),
        max_trials=_count(job, k("maxTrialCount"), notes),
        max_parallel_trials=_count(job, k("parallelTrialCount"), notes),
        max_failed_trials=job.integer(k("maxFailedTrialCount")),
        algorithm=study.text("algorithm"),
        safety=first.safety,
        other_metrics=tuple(metrics[1:]),
        measurement_selection=study.text(k("measurementSelectionType")),
        observation_noise=study.text(k("observationNoise")),
        trial_stopping=_trial_stopping(study, notes, k),
        study_stopping=study_stopping(study.child(k("studyStoppingConfig")), k("minimumRuntimeConstraint"),
                                      k("maximumRuntimeConstraint"), k),
        at={
            "": study.path,
            "params": study.at("parameters"),
            "max_trials": job.at(k("maxTrialCount")),
            "max_parallel_trials": job.at(k("parallelTrialCount")),
            "max_failed_trials": job.at(k("maxFailedTrialCount")),
            "algorithm": study.at("algorithm"),
            "metric": first.at.get("id", study.at("metrics")),
            "goal": study.at("metrics"),
            "other_metrics": study.at("metrics"),
            "measurement_selection": study.at(k("measurementSelectionType")),
            "observation_noise": study.at(k("observationNoise")),
            "trial_stopping": next((study.at(k(kind.value)) for kind in StoppingKind if k(kind.value) in study),
                                   study.path),
            "safety": first.at.get("safety", study.at("metrics")),
            "study_stopping": study.at(k("studyStoppingConfig")),
        },
    )
