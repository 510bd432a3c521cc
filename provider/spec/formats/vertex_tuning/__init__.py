"""Vertex AI's HyperparameterTuningJob as the spec body: ``studySpec`` beside ``trialJobSpec``.

The body of ``hyperparameterTuningJobs.create`` (REST camelCase), the ``--config`` file of
``gcloud ai hp-tuning-jobs create`` (the same message) and what ``gcloud ai hp-tuning-jobs
describe`` prints (its output-only fields read past with a warning each), with ``region``
beside it (or taken from a describe output's ``name``). Marked by ``studySpec``; the study in
``study.py``, the job in ``convert.py`` (the trial job is a CustomJobSpec, read by the Vertex
format's own reader), the schema fragment in ``schema.py``.
"""

from __future__ import annotations

from provider.spec.formats.base import Body, Format
from provider.spec.formats.schema_kit import Schema
from provider.spec.model import SourceFormat, TrainingJob
from provider.spec.reader import Node

MARKER = "studySpec"


def _schema() -> dict[str, Schema]:
    from provider.spec.formats.vertex_tuning import schema  # built only when the schema is generated

    return schema.defs()


def _convert(doc: Node) -> TrainingJob:
    from provider.spec.formats.vertex_tuning.convert import convert  # imported when a document of this format is read

    return convert(doc)


FORMAT = Format(
    source=SourceFormat.VERTEX_TUNING,
    title="a Vertex AI HyperparameterTuningJob",
    bodies=(Body(marker=MARKER, definition="vertexTuningJob"),),
    schema=_schema,
    convert=_convert,
)
