"""An AI Platform ``trainingInput``'s keys by either of protobuf's names, read as ml.googleapis.com reads them.

gcloud's apitools passes a key it does not know through as written (``gcloud ai-platform jobs
submit training --config``), and the REST API reads a field by its JSON name
(``useChiefInTfConfig``) or its proto name (``use_chief_in_tf_config``), in any mix: protobuf's
JSON mapping, as for Vertex AI (``provider/spec/formats/vertex/proto_names.py``).
tensorflow_cloud's ``projects.jobs.create`` body writes ``use_chief_in_tf_config`` among camelCase
keys (tensorflow/cloud ``src/python/tensorflow_cloud/core/deploy.py``).

The fields are the legacy schema's own (``schema.py``: ``trainingInput`` and the messages under it,
each field's proto name the snake_case of its JSON name), walked by their ``properties``; only the
keys of a message are read so: what a field holds as the user's data (args, a map, a string) is never
renamed. A field written in both spellings in one message is refused by name, as
``vertex/proto_names.py`` refuses it. A renamed message is a ``Renamed`` mapping that keeps the names
written, so the converter's notes name a field as the user wrote it (``as_written``). ``read`` runs before the schema (``provider/spec/formats/google_readers.py``); the renamed keys keep their lines (``provider/document/locate.py``
finds a JSON name by its proto name).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from provider.core.record import replace
from provider.spec.formats.schema_kit import Schema
from provider.spec.formats.vertex.keys import snake
from provider.spec.formats.vertex.proto_forms import Forms
from provider.spec.formats.vertex.proto_names import written_twice
from provider.spec.model import DocPath, Note

MARKER = "trainingInput"
_SOURCE = "the REST API's JSON mapping of google.cloud.ml.v1 (a field by its JSON or its proto name)"


class Renamed(dict[str, Any]):
    """A message whose fields are keyed by their JSON names, with the names the user wrote
    (``written``: JSON name -> proto name, for each key renamed), so a note names what was written."""

    written: dict[str, str]


class _Message:
    """A message of the legacy schema: its fields' proto names and what each holds."""

    def __init__(self, schema: Schema) -> None:
        props: dict[str, Schema] = schema.get("properties", {})
        self.by_proto = {snake(name): name for name in props if snake(name) != name}
        self.inner: dict[str, _Message] = {}
        for name, sub in props.items():
            item = sub.get("items", {}) if sub.get("type") == "array" else sub
            if isinstance(item, dict) and "properties" in item:  # a message (or a list of them), not user data
                self.inner[name] = _Message(item)


@cache
def _training_input() -> _Message:
    from provider.spec.formats.legacy.schema import defs  # built once, the first time a trainingInput is read

    return _Message(defs()["aiPlatformSpec"]["properties"][MARKER])


def _walk(message: _Message, value: dict[str, Any], path: DocPath, notes: list[Note]) -> dict[str, Any]:
    out, written = Renamed(), {}
    for key, item in value.items():
        json_name = message.by_proto.get(key, key)
        if json_name != key and json_name in value:
            where = ".".join(str(p) for p in path[1:])
            notes.append(written_twice(json_name, key, where, path, "aip.form.both_names", _SOURCE))
            continue
        inner = message.inner.get(json_name)
        if inner is not None and isinstance(item, dict):
            item = _walk(inner, item, path + (key,), notes)
        elif inner is not None and isinstance(item, list):
            item = [_walk(inner, v, path + (key, i), notes) if isinstance(v, dict) else v for i, v in enumerate(item)]
        out[json_name] = item
        if json_name != key:
            written[json_name] = key
    if not written:
        return dict(out)
    out.written = written
    return out


def as_written(root: Any, note: Note) -> Note:
    """``note`` naming each field on its path as the user wrote it (the path and the message alike)."""
    node, path, message, allowed = root, [], note.message, note.allowed
    for part in note.path:
        key = part
        if isinstance(node, Renamed) and isinstance(part, str) and part in node.written:
            key = node.written[part]
            word = re.compile(rf"\b{part}\b")
            message = word.sub(key, message)
            allowed = word.sub(key, allowed) if allowed else allowed
        path.append(key)
        node = _item(node, part)
    if tuple(path) == note.path:
        return note
    return replace(note, path=tuple(path), message=message, allowed=allowed)


def _item(node: Any, part: Any) -> Any:
    if isinstance(node, dict):
        return node.get(part)
    if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
        return node[part]
    return None


def json_names(training_input: dict[str, Any], path: DocPath) -> tuple[dict[str, Any], tuple[Note, ...]]:
    """``training_input`` with every field keyed by its JSON name (a copy), and the notes."""
    notes: list[Note] = []
    return _walk(_training_input(), training_input, path, notes), tuple(notes)


def read(data: Any) -> Forms:
    """``data`` with its AI Platform ``trainingInput`` keyed by each field's JSON name (a copy), and the notes;
    other documents unchanged."""
    spec = data.get("spec") if isinstance(data, dict) else None
    if not isinstance(spec, dict) or not isinstance(spec.get(MARKER), dict):
        return Forms(data)
    renamed, notes = json_names(spec[MARKER], ("spec", MARKER))
    return Forms({**data, "spec": {**spec, MARKER: renamed}}, notes)
