"""The native format: ``spec.workerPools`` by role and ``spec.application``.

Read when no other format's marker is in ``spec``. Conversion in ``convert.py``, the JSON
Schema fragment (``nativeSpec``, ``nativePool``) in ``schema.py``.
"""

from __future__ import annotations

from provider.spec.formats.base import Body, Format
from provider.spec.formats.native.convert import convert
from provider.spec.formats.schema_kit import Schema
from provider.spec.model import SourceFormat


def _schema() -> dict[str, Schema]:
    from provider.spec.formats.native import schema  # built only when the schema is generated

    return schema.defs()


FORMAT = Format(
    source=SourceFormat.NATIVE,
    title="a native spec",
    bodies=(Body(marker=None, definition="nativeSpec"),),
    schema=_schema,
    convert=convert,
)
