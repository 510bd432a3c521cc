"""Check a create request with the project's one validator, and answer as Google would.

The request body (REST camelCase) becomes a spec document in the Vertex format
(``spec: {region: LOCATION, workerPoolSpecs: ..., baseOutputDirectory, scheduling,
serviceAccount, displayName, labels}``, named after its display name) and goes through
``provider.validation.validator.validate_data`` with ``Target.VERTEX``. Every field the spec
format's Vertex form models is checked: the set is read from that form's JSON Schema
(``$defs.vertexSpec``), so today's fields (``machineSpec.reservationAffinity``,
``persistentResourceId``, ``enableWebAccess``, ``network``, ``reservedIpRanges``,
``tensorboard``, ``experiment``, ``experimentRun``, ``scheduling.disableRetries`` ...) are
refused or accepted as the project's rules say, and a field the format gains later is checked
without a change here. REST fields the format does not model (``models``, ``nfsMounts`` ...) are
left out of the check and kept in the job. Each error becomes a field violation with Google's snake_case path
(``job_spec.worker_pool_specs[0].machine_spec.accelerator_count``); for the cases whose Vertex
AI text is known, the message is Google's:

* ``The accelerator count "2" is not allowed. The allowed numbers of accelerator "NVIDIA_L4" to
  use with machine type "g2-standard-8" are: [1].``
* ``Accelerator "NVIDIA_TESLA_K80" is not supported for machine type "n1-standard-4"``
* ``Both `accelerator_type` and `accelerator_count` should be specified or none.``

Otherwise the validator's own message (and what is allowed) is the description. One violation
with a known plain text is the whole message (as observed); anything else is listed the way
Vertex AI lists field errors: ``List of found errors:\\t1.Field: F; Message: M\\t``.

A HyperparameterTuningJob is read whole, as the Vertex tuning format reads a
``hyperparameterTuningJobs.create`` body (``spec: {region, studySpec, maxTrialCount,
trialJobSpec ...}``): its study meets the same rules, with the same messages, as
``trainjobs validate`` gives that body in a file (provider.validation.rules.tuning and the format's
schema), at Google's paths (``study_spec.metrics[0].metric_id``,
``trial_job_spec.worker_pool_specs[0]...``). Only the fields the API requires before reading
anything (display_name; for a tuning job study_spec, max_trial_count, parallel_trial_count and
trial_job_spec) are checked here, as ``Required field is not set.``

Given a workspace (``trainjobs emulator --workspace DIR``; provider.workspace), a job labelled
with one of its stacks (``trainjobs-stack``, as every job a stack starts is) is checked as that
stack checks its specs (provider.stack.check: its context, its per-job quotas and policy), so the
emulator refuses what ``trainjobs validate`` and ``run`` refuse. Vertex AI itself knows no stack:
without a workspace (the default) only the spec's own rules apply.
"""

from __future__ import annotations

import copy
import re
from functools import cache
from typing import TYPE_CHECKING, Any

from provider.catalog import CATALOG
from provider.core import job_kinds
from provider.core.labels import STACK_LABEL, label_value
from provider.core.problem import Problem
from provider.core.record import Record
from provider.emulator.errors import FieldViolation, invalid
from provider.spec.formats.vertex.keys import snake
from provider.validation.rules import Context, Target
from provider.validation.validator import validate_data

if TYPE_CHECKING:
    from provider.stack.config import StackConfig
    from provider.workspace import Workspace

Json = dict[str, Any]

Shape = dict[str, Any]  # key -> True (kept whole) or the Shape of its object (or of an array's items)


def _merge(a: Shape | bool, b: Shape | bool) -> Shape | bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: _merge(a[k], b[k]) if k in a and k in b else a.get(k, b.get(k)) for k in a.keys() | b.keys()}
    return a if isinstance(a, dict) else b


def _shape(node: Any, defs: Json, depth: int = 0) -> Shape | bool:
    """The keys a schema node names, nested (``$ref``, properties, array items followed); True for a leaf."""
    if not isinstance(node, dict) or depth > 16:
        return True
    found: Shape | bool = True
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        found = _shape(defs.get(ref[len("#/$defs/"):]), defs, depth + 1)
    for item in [node.get("items"), *(node.get("prefixItems") or [])]:
        if item is not None:
            found = _merge(found, _shape(item, defs, depth + 1))
    if isinstance(node.get("properties"), dict):
        found = _merge(found, {k: _shape(v, defs, depth + 1) for k, v in node["properties"].items()})
    return found


@cache
def modelled(definition: str = "vertexSpec") -> Shape:
    """The part of a request body a spec format models: that format's schema (``vertexSpec``, a
    CustomJobSpec; ``vertexTuningJob``, a whole HyperparameterTuningJob), as a shape."""
    from provider.spec.schema import spec_schema

    defs = spec_schema()["$defs"]
    shape = _shape(defs[definition], defs)
    return shape if isinstance(shape, dict) else {}


class Kind(Record):
    """How one kind of job request becomes a spec document, and where its fields are in Google's paths."""

    definition: str  # the spec format's schema definition the body is read as
    spec_field: str  # Google's field path of the spec body's own fields ("" : the job's top level)

    # Its REST collection and the field holding workerPoolSpecs are the job-kind table's (core/job_kinds.py).


KINDS = {
    job_kinds.CUSTOM_JOB.name: Kind("vertexSpec", "job_spec"),
    # The whole tuning job is the spec body (the Vertex tuning format, marked by studySpec): its study is
    # checked by the same rules and messages as `trainjobs validate` gives a HyperparameterTuningJob file.
    job_kinds.TUNING_JOB.name: Kind("vertexTuningJob", ""),
}

# What hyperparameterTuningJobs.create needs before anything is read (REQUIRED in hyperparameter_tuning_job.proto).
_REQUIRED = {job_kinds.CUSTOM_JOB.name: (("displayName", "display_name"),),
             job_kinds.TUNING_JOB.name: (("displayName", "display_name"), ("studySpec", "study_spec"),
                                         ("maxTrialCount", "max_trial_count"),
                                         ("parallelTrialCount", "parallel_trial_count"),
                                         ("trialJobSpec", "trial_job_spec"))}

_UNSUPPORTED = ("gpu.type", "gpu.machine", "gpu.offered")  # "Accelerator X is not supported for machine type Y"
_INDEX = re.compile(r"^spec\.(?:trialJobSpec\.)?workerPoolSpecs\[(\d+)\]")


def _project(value: Any, shape: Any) -> Any:
    """Keep only the modelled keys of ``value`` (lists are projected item by item)."""
    if shape is True:
        return value
    if isinstance(value, list):
        return [_project(v, shape) for v in value]
    if isinstance(value, dict):
        return {k: _project(v, shape[k]) for k, v in value.items() if isinstance(shape, dict) and k in shape}
    return value


def job_name(display_name: str) -> str:
    """A spec name (letters, digits, '_', a letter first, <= 128) made from a display name."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", display_name).strip("_") or "job"
    if not name[0].isalpha():
        name = "job_" + name
    return name[:128]


def _zero_bounds(params: Any) -> None:
    """Put back the bounds proto3 leaves off the wire: a value spec's minValue or maxValue of 0 has no
    presence, so the canonical body (emulator/wire.py) drops it, and the API reads it as 0."""
    for param in params if isinstance(params, list) else []:
        if not isinstance(param, dict):
            continue
        for key in ("doubleValueSpec", "integerValueSpec"):
            if isinstance(param.get(key), dict):
                param[key] = {"minValue": 0, "maxValue": 0, **param[key]}
        _zero_bounds([c.get("parameterSpec") for c in param.get("conditionalParameterSpecs") or []
                      if isinstance(c, dict)])


def spec_document(kind: str, location: str, body: Json) -> Json:
    spec: Json = {"region": location}
    shape = modelled(KINDS[kind].definition)
    source = body if kind == job_kinds.TUNING_JOB.name else body.get(job_kinds.CUSTOM_JOB.spec_field) or {}
    spec.update(_project({k: v for k, v in source.items() if k in shape and k != "region"}, shape))
    if kind == job_kinds.CUSTOM_JOB.name:
        spec.setdefault("workerPoolSpecs", [])
    elif isinstance(spec.get("studySpec"), dict):
        spec["studySpec"] = copy.deepcopy(spec["studySpec"])
        _zero_bounds(spec["studySpec"].get("parameters"))
    if body.get("displayName"):
        spec["displayName"] = body["displayName"]
    if body.get("labels"):
        spec["labels"] = body["labels"]
    return {"apiVersion": "trainjobs/v1", "kind": "TrainingJob",
            "metadata": {"name": job_name(str(body.get("displayName") or ""))}, "spec": spec}


def field_path(path: str, spec_field: str) -> str:
    """``spec.workerPoolSpecs[0].machineSpec.acceleratorCount`` -> Google's snake_case field path
    (under ``spec_field``: job_spec for a CustomJob; a tuning job's fields are its own)."""
    if path in ("", "spec"):
        return spec_field or "hyperparameter_tuning_job"
    if path.startswith("metadata.name") or path.startswith("spec.displayName"):
        return "display_name"
    if path.startswith(("metadata.labels", "spec.labels")):
        return "labels" + path.split("labels", 1)[1]
    if path.startswith("spec.region"):
        return "parent"
    rest = path[len("spec."):] if path.startswith("spec.") else path
    parts: list[str] = []
    for token in re.findall(r"\[\d+\]|[^.\[\]]+", rest):
        if token.startswith("[") and parts:
            parts[-1] += token
        else:
            parts.append(snake(token))
    return ".".join([spec_field, *parts] if spec_field else parts)


def _pool(body: Json, kind: str, path: str) -> Json:
    m = _INDEX.match(path)
    if not m:
        return {}
    job_spec = body.get(job_kinds.kind(kind).spec_field) or {}
    pools = job_spec.get("workerPoolSpecs") or []
    index = int(m.group(1))
    return pools[index] if index < len(pools) and isinstance(pools[index], dict) else {}


def _google_text(problem: Problem, machine: Json) -> str | None:
    acc, count, machine_type = machine.get("acceleratorType"), machine.get("acceleratorCount"), machine.get("machineType")
    if problem.rule == "gpu.count" and acc and machine_type:
        allowed = CATALOG.seed_counts(str(machine_type)).get(str(acc), [])
        return (f'The accelerator count "{count}" is not allowed. The allowed numbers of accelerator "{acc}" to use '
                f'with machine type "{machine_type}" are: [{", ".join(str(c) for c in allowed)}].')
    if problem.rule in _UNSUPPORTED and acc and machine_type:
        return f'Accelerator "{acc}" is not supported for machine type "{machine_type}"'
    return None


def _described(problem: Problem) -> str:
    text = problem.message
    if problem.allowed:
        text += f" (allowed: {problem.allowed})"
    return text


def violations(kind: str, body: Json, problems: list[Problem]) -> list[tuple[FieldViolation, bool]]:
    """(violation, is Google's plain text) for each error, Google's text where it is known."""
    spec_field, pools_field = KINDS[kind].spec_field, job_kinds.kind(kind).spec_field_snake
    out: list[tuple[FieldViolation, bool]] = []
    both_or_none: set[str] = set()
    for problem in problems:
        pool = _pool(body, kind, problem.path)
        machine = pool.get("machineSpec") or {}
        m = _INDEX.match(problem.path)
        if m and problem.path.startswith(m.group(0) + ".machineSpec") and \
                bool(machine.get("acceleratorType")) != bool(machine.get("acceleratorCount")):
            # One answer for the pool, whatever else the validator said about its accelerator.
            if m.group(1) not in both_or_none:
                both_or_none.add(m.group(1))
                field = f"{pools_field}.worker_pool_specs[{m.group(1)}].machine_spec.accelerator_type"
                out.append((FieldViolation(field, "Both `accelerator_type` and `accelerator_count` should be "
                                                  "specified or none."), False))
            continue
        text = _google_text(problem, machine)
        field = field_path(problem.path, spec_field)
        if text is not None and problem.rule in _UNSUPPORTED and m:
            field = f"{pools_field}.worker_pool_specs[{m.group(1)}].machine_spec.accelerator_type"
        out.append((FieldViolation(field, text or _described(problem)), text is not None))
    return out


def message(found: list[tuple[FieldViolation, bool]]) -> str:
    if len(found) == 1 and found[0][1]:
        return found[0][0].description
    return "List of found errors:\t" + "".join(f"{i}.Field: {v.field}; Message: {v.description}\t"
                                               for i, (v, _) in enumerate(found, 1))


def stack_of(body: Json, workspace: Workspace | None) -> StackConfig | None:
    """The stack of ``workspace`` whose label the job carries (None without a workspace or a label)."""
    value = (body.get("labels") or {}).get(STACK_LABEL) if workspace is not None else None
    if not value or workspace is None:
        return None
    return next((s for s in workspace.stacks if label_value(s.name) == value), None)


def problems(kind: str, location: str, body: Json, workspace: Workspace | None = None) -> list[Problem]:
    """The errors of the request's job, in its stack when ``workspace`` knows the stack it is labelled with."""
    from provider.stack.check import context_for, job_policy_problems

    collection = job_kinds.collection(kind)
    stack = stack_of(body, workspace)
    ctx = context_for(stack, target=Target.VERTEX) if stack is not None else Context(target=Target.VERTEX)
    result = validate_data(spec_document(kind, location, body), f"{collection}/{body.get('displayName')}", ctx)
    if stack is not None:
        result.problems.extend(job_policy_problems(result, stack))
    return [p for p in result.problems if p.is_error]


def check(kind: str, location: str, body: Json, workspace: Workspace | None = None) -> None:
    """Raise a Google-style INVALID_ARGUMENT when a required field is missing or the validator finds
    errors in the request (in its stack, given the ``workspace``: see the module docstring)."""
    missing = [FieldViolation(field, "Required field is not set.")
               for key, field in _REQUIRED[kind] if body.get(key) in (None, "", {}, [])]
    if missing:
        raise invalid(message([(v, False) for v in missing]), tuple(missing))
    errors = problems(kind, location, body, workspace)
    if not errors:
        return
    found = violations(kind, body, errors)
    raise invalid(message(found), tuple(v for v, _ in found))
