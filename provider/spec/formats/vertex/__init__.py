"""The Vertex AI format: a ``CustomJobSpec`` as the spec body, REST camelCase or the SDK's snake_case.

Marked by ``workerPoolSpecs`` (REST, gcloud ``--config``) or ``worker_pool_specs`` (the Python
SDK) in ``spec`` (``keys.py``). ``proto_forms.py`` first reads the body as Google's reader of
that style does (a camelCase body's field by its proto name too: ``proto_names.py``); conversion in ``convert.py``; the JSON Schema fragment (``vertexSpec``,
``vertexSpecSnake`` and their pools) in ``schema.py``.
"""

from __future__ import annotations

from provider.spec.formats.base import Body, Format
from provider.spec.formats.schema_kit import Schema
from provider.spec.formats.vertex.keys import CAMEL_MARKER, SNAKE_MARKER
from provider.spec.model import SourceFormat, TrainingJob
from provider.spec.reader import Node


def _schema() -> dict[str, Schema]:
    from provider.spec.formats.vertex import schema  # built only when the schema is generated

    return schema.defs()


def _convert(doc: Node) -> TrainingJob:
    from provider.spec.formats.vertex.convert import convert  # imported when a document of this format is read

    return convert(doc)


FORMAT = Format(
    source=SourceFormat.VERTEX,
    title="a Vertex AI CustomJobSpec",
    bodies=(Body(marker=CAMEL_MARKER, definition="vertexSpec"), Body(marker=SNAKE_MARKER, definition="vertexSpecSnake")),
    schema=_schema,
    convert=_convert,
)
