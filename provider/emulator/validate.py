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

Given a workspace (``trainjobs emulator --workspace DIR``; provider.workspace), a job labelled
with one of its stacks (``trainjobs-stack``, as every job a stack starts is) is checked as that
stack checks its specs (provider.stack.check: its context, its per-job quotas and policy), so the
emulator refuses what ``trainjobs validate`` and ``run`` refuse. Vertex AI itself knows no stack:
without a workspace (the default) only the spec's own rules apply.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING, Any

from provider.catalog import CATALOG
from provider.core import job_kinds
from provider.core.labels import STACK_LABEL, label_value
from provider.core.problem import Problem
from provider.emulator.errors import ApiError, FieldViolation, invalid
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
def modelled() -> Shape:
    """The part of a CustomJobSpec the spec format models: its Vertex form's schema, as a shape."""
    from provider.spec.schema import spec_schema

    defs = spec_schema()["$defs"]
    shape = _shape(defs["vertexSpec"], defs)
    return shape if isinstance(shape, dict) else {}


_UNSUPPORTED = ("gpu.type", "gpu.machine", "gpu.offered")  # "Accelerator X is not supported for machine type Y"
_INDEX = re.compile(r"^spec\.workerPoolSpecs\[(\d+)\]")


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


def spec_document(kind: str, location: str, body: Json) -> Json:
    job_spec = body.get(job_kinds.kind(kind).spec_field) or {}
    spec: Json = {"region": location}
    shape = modelled()
    spec.update(_project({k: v for k, v in job_spec.items() if k in shape}, shape))
    spec.setdefault("workerPoolSpecs", [])
    if body.get("displayName"):
        spec["displayName"] = body["displayName"]
    if body.get("labels"):
        spec["labels"] = body["labels"]
    return {"apiVersion": "trainjobs/v1", "kind": "TrainingJob",
            "metadata": {"name": job_name(str(body.get("displayName") or ""))}, "spec": spec}


def field_path(path: str, spec_field: str) -> str:
    """``spec.workerPoolSpecs[0].machineSpec.acceleratorCount`` -> Google's snake_case field path."""
    if path in ("", "spec"):
        return spec_field
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
    return ".".join([spec_field, *parts])


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
    spec_field = job_kinds.kind(kind).spec_field_snake
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
                field = f"{spec_field}.worker_pool_specs[{m.group(1)}].machine_spec.accelerator_type"
                out.append((FieldViolation(field, "Both `accelerator_type` and `accelerator_count` should be "
                                                  "specified or none."), False))
            continue
        text = _google_text(problem, machine)
        field = field_path(problem.path, spec_field)
        if text is not None and problem.rule in _UNSUPPORTED and m:
            field = f"{spec_field}.worker_pool_specs[{m.group(1)}].machine_spec.accelerator_type"
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
    """Raise a Google-style INVALID_ARGUMENT when the validator finds errors in the request (in its stack,
    given the ``workspace``: see the module docstring)."""
    if not body.get("displayName"):
        v = FieldViolation("display_name", "Required field is not set.")
        raise invalid(message([(v, False)]), (v,))
    if kind == job_kinds.TUNING_JOB.name:
        _check_study(body)
    errors = problems(kind, location, body, workspace)
    if not errors:
        return
    found = violations(kind, body, errors)
    raise invalid(message(found), tuple(v for v, _ in found))


def _check_study(body: Json) -> None:
    """What the spec format cannot carry for a tuning job: the study and the trial counts."""
    found: list[FieldViolation] = []
    study = body.get("studySpec") or {}
    if not study.get("metrics"):
        found.append(FieldViolation("study_spec.metrics", "At least one metric is required."))
    if not study.get("parameters"):
        found.append(FieldViolation("study_spec.parameters", "At least one parameter is required."))
    for key, field in (("maxTrialCount", "max_trial_count"), ("parallelTrialCount", "parallel_trial_count")):
        if int(body.get(key) or 0) <= 0:
            found.append(FieldViolation(field, "Must be a positive number."))
    if int(body.get("parallelTrialCount") or 0) > int(body.get("maxTrialCount") or 0) > 0:
        found.append(FieldViolation("parallel_trial_count", "Must not be greater than max_trial_count."))
    if found:
        raise ApiError("INVALID_ARGUMENT", message([(v, False) for v in found]), tuple(found))
