"""A whole CustomJob or HyperparameterTuningJob message, as the REST API (and proto-plus) reads it.

``trainjobs convert`` takes such a message as a file: a ``customJobs.create`` /
``hyperparameterTuningJobs.create`` body, a ``describe`` output, or what the Python SDK's
``CustomJob.to_dict(job)`` and ``json_format.MessageToDict(..., preserving_proto_field_name=True)``
write: proto names (``job_spec``, ``worker_pool_specs``), enums as their proto numbers
(``use_integers_for_enums=True``, to_dict's default) and every field that has no presence at its
proto3 default (``network: ""``, ``enable_web_access: false``, ``nfs_mounts: []``: to_dict prints them).

Both of Google's readers of such a message (protobuf's JSON mapping behind the REST API, and
proto-plus) take a field without presence at its default as unset: the message they build is the
same with or without it. ``read_message`` does the same, walking the message by the API's field
table (``proto_names.messages``) under either of a field's names; and it names each enum number
(``accelerator_type: 8``) by the proto's numbering, as both readers do, with a note. Keys are
renamed later, by ``proto_names.json_names``, where a field written in both spellings is refused.
"""

from __future__ import annotations

from typing import Any

from provider.spec.formats.vertex.keys import snake
from provider.spec.formats.vertex.proto_names import enum_values, messages

# The proto3 default of each kind of field without presence (the field table's kinds).
_DEFAULTS: dict[str, Any] = {"string": "", "number": 0, "bool": False, "list": [], "map": {}, "messages": []}


def _is_default(kind: str, item: Any) -> bool:
    head, _, zero_name = kind.partition(" ")
    if head == "enum":
        return item == zero_name or (item == 0 and not isinstance(item, bool))
    if head not in _DEFAULTS:
        return False  # a message, a well-known type, an optional field: set when written
    default = _DEFAULTS[head]
    if head == "number":
        return isinstance(item, (int, float)) and not isinstance(item, bool) and item == 0
    return type(item) is type(default) and item == default


class _Walk:
    def __init__(self, notes: list[str]) -> None:
        self.notes = notes

    def message(self, name: str, value: dict[str, Any], where: str) -> None:
        fields = messages()[name]
        by_key = {key: field for field in fields for key in (field, snake(field))}
        for key in list(value):
            field = by_key.get(key)
            if field is None:
                continue  # not a field of the message: the schema names it
            kind, item = fields[field], value[key]
            if _is_default(kind, item):
                del value[key]
            elif kind.startswith("message ") and isinstance(item, dict):
                self.message(kind.split(" ", 1)[1], item, f"{where}{key}.")
            elif kind.startswith("messages ") and isinstance(item, list):
                for index, one in enumerate(item):
                    if isinstance(one, dict):
                        self.message(kind.split(" ", 1)[1], one, f"{where}{key}[{index}].")
            elif kind.startswith("enum ") and isinstance(item, int) and not isinstance(item, bool):
                value[key] = self._enum(name, field, item, f"{where}{key}")

    def _enum(self, message: str, field: str, number: int, where: str) -> Any:
        name = enum_values(message, field).get(number)
        if name is None:
            return number  # not a number of this enum: the reader after this one refuses it by name
        self.notes.append(f"{where}: {number} is {name}: the REST API reads the number {number} of "
                          f"{message}.{field} as {name} (write the name: {where.rsplit('.', 1)[-1]}: {name})")
        return name


def read_message(value: dict[str, Any], message: str, notes: list[str]) -> None:
    """``value`` (a ``message``, in place) with its defaults unset and its known enum numbers named."""
    _Walk(notes).message(message, value, "")
