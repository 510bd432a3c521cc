"""A REST-style Vertex AI body's keys by either of protobuf's names, read as the REST API reads them.

The REST API reads a request's JSON through protobuf's JSON mapping, which takes each field by its
JSON name (``baseOutputDirectory``) or by its proto name (``base_output_directory``), in any mix:
Google's own tensorboard ``customJobs.create`` example writes ``base_output_directory`` among
camelCase keys, and gcloud's ``--config`` passes such a key through as written. ``json_names``
gives such a body every field by its JSON name, walking it by message type down the API's own
field table (``provider/submission/api_types.json``, generated from the installed
google-cloud-aiplatform v1 descriptors; each field's proto name is the snake_case of its JSON
name). Only the keys of a message are read so: what a field holds as the user's data (labels and
other maps, args and other lists, a Struct or Duration, an environment variable's name and value)
is never renamed.

A field written in both spellings in one message is refused by name. protobuf's Python
``json_format.Parse`` (5.29, as installed) takes both and keeps the one written later, merging two
messages field by field; the order of a mapping's keys is no part of what YAML or JSON says, so
trainjobs does not guess which one the user meant.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from provider.spec.formats.vertex.keys import snake
from provider.spec.model import DocPath, Note

# The API's field table, generated beside provider/submission/api_types.py (which says what a kind
# means, and re-exports ``messages``): read here, the lowest layer that reads it (pyproject.toml
# [tool.importlinter]), once.
_TABLE = Path(__file__).resolve().parents[3] / "submission" / "api_types.json"
_SOURCE = "the REST API's JSON mapping of google.cloud.aiplatform.v1 (a field by its JSON or its proto name)"


@cache
def table(part: str) -> dict[str, Any]:
    """One part of the table: ``messages``, ``enums`` (by field) or ``enum_types`` (by type: its module, members)."""
    whole: dict[str, dict[str, Any]] = json.loads(_TABLE.read_text(encoding="utf-8"))
    return whole[part]


def messages() -> dict[str, dict[str, str]]:
    """Message name (``StudySpec.ParameterSpec`` for a nested one) -> JSON field name -> kind."""
    return table("messages")


@cache
def enum_values(message: str, field: str) -> dict[int, str]:
    """Number -> name of the enum field ``message.field`` (its JSON name), as the REST API reads a number."""
    return {int(number): name for number, name in table("enums").get(f"{message}.{field}", {}).items()}


@cache
def _proto_names(message: str, with_job: bool) -> dict[str, str]:
    """Proto name -> JSON name of ``message``'s fields whose two names differ (with CustomJob's own
    fields, less jobSpec, when ``with_job``: a spec body holds displayName and labels beside them)."""
    fields = dict(messages()[message])
    if with_job:
        fields.update({k: v for k, v in messages()["CustomJob"].items() if k != "jobSpec"})
    return {snake(name): name for name in fields if snake(name) != name}


def written_twice(json_name: str, key: str, where: str, path: DocPath, rule: str, source: str = _SOURCE) -> Note:
    """The refusal of a field written by both its names in one message (``where``: "this CustomJob")."""
    return Note(f"{json_name} is written twice in {where}: as {json_name} and as {key}, its proto name; protobuf's "
                "JSON reader takes both as the one field (its Python json_format keeps whichever comes later), so "
                "trainjobs refuses to guess", path + (key,), rule, source,
                allowed=f"one of them: keep {json_name} (the REST API's JSON name), remove {key}", error=True)


class _Walk:
    def __init__(self) -> None:
        self.notes: list[Note] = []
        self.spellings: set[bool] = set()  # True: a key by its JSON name, False: by its proto name (where they differ)

    def message(self, name: str, value: dict[str, Any], path: DocPath, with_job: bool = False) -> dict[str, Any]:
        fields = messages()[name]
        if with_job:
            fields = {**messages()["CustomJob"], **fields}
        by_proto = _proto_names(name, with_job)
        out: dict[str, Any] = {}
        for key, item in value.items():
            json_name = by_proto.get(key, key)
            if json_name in fields and snake(json_name) != json_name:
                self.spellings.add(json_name == key)
            if json_name != key and json_name in value:
                owner = "CustomJob" if with_job and json_name not in messages()[name] else name
                self.notes.append(written_twice(json_name, key, f"this {owner}", path, "vertex.form.both_names"))
                continue
            out[json_name] = self._field(fields.get(json_name), item, path + (key,))
        return out

    def _field(self, kind: str | None, item: Any, path: DocPath) -> Any:
        if kind is None:
            return item  # a key the message does not have: the schema names it
        if kind.startswith("message ") and isinstance(item, dict):
            return self.message(kind[len("message "):], item, path)
        if kind.startswith("messages "):
            inner = kind[len("messages "):]
            if isinstance(item, dict):  # gcloud reads one mapping as a one-item list (proto_reader.py)
                return self.message(inner, item, path)
            if isinstance(item, list):
                return [self.message(inner, v, path + (i,)) if isinstance(v, dict) else v for i, v in enumerate(item)]
        return item  # a scalar, a list, a map, a well-known type: the user's data, as written


def json_names(body: dict[str, Any], message: str, path: DocPath) -> tuple[dict[str, Any], tuple[Note, ...]]:
    """``body`` (a ``CustomJobSpec`` spec body with its CustomJob's own fields, or a
    ``HyperparameterTuningJob``) with every field keyed by its JSON name; a copy, and the notes."""
    walk = _Walk()
    out = walk.message(message, body, path, with_job=message == "CustomJobSpec")
    return out, tuple(walk.notes)


def mixed(body: dict[str, Any], message: str) -> bool:
    """Whether ``body`` (a ``message``) names some fields by their JSON names and others by their proto names."""
    walk = _Walk()
    walk.message(message, body, ())
    return len(walk.spellings) == 2
