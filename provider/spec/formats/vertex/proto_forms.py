"""Read a Vertex AI ``CustomJobSpec`` the way Google's own readers do, before any other check.

A Vertex spec body reaches Google through one of two readers, and each accepts forms that
the JSON Schema (which describes the REST API's JSON) would refuse:

* the Python SDK (``worker_pool_specs``, snake_case): ``aiplatform.CustomJob`` hands the
  dicts to proto-plus message classes (``aiplatform_v1.types.WorkerPoolSpec``);
* gcloud (``workerPoolSpecs``, camelCase): ``gcloud ai custom-jobs create --config`` loads
  the YAML with apitools' protojson (``protorpclite/protojson.py``), as the REST API's JSON.

What each does, as observed with google-cloud-aiplatform 2.7.0 and gcloud 528.0.0
(``tests/test_proto_forms.py`` feeds the same dicts through the SDK and compares):

=================================  ===============================  ===========================
form                               SDK (proto-plus)                 gcloud --config (protojson)
=================================  ===============================  ===========================
``null`` for any field             unset                            unset (``message.reset``)
``accelerator_count: 0``, no type  unset (proto3 default)           sent as written (the default)
``bootDiskSizeGb: 0``, ``""``      unset (proto3 default)           sent as written (the default)
an enum as a number                the proto's number (5 = T4)      apitools' index (agrees 0-5)
one string for a list field        the list of its characters       a one-item list
one mapping for a list of pools    TypeError (not iterable)         a one-item list
a string for an int32 count        TypeError                        ``int(value)``
a list for a single value          TypeError                        ValidationError
``null`` as a pool                 TypeError                        error
=================================  ===============================  ===========================

A REST-style body (camelCase: ``workerPoolSpecs``, ``studySpec``) is first given each field by its
JSON name, as the REST API reads a field by either of its names (``proto_names.py``).

``read`` returns the document as the reader would have taken it (a copy; the original is
not changed) with notes: a warning wherever the reading is not what the writer likely meant
(a number for an enum, a string for a list), an error where the reader refuses the form,
saying what it takes instead. ``null`` is read silently as unset, and so are the SDK's zero defaults;
gcloud's apitools encodes every field a config assigns, so its zero defaults are kept and sent.
Enum numbers come from the catalog (``tools/catalog/curated/enum_numbers.json``). The
fields and the reader are in ``proto_reader.py``, imported only when a document carries a
Vertex body.
"""

from __future__ import annotations

from typing import Any

from provider.core.record import Record
from provider.spec.formats.vertex.keys import CAMEL_MARKER, SNAKE_MARKER, STUDY_MARKER, TRIAL, snake
from provider.spec.model import Note


class Forms(Record):
    """The document as Google's reader takes it, and what the reading found."""

    data: Any
    notes: tuple[Note, ...] = ()


def read(data: Any) -> Forms:
    """``data`` as Google's reader of its Vertex spec body takes it; other documents unchanged."""
    spec = data.get("spec") if isinstance(data, dict) else None
    if not isinstance(spec, dict):
        return Forms(data)
    named: tuple[Note, ...] = ()
    root = _root(spec)
    if root is not None:  # the REST API's JSON: a field by either of its names
        from provider.spec.formats.vertex.proto_names import json_names

        spec, named = json_names(spec, root, ("spec",))
    trial = spec.get(TRIAL) if STUDY_MARKER in spec else None
    if isinstance(trial, dict):  # a HyperparameterTuningJob: its trial job is a CustomJobSpec, read by gcloud
        from provider.spec.formats.vertex.proto_reader import Style, read_body

        body, notes = read_body(trial, Style.GCLOUD, ("spec", TRIAL))
        study = spec[STUDY_MARKER]
        if isinstance(study, dict):
            study, read_study = read_body(study, Style.GCLOUD, ("spec", STUDY_MARKER), "StudySpec")
            notes += read_study
        return Forms({**data, "spec": {**spec, STUDY_MARKER: study, TRIAL: body}}, named + notes)
    if not (SNAKE_MARKER in spec or CAMEL_MARKER in spec):
        return Forms({**data, "spec": spec} if root else data, named)
    from provider.spec.formats.vertex.proto_reader import Style, read_body  # only a Vertex body needs it

    body, notes = read_body(spec, Style.SDK if SNAKE_MARKER in spec else Style.GCLOUD)
    return Forms({**data, "spec": body}, named + notes)


def _root(spec: dict[str, Any]) -> str | None:
    """The message a REST-style body is, read by either name of each field; None for the SDK's dicts.

    ``worker_pool_specs`` marks the Python SDK's pools (proto-plus: snake_case only). A tuning job
    marked by ``study_spec`` is the low-level client's dicts when every name is a proto name (read in
    snake_case, its messages naming what the user wrote); with JSON names beside them only the REST API
    reads it, as the REST body it is.
    """
    if SNAKE_MARKER in spec:
        return None
    if STUDY_MARKER in spec:
        return "HyperparameterTuningJob"
    if snake(STUDY_MARKER) in spec:
        from provider.spec.formats.vertex.proto_names import mixed

        return "HyperparameterTuningJob" if mixed(spec, "HyperparameterTuningJob") else None
    return "CustomJobSpec" if CAMEL_MARKER in spec else None
