"""One Airflow training operator's call -> the spec body (or request) its hook's job gives.

The arguments are the call's keywords, then the DAG's ``default_args`` for those it does not write (Airflow gives an
operator each of its parameters that default_args holds). Each is put where the hook puts it (airflow_args.py) and
read by binding.Reader, refused by name where its value is not known here: a Jinja template, an Airflow Variable
(``convert --var NAME=VALUE`` gives one), anything else known only when Airflow runs. Then the SDK reader's
mappings build the body: pipelines.pipeline_job (CustomContainerTrainingJob, CustomPythonPackageTrainingJob),
script_training.script_training_job (CustomTrainingJob), tuning.tuning_job (HyperparameterTuningJob); or, for
MLEngineStartTrainingJobOperator, the ``projects.jobs.create`` body its execute() builds, which convert reads as
a request (Body.request).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from provider.pysdk.airflow_args import (
    AIRFLOW_ONLY,
    MLENGINE,
    MODEL_ONLY,
    SPLITS,
    TEMPLATED,
    reads_variable,
    rendered,
    takes,
    templated,
    vertex_place,
)
from provider.pysdk.arguments import Call, SdkError, Unread
from provider.pysdk.binding import NOT_READ_VALUE
from provider.pysdk.custom_job import Body

if TYPE_CHECKING:
    from provider.pysdk.binding import Reader

_NAMES = ("display_name", "job_id")  # convert --name names the job in their place
_UNSET = object()


def _defaults(dags: list[ast.Call], node: ast.Call, reader: Reader) -> dict[str, tuple[ast.expr, Reader]]:
    """The default_args of the DAG (and task groups) around the operator, then its own, as a dict literal (or a name
    assigned one): key -> value, an inner one over an outer one."""
    sources = [kw.value for dag in dags for kw in dag.keywords if kw.arg == "default_args"]
    sources += [kw.value for kw in node.keywords if kw.arg == "default_args"]
    out: dict[str, tuple[ast.expr, Reader]] = {}
    for expr in sources:
        inner = reader
        if isinstance(expr, ast.Name) and expr.id in reader.assigned:
            assigned = reader.assigned[expr.id]
            expr, inner = assigned.value, reader.inner(assigned, reader.assigned)
        if isinstance(expr, ast.Dict):
            for key, value in zip(expr.keys, expr.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    out[key.value] = (value, inner)
    return out


class _Args:
    """The operator's job arguments read: by SDK call ("ctor", "run", "job", "tuning" or "body"), name -> value."""

    def __init__(self, what: str, node: ast.Call, reader: Reader, variables: Mapping[str, str],
                 templated: frozenset[str]) -> None:
        self.what, self.node, self.reader, self.variables = what, node, reader, variables
        self.templated = templated  # the operator's template_fields: the arguments Airflow renders
        self.values: dict[str, dict[str, object]] = {}
        self.at: dict[str, dict[str, str]] = {}
        self.notes: list[str] = []
        self.nodes: dict[str, ast.expr] = {}  # MLEngine's: each argument's expression, for its positions

    def put(self, call: str, name: str, value: object, where: str) -> None:
        self.values.setdefault(call, {})[name] = value
        self.at.setdefault(call, {})[name] = where

    def call(self, call: str, what: str | None = None) -> Call:
        return Call(what or self.what, self.reader.at(self.node), self.values.get(call, {}), self.at.get(call, {}),
                    self.reader.noun)

    def value(self, name: str, expr: ast.expr, reader: Reader) -> object:
        """``expr``'s value; SdkError naming the argument where it is not known here."""
        what = f"{self.what}({name}=...)"
        try:
            value = reader.value(expr, what)
        except SdkError as exc:
            variable = reads_variable(expr) or next((reads_variable(reader.assigned[n.id].value) for n in ast.walk(expr)
                                                     if isinstance(n, ast.Name) and n.id in reader.assigned
                                                     and reads_variable(reader.assigned[n.id].value)), None)
            if name in _NAMES and reader.named:
                return Unread(ast.unparse(expr), exc.what.split(": ", 1)[-1], reader.noun)
            if name == "staging_bucket" and reader.bucket:
                return Unread(ast.unparse(expr), exc.what.split(": ", 1)[-1], reader.noun, reader.bucket)
            if variable is not None:
                raise SdkError(exc.where, exc.what, f"give the Airflow Variable's value: convert --var {variable}=VALUE;"
                               f" or {exc.allowed}") from None
            if name in _NAMES:
                raise SdkError(exc.where, exc.what, f"{exc.allowed}; or name the job with convert --name NAME") from None
            if name == "staging_bucket":
                raise SdkError(exc.where, exc.what, f"{exc.allowed}; or give the bucket with convert --staging-bucket "
                               "gs://BUCKET") from None
            raise
        return self._template(name, value, expr, reader)

    def _template(self, name: str, value: object, expr: ast.expr, reader: Reader) -> object:
        """A value holding a Jinja template: sent as written where Airflow does not render the argument; else its
        ``{{ var.value.NAME }}`` given by --var, a name --name gives, or refused by name."""
        what, jinja = f"{self.what}({name}=...)", templated(value)
        if jinja is not None and name not in self.templated:  # Airflow does not render it: sent as written
            self.notes.append(f"{what} at {reader.at(expr)} holds {jinja}, which Airflow does not render here ({name} "
                              "is not among the operator's template_fields): it is sent as written")
            return value
        value = rendered(value, self.variables)  # {{ var.value.NAME }}: the Variable --var gives
        jinja = templated(value)
        if jinja is None:
            return value
        if name in _NAMES and reader.named:
            return Unread(ast.unparse(expr), f"Airflow renders the template {jinja} when the task runs", reader.noun)
        variable = re.fullmatch(r"\{\{\s*var\.(?:value|json)\.(\w+)\s*\}\}", jinja)
        if variable is not None:
            raise SdkError(reader.at(expr), f"{what}: {value!r} holds the Jinja template {jinja}, the Airflow "
                           f"Variable {variable.group(1)}, read when the task runs", "give the Variable's value: "
                           f"convert --var {variable.group(1)}=VALUE")
        raise SdkError(reader.at(expr), f"{what}: {value!r} holds the Jinja template {jinja}, which Airflow renders "
                       "when the task runs: the value sent is known only then", "the value written out"
                       + (", or convert --name NAME to name the job" if name in _NAMES else ""))


def _read(kind: str, node: ast.Call, reader: Reader, dags: list[ast.Call], variables: Mapping[str, str]) -> _Args:
    what = ast.unparse(node.func)
    args = _Args(what, node, reader, variables, TEMPLATED[kind])
    if node.args:
        raise SdkError(reader.at(node.args[0]), f"{what}() is given an argument by position", "each argument by "
                       f"keyword ({', '.join(takes(kind))})")
    given: list[tuple[str, ast.expr, Reader]] = []
    for kw in node.keywords:
        if kw.arg is None:
            raise SdkError(reader.at(kw.value), f"{what}(**...): arguments spread from a dict are not read",
                           "each argument by keyword")
        given.append((kw.arg, kw.value, reader))
    written = {name for name, _, _ in given}
    allowed = set(takes(kind))
    given += [(name, expr, inner) for name, (expr, inner) in _defaults(dags, node, reader).items()
              if name not in written and name in allowed]
    for name, expr, inner in given:
        if name in AIRFLOW_ONLY:
            continue
        where = inner.at(expr)
        if name == "project_id":
            shown = ast.unparse(expr)
            args.notes.append(f"{what}(project_id={shown}) at {where} is not written: a spec names no project; the "
                              "stack that runs it does")
            continue
        if kind == "mlengine":
            if name == "mode":
                mode = args.value(name, expr, inner)
                if mode == "DRY_RUN":
                    args.notes.append(f"{what}(mode='DRY_RUN') at {where}: the operator only logs this request, and "
                                      "launches no job; converted as it would be sent")
                continue
            if name not in MLENGINE:
                raise SdkError(where, f"{what}() takes no argument {name!r} (Airflow raises AirflowException: "
                               "Invalid arguments were passed)", ", ".join(takes(kind)))
            args.put("body", name, args.value(name, expr, inner), where)
            args.nodes[name] = expr
            continue
        place = vertex_place(kind, name)
        if place is None:
            raise SdkError(where, f"{what}() takes no argument {name!r} (Airflow raises AirflowException: Invalid "
                           "arguments were passed)", ", ".join(takes(kind)))
        call, sdk_name = place
        if name in MODEL_ONLY:  # named in a note (pipelines.py): its value is never sent
            args.put(call, sdk_name, NOT_READ_VALUE, where)
            continue
        if sdk_name == "dataset":
            raise SdkError(where, f"{what}(dataset_id=...): the TrainingPipeline exports the dataset's split for the "
                           "trainer (AIP_TRAINING_DATA_URI ...), which a spec cannot do", "the trainer reading its "
                           "data itself (args with gs:// or bq:// paths), without dataset_id")
        args.put(call, sdk_name, args.value(name, expr, inner), where)
    return args


def body(kind: str, node: ast.Call, reader: Reader, dags: list[ast.Call],
         variables: Mapping[str, str] | None = None) -> Body:
    """The spec body of the job the operator ``node`` (of ``kind``) launches; ``variables``: --var's Airflow Variables."""
    args = _read(kind, node, reader, dags, variables or {})
    if kind == "mlengine":
        from provider.pysdk.airflow_mlengine import request

        return Body(request=request(args.what, node, reader, args.values.get("body", {}), args.nodes, args.notes),
                    notes=args.notes)
    from provider.pysdk.arguments import merged
    from provider.pysdk.signatures import REQUIRED

    init = merged([])
    where = "tuning" if kind == "HyperparameterTuningJob" else "ctor"
    location = args.values.get(where, {}).get("location")
    if location is None:
        raise SdkError(reader.at(node), f"{args.what}() lacks region (Python raises TypeError: it is required)",
                       "region='us-central1' (the region of the job)")
    if kind == "HyperparameterTuningJob":
        from provider.pysdk.tuning import tuning_job

        missing = [n for n in ("display_name", "metric_spec", "parameter_spec", "max_trial_count",
                               "parallel_trial_count") if n not in args.values.get("tuning", {})]
        missing += [] if "worker_pool_specs" in args.values.get("job", {}) else ["worker_pool_specs"]
        if missing:
            raise SdkError(reader.at(node), f"{args.what}() lacks {', '.join(missing)} (Python raises TypeError)",
                           ", ".join(takes(kind)))
        tuning = args.call("tuning")
        job = args.call("job", f"{args.what} (its CustomJob)")
        result = tuning_job(tuning, job, args.call("run"), init)
    else:
        missing = [n for n in REQUIRED[kind] if n not in args.values.get("ctor", {})]
        if missing:
            raise SdkError(reader.at(node), f"{args.what}() lacks {', '.join(missing)} (Python raises TypeError)",
                           ", ".join(takes(kind)))
        run = args.values.setdefault("run", {})
        if "accelerator_type" in run and run["accelerator_type"] is None:  # the hook passes it on as written
            raise SdkError(args.at["run"]["accelerator_type"], f"{args.what}(accelerator_type=None): the SDK raises "
                           "ValueError (Given accelerator_type `None` invalid) when the hook passes it to run()",
                           "accelerator_type left out (no GPU), or an AcceleratorType name such as 'NVIDIA_TESLA_T4'")
        for name in [n for n in SPLITS if n in run]:
            if run.pop(name) is not None:
                args.notes.append(f"{args.what}({name}=...) at {args.at['run'].pop(name)} is not sent: without "
                                  "dataset_id the TrainingPipeline has no dataset to split")
        result = _pipeline(kind, args.call("ctor"), args.call("run"), init)
    result.notes += args.notes
    return result


def _pipeline(kind: str, ctor: Call, run: Call, init: Call) -> Body:
    if kind == "CustomTrainingJob":
        from provider.pysdk.script_training import script_training_job

        return script_training_job(ctor, run, init, "run")
    from provider.pysdk.pipelines import pipeline_job

    return pipeline_job(kind, ctor, run, init)
