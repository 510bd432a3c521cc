"""A create request written whole, read as the job it creates.

Two forms hold a job with the ``parent`` it is created under (``projects/PROJECT/locations/REGION``):

- Vertex AI's request messages, ``CreateCustomJobRequest`` ``{parent, customJob}`` and
  ``CreateHyperparameterTuningJobRequest`` ``{parent, hyperparameterTuningJob}``, each field by either
  of its names (``custom_job``): what ``JobServiceClient.create_custom_job(request={...})`` takes and
  what ``MessageToJson`` / ``MessageToDict(preserving_proto_field_name=True)`` of the request writes;
- ``trainjobs convert --output request``'s own ``{kind, parent, body}``, so what convert writes converts back.

The job inside is read as convert reads a job body. ``parent``'s location is the job's region, as the
REST URL's location is (``--region`` still wins, as it does over a config); its project is where the
request would be sent, not part of the job, so it is noted and the stack's project is used. Any other
key beside them is refused by name: the request has no such field.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from provider.core.errors import UserError
from provider.core.job_kinds import KINDS, JobKind
from provider.spec.formats.vertex.keys import snake

if TYPE_CHECKING:
    from provider.document.loaded import LoadedDocument

_PARENT = re.compile(r"projects/([^/\s]+)/locations/([^/\s]+)")
_OWN = ("kind", "parent", "body")  # convert --output request


def _field(kind: JobKind) -> str:
    """The request's field that holds a job of ``kind``: customJob, hyperparameterTuningJob."""
    return kind.name[0].lower() + kind.name[1:]


def _written(data: dict[str, Any]) -> list[tuple[str, JobKind]]:
    return [(key, kind) for kind in KINDS for key in (_field(kind), snake(_field(kind))) if key in data]


def _request_kind(doc: LoadedDocument, at: str) -> tuple[str, JobKind] | None:
    """The key holding the job and its kind, when ``doc`` is a create request; None for any other document."""
    data = doc.data
    if set(data) == set(_OWN) and isinstance(data["kind"], str) and isinstance(data["body"], dict):
        own = next((kind for kind in KINDS if kind.name == data["kind"]), None)
        if own is None:
            raise UserError(f"{at}: kind is {data['kind']!r}, not a job kind convert --output request writes; "
                            f"allowed: {', '.join(k.name for k in KINDS)}")
        return "body", own
    found = _written(data)
    if not found:
        return None
    if len(found) > 1:
        raise UserError(f"{at}: a create request holds one job; this one holds {' and '.join(k for k, _ in found)}; "
                        "allowed: one of customJob (custom_job) or hyperparameterTuningJob (hyperparameter_tuning_job)")
    key, kind = found[0]
    other = sorted(k for k in data if k not in (key, "parent"))
    if other:
        raise UserError(f"{at}: {', '.join(other)} beside {key}: Create{kind.name}Request has no such field; "
                        f"allowed: parent and {key}")
    return key, kind


def unwrap(doc: LoadedDocument, path: Path, notes: list[str]) -> LoadedDocument:
    """``doc``, holding the job of a create request in place of the request, with ``parent``'s region."""
    at = str(path)
    found = _request_kind(doc, at)
    if found is None:
        return doc
    key, kind = found
    outer, job = doc.data, doc.data[key]
    if not isinstance(job, dict):
        raise UserError(f"{at}: {key} is a {type(job).__name__}; allowed: a {kind.name} mapping")
    parent = outer.get("parent")
    if parent is not None:
        match = _PARENT.fullmatch(parent) if isinstance(parent, str) else None
        if match is None:
            raise UserError(f"{at}: parent is {parent!r}; allowed: projects/PROJECT/locations/REGION")
        project, region = match.groups()
        _region(doc, outer, job, kind, region)
        notes.append(f"parent {parent}: the job's region is {region} (where it is created); the project {project} "
                     "is where the request would be sent, not part of the job: the stack's project is used")
    notes.append(f"the {kind.name} in {key} is read as the job the request creates")
    doc.data = job  # its keys keep their lines: positions are by the mapping they are in
    return doc


def _region(doc: LoadedDocument, outer: dict[str, Any], job: dict[str, Any], kind: JobKind, region: str) -> None:
    """The region goes where convert reads it (a CustomJob's jobSpec, a tuning job itself), unless written there."""
    if kind.tuning:
        target: Any = job
    else:
        spec_key = next((k for k in (kind.spec_field, kind.spec_field_snake) if k in job), None)
        target = job[spec_key] if spec_key is not None else None
    if not isinstance(target, dict) or "region" in target:
        return
    target["region"] = region
    for positions in (doc.key_positions, doc.value_positions):  # a problem with the region points at parent
        if "parent" in positions.get(id(outer), {}):
            positions.setdefault(id(target), {})["region"] = positions[id(outer)]["parent"]
