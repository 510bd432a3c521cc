"""A document as Google's own readers take it, before any check: the one reading the validator runs.

* An AI Platform ``trainingInput`` by either name of each field (``legacy/proto_names.py``), as
  ml.googleapis.com's JSON mapping reads it.
* A Vertex AI body as the SDK, gcloud or the REST API reads it (``vertex/proto_forms.py``: a field by
  either name, ``null``, enum numbers, single values for lists ...).

Each returns the document as read (a copy) and its notes; a document of another format passes unchanged.
"""

from __future__ import annotations

from typing import Any

from provider.spec.formats.legacy import proto_names as legacy
from provider.spec.formats.vertex import proto_forms as vertex
from provider.spec.formats.vertex.proto_forms import Forms


def read(data: Any) -> Forms:
    """``data`` as Google's reader of its format takes it, with what each reading found."""
    first = legacy.read(data)
    then = vertex.read(first.data)
    return Forms(then.data, first.notes + then.notes)
