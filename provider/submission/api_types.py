"""Each field's type in Vertex AI's v1 job messages, as Diff and the identity fingerprint read them.

The table (``api_types.json`` beside this module) is generated from the installed
google-cloud-aiplatform's ``google.cloud.aiplatform.v1`` descriptors by tools/schema/api_types.py,
from the request messages CustomJob and HyperparameterTuningJob down, by REST (camelCase) name.
A field's kind is one of:

* ``string``, ``number``, ``bool``: a scalar without presence ("", 0 or "0", false: its default);
* ``enum NAME``: an enum without presence, NAME its zero value (its default);
* ``optional``: a scalar with presence (proto3 ``optional``, a oneof member): 0 and "" are values;
* ``list``, ``map``: repeated scalars, a map: empty is the default, their contents are the user's;
* ``message NAME``, ``messages NAME``: one message, a list of them;
* ``value``: a well-known type (Duration, Timestamp ...), kept whole.
"""

from __future__ import annotations

from typing import Any

# One reader of the table, in the lowest layer that reads it (the vertex format reads a body's
# fields by either protobuf name with it): message name (``StudySpec.ParameterSpec`` for a nested
# one) -> field -> kind.
from provider.spec.formats.vertex.proto_names import messages as messages


def root_of(body: dict[str, Any]) -> str:
    """The request message a body is: a HyperparameterTuningJob has a study and a trial spec, a CustomJob not."""
    return "HyperparameterTuningJob" if "studySpec" in body or "trialJobSpec" in body else "CustomJob"


def is_default(kind: str, value: Any) -> bool:
    """``value`` is the proto3 default of a field of ``kind``: Vertex AI cannot tell it from an absent field."""
    if kind.startswith("enum "):
        return bool(value == kind[len("enum "):])
    if kind == "bool":
        return value is False
    if kind == "string":
        return bool(value == "")
    if kind == "number":  # int64 comes as a JSON string
        return not isinstance(value, bool) and value in (0, "0")
    if kind in ("list", "map") or kind.startswith("messages "):
        return value in ([], {})
    return False
