"""The AI Platform Training format: ``spec.trainingInput`` (config.yaml), with gcloud's flags beside it.

Marked by ``trainingInput`` in ``spec``. Conversion in ``convert.py`` (with ``pools.py``,
``application.py``, ``hyperparameters.py`` and the gcloud flags of ``flags.py``), the JSON
Schema fragment (``aiPlatformSpec``) in ``schema.py``.
"""

from __future__ import annotations

from provider.spec.formats.base import Body, CountTable, Format
from provider.spec.formats.schema_kit import Schema
from provider.spec.model import SourceFormat, TrainingJob
from provider.spec.reader import Node


def _schema() -> dict[str, Schema]:
    from provider.spec.formats.legacy import schema  # built only when the schema is generated

    return schema.defs()


def _convert(doc: Node) -> TrainingJob:
    from provider.spec.formats.legacy.convert import convert  # imported when a document of this format is read

    return convert(doc)


FORMAT = Format(
    source=SourceFormat.AI_PLATFORM,
    title="an AI Platform trainingInput",
    bodies=(Body(marker="trainingInput", definition="aiPlatformSpec"),),
    schema=_schema,
    convert=_convert,
    count_table=CountTable.AI_PLATFORM,
)
