"""``aiplatform.HyperparameterTuningJob``'s arguments as a spec body (the Python SDK's high-level form).

What a script passes::

    aiplatform.HyperparameterTuningJob(
        display_name="tune", custom_job=job,              # job = aiplatform.CustomJob(worker_pool_specs=...)
        metric_spec={"accuracy": "maximize"},
        parameter_spec={"lr": hpt.DoubleParameterSpec(min=1e-4, max=1e-1, scale="log"),
                        "units": hpt.IntegerParameterSpec(min=32, max=256, scale="linear"),
                        "opt": hpt.CategoricalParameterSpec(values=["adam", "sgd"]),
                        "batch": hpt.DiscreteParameterSpec(values=[16, 32, 64], scale="linear")},
        max_trial_count=20, parallel_trial_count=4, max_failed_trial_count=0,
        search_algorithm=None, measurement_selection="best")

is written, argument for argument, as ``spec`` (with ``region``, the SDK's ``location``)::

    custom_job: {worker_pool_specs: [...], base_output_dir: gs://...}
    metric_spec: {accuracy: maximize}
    parameter_spec:
      lr: {DoubleParameterSpec: {min: 0.0001, max: 0.1, scale: log}}

each parameter a one-key map naming the ``hpt`` class (``hpt.`` prefix allowed) with its keyword
arguments. The mapping is the SDK's own (google/cloud/aiplatform/hyperparameter_tuning.py and
jobs.py HyperparameterTuningJob.__init__): goals upper-cased; scales linear, log, reverse_log and
unspecified to UNIT_LINEAR_SCALE, UNIT_LOG_SCALE, UNIT_REVERSE_LOG_SCALE and unset (any other
string unset too, as the SDK's ``_SCALE_TYPE_MAP.get`` leaves it, with a warning naming it); search_algorithm
None (Bayesian), grid or random; measurement_selection best (the SDK's default) or last. A
conditional parameter is written as the SDK takes it: ``conditional_parameter_spec`` on the parent
(child id -> its hpt class) and ``parent_values`` on the child, sent as the parent's condition kind
(``parentIntValues``, ``parentDiscreteValues`` or ``parentCategoricalValues``)::

    units: {IntegerParameterSpec: {min: 16, max: 64, scale: linear,
            conditional_parameter_spec: {dropout: {DoubleParameterSpec: {min: 0.1, max: 0.5, scale: linear,
                                                                         parent_values: [32, 64]}}}}}
"""

from __future__ import annotations

from difflib import get_close_matches
from typing import NoReturn

from provider.core.record import replace
from provider.spec.envelope import body, merge_labels, metadata_fields
from provider.spec.formats.vertex.convert import custom_job
from provider.spec.formats.vertex_tuning import SDK_MARKER as MARKER
from provider.spec.model import (
    DocPath,
    HyperParam,
    Hyperparameters,
    Metric,
    Note,
    ParamCondition,
    ParamType,
    SourceFormat,
    TrainingJob,
)
from provider.spec.reader import ConversionError, Node

CLASSES = {"DoubleParameterSpec": ParamType.DOUBLE, "IntegerParameterSpec": ParamType.INTEGER,
           "CategoricalParameterSpec": ParamType.CATEGORICAL, "DiscreteParameterSpec": ParamType.DISCRETE}
SCALES = {"linear": "UNIT_LINEAR_SCALE", "log": "UNIT_LOG_SCALE", "reverse_log": "UNIT_REVERSE_LOG_SCALE",
          "unspecified": None}
ALGORITHMS = {None: "ALGORITHM_UNSPECIFIED", "grid": "GRID_SEARCH", "random": "RANDOM_SEARCH"}
SELECTIONS = {"best": "BEST_MEASUREMENT", "last": "LAST_MEASUREMENT"}
SDK_SOURCE = "google/cloud/aiplatform/hyperparameter_tuning.py _ParameterSpec._to_parameter_spec"


def _class(node: Node) -> tuple[ParamType, Node]:
    keys = list(node.data) if isinstance(node.data, dict) else []
    if len(keys) != 1 or keys[0].removeprefix("hpt.") not in CLASSES:
        raise ConversionError("a parameter is one of " + ", ".join(CLASSES) + ", with its arguments")
    args = node.child(keys[0]) or Node({}, node.at(keys[0]))
    return CLASSES[keys[0].removeprefix("hpt.")], args


def _numbers(raw: list[object], what: str) -> tuple[float, ...]:
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in raw):
        raise ConversionError(f"{what} are not numbers")
    return tuple(float(v) for v in raw)  # type: ignore[arg-type]


def _refuse(message: str, at: DocPath, allowed: str) -> NoReturn:
    note = Note(message, at, "vx.hpt.condition", SDK_SOURCE, allowed=allowed, error=True)
    raise ConversionError(message, notes=(note,))


def _condition(parent: ParamType, name: str, node: Node) -> ParamCondition:
    """A child of ``conditional_parameter_spec``: the SDK sends ``spec.parent_values`` as the condition of the
    parent's type (``_ParameterSpec._to_parameter_spec``), the child's own spec under it."""
    _, args = _class(node)
    raw = args.raw("parent_values")
    if not isinstance(raw, list) or not raw:
        _refuse(f"conditional parameter {name!r} has no parent_values: the SDK would send a condition with no values",
                args.at("parent_values") if "parent_values" in args else node.path,
                "parent_values: the parent's values this parameter is searched on")
    values: tuple[str | float, ...] = tuple(raw) if parent is ParamType.CATEGORICAL else _numbers(raw, "parent_values")
    return ParamCondition(parent_values=values, param=_param(name, node, child=True),
                          at={"": node.path, "parent_values": args.at("parent_values"),
                              "parent": args.at("parent_values")})


def _param(name: str, node: Node, child: bool = False) -> HyperParam:
    ptype, args = _class(node)
    raw = args.raw("values") or []
    if not isinstance(raw, list):
        raise ConversionError("values is not a list")
    values: tuple[str | float, ...] = tuple(raw) if ptype is ParamType.CATEGORICAL else _numbers(raw, "values")
    if not child and args.raw("parent_values") is not None:
        _refuse(f"parameter {name!r} has parent_values but no parent: the SDK reads parent_values only on a "
                "parameter inside another's conditional_parameter_spec", args.at("parent_values"),
                "parent_values on a conditional parameter only (or remove it)")
    children = args.child("conditional_parameter_spec")
    kids = children.data if children is not None and isinstance(children.data, dict) else {}
    conditions = tuple(_condition(ptype, kid, children.child(kid) or Node({}, children.at(kid)))
                       for kid in kids if children is not None)
    return HyperParam(
        name=name, type=ptype, min=args.number("min"), max=args.number("max"), values=values,
        scale=SCALES.get(args.text("scale") or "unspecified"), conditions=conditions,
        at={"": node.path, "name": node.path, "min": args.at("min"), "max": args.at("max"),
            "values": args.at("values"), "scale": args.at("scale"),
            "conditions": args.at("conditional_parameter_spec")})


def _unknown_scales(params: Node | None) -> tuple[Note, ...]:
    """A scale the SDK's map lacks (a typo such as 'liear'): _SCALE_TYPE_MAP.get sends no scaleType, silently."""
    notes: tuple[Note, ...] = ()
    for name in (params.data if params is not None and isinstance(params.data, dict) else {}):
        node = params.child(name) if params is not None else None
        if node is None or not isinstance(node.data, dict) or len(node.data) != 1:
            continue
        args = node.child(next(iter(node.data)))
        if args is None or not isinstance(args.data, dict):
            continue
        scale = args.raw("scale")
        if isinstance(scale, str) and scale not in SCALES:
            close = get_close_matches(scale, [s for s in SCALES if s != "unspecified"], n=1)
            notes += (Note(f"scale {scale!r} of parameter {name!r} is not one the SDK maps: it sends the parameter "
                           "with no scaleType (as 'unspecified'), so Vertex AI searches it without the scale you "
                           "meant" + (f" (did you mean {close[0]!r}?)" if close else ""), args.at("scale"),
                           "vx.hpt.unknown_scale", SDK_SOURCE,
                           allowed="linear, log, reverse_log, unspecified or null"),)
        notes += _unknown_scales(args.child("conditional_parameter_spec"))
    return notes


def hyperparameters(spec: Node) -> Hyperparameters:
    """The study of ``metric_spec``, ``parameter_spec`` and the trial counts and choices beside them."""
    metrics_node = spec.child(MARKER) or Node({}, spec.at(MARKER))
    goals = metrics_node.data if isinstance(metrics_node.data, dict) else {}
    metrics = [Metric(id=key, goal=str(goal).upper(), at={"": metrics_node.at(key), "id": metrics_node.at(key)})
               for key, goal in goals.items()]
    if not metrics:
        raise ConversionError("metric_spec is empty")
    params_node = spec.child("parameter_spec") or Node({}, spec.at("parameter_spec"))
    params = [_param(name, params_node.child(name) or Node({}, params_node.at(name)))
              for name in (params_node.data if isinstance(params_node.data, dict) else {})]
    first = metrics[0]
    return Hyperparameters(
        goal=first.goal, metric=first.id, params=tuple(params),
        max_trials=spec.integer("max_trial_count", 1) or 0,
        max_parallel_trials=spec.integer("parallel_trial_count", 1) or 0,
        # The SDK sends a proto: its defaults (0, ALGORITHM_UNSPECIFIED for None) never reach the wire.
        max_failed_trials=spec.integer("max_failed_trial_count") or None,
        algorithm=None if spec.text("search_algorithm") is None else ALGORITHMS.get(spec.text("search_algorithm")),
        other_metrics=tuple(metrics[1:]),
        measurement_selection=SELECTIONS.get(spec.text("measurement_selection") or "best"),
        at={"": spec.at(MARKER), "params": spec.at("parameter_spec"), "metric": first.at["id"],
            "goal": spec.at(MARKER), "other_metrics": spec.at(MARKER), "max_trials": spec.at("max_trial_count"),
            "max_parallel_trials": spec.at("parallel_trial_count"),
            "max_failed_trials": spec.at("max_failed_trial_count"), "algorithm": spec.at("search_algorithm"),
            "measurement_selection": spec.at("measurement_selection")},
    )


def convert(doc: Node) -> TrainingJob:
    meta = metadata_fields(doc)
    spec = body(doc)
    trial = spec.child("custom_job")
    if trial is None:
        raise ConversionError("custom_job is missing")
    job = custom_job(meta, trial)
    notes = job.notes
    if trial.text("display_name") is not None:  # CustomJob requires it; HyperparameterTuningJob reads only its job_spec
        notes += (Note("custom_job.display_name is not sent: the SDK's HyperparameterTuningJob takes only the "
                       "CustomJob's job_spec, and Vertex AI names each trial's job itself", trial.at("display_name"),
                       "vx.hpt.trial_display_name", "google/cloud/aiplatform/jobs.py HyperparameterTuningJob.__init__",
                       allowed="display_name of the tuning job (beside custom_job)"),)
    notes += _unknown_scales(spec.child("parameter_spec"))
    kms = spec.text("encryption_spec_key_name")
    return replace(
        job,
        region=spec.text("region"),
        display_name=spec.text("display_name") or meta.display_name,
        labels=merge_labels(meta.labels, spec.str_map("labels")),
        hyperparameters=hyperparameters(spec),
        vertex=replace(job.vertex, kms_key_name=kms or job.vertex.kms_key_name,
                       at={**job.vertex.at, "kmsKey": spec.at("encryption_spec_key_name")}),
        source_format=SourceFormat.VERTEX_TUNING,
        notes=notes,
        at={**job.at, "region": spec.at("region")},
    )
