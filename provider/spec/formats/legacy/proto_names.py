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
renamed. A ``null`` field of a message (and the Job's ``labels: null``) is unset, as protobuf's JSON
mapping and gcloud's apitools read it, and named in a warning (as gcloud's config reader names one): Airflow's MLEngineStartTrainingJobOperator sends
``'scaleTier': None`` (JSON ``null``) when no tier is given. A field written in both spellings in one message is refused by name, as
``vertex/proto_names.py`` refuses it. ``read`` runs before the schema
(``provider/spec/formats/google_readers.py``); the renamed keys keep their lines, and every finding names
a field as the user wrote it (``provider/document/locate.py``: ``locate`` and ``as_written`` find a JSON
name by its proto name in the document as written).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from provider.spec.formats.schema_kit import Schema
from provider.spec.formats.vertex.keys import snake
from provider.spec.formats.vertex.proto_forms import Forms
from provider.spec.formats.vertex.proto_names import written_twice
from provider.spec.model import DocPath, Note

MARKER = "trainingInput"
_JOB_FIELDS = ("labels",)  # the Job's own fields beside trainingInput that a null leaves unset (jobId is required)
_SOURCE = "the REST API's JSON mapping of google.cloud.ml.v1 (a field by its JSON or its proto name)"


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
    out: dict[str, Any] = {}
    for key, item in value.items():
        if item is None:  # null is unset, as the REST API's JSON mapping and gcloud's --config read it
            notes.append(_null(path + (key,)))
            continue
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
    return out


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
    nulls = [k for k in _JOB_FIELDS if k in spec and spec[k] is None]
    job = {k: v for k, v in spec.items() if k not in nulls}
    return Forms({**data, "spec": {**job, MARKER: renamed}}, notes + tuple(_null(("spec", k)) for k in nulls))


def _null(path: DocPath) -> Note:
    where = ".".join(str(p) for p in path[1:])
    return Note(f"{where}: null is read as not set, as the REST API and gcloud read it (nothing is sent)", path,
                "aip.form.null", source=_SOURCE)
