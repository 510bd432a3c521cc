"""The AI Platform Training format: ``spec.trainingInput`` (config.yaml), with gcloud's flags beside it.

Marked by ``trainingInput`` in ``spec``. Conversion in ``convert.py`` (with ``pools.py``,
``application.py``, ``hyperparameters.py`` and the gcloud flags of ``flags.py``), the JSON
Schema fragment (``aiPlatformSpec``) in ``schema.py``.
"""

from __future__ import annotations

from provider.spec.formats.base import Body, CountTable, Format
from provider.spec.formats.legacy.convert import convert
from provider.spec.formats.schema_kit import Schema
from provider.spec.model import SourceFormat


def _schema() -> dict[str, Schema]:
    from provider.spec.formats.legacy import schema  # built only when the schema is generated

    return schema.defs()


FORMAT = Format(
    source=SourceFormat.AI_PLATFORM,
    title="an AI Platform trainingInput",
    bodies=(Body(marker="trainingInput", definition="aiPlatformSpec"),),
    schema=_schema,
    convert=convert,
    count_table=CountTable.AI_PLATFORM,
)
