"""Vertex AI's HyperparameterTuningJob as the spec body: ``studySpec`` beside ``trialJobSpec``.

The body of ``hyperparameterTuningJobs.create`` (REST camelCase), the ``--config`` file of
``gcloud ai hp-tuning-jobs create`` (the same message) and what ``gcloud ai hp-tuning-jobs
describe`` prints (its output-only fields read past with a warning each), with ``region``
beside it (or taken from a describe output's ``name``). Marked by ``studySpec`` (or
``study_spec``: the dicts the Python SDK's low-level client takes, snake_case; or by
``metric_spec``: the arguments of the SDK's ``aiplatform.HyperparameterTuningJob``, read by
``sdk.py``); the study in
``study.py``, the job in ``convert.py`` (the trial job is a CustomJobSpec, read by the Vertex
format's own reader), the schema fragment in ``schema.py``.
"""

from __future__ import annotations

from provider.spec.formats.base import Body, Format
from provider.spec.formats.schema_kit import Schema
from provider.spec.formats.vertex.keys import STUDY_MARKER, snake
from provider.spec.model import SourceFormat, TrainingJob
from provider.spec.reader import Node

MARKER = STUDY_MARKER
SNAKE_MARKER = snake(STUDY_MARKER)  # the same message in the Python SDK's low-level client's snake_case dicts
SDK_MARKER = "metric_spec"  # aiplatform.HyperparameterTuningJob's own arguments (sdk.py)


def _schema() -> dict[str, Schema]:
    from provider.spec.formats.vertex_tuning import schema  # built only when the schema is generated

    return schema.defs()


def _convert(doc: Node) -> TrainingJob:
    from provider.spec.envelope import body

    if SDK_MARKER in body(doc):
        from provider.spec.formats.vertex_tuning import sdk

        return sdk.convert(doc)
    from provider.spec.formats.vertex_tuning.convert import convert  # imported when a document of this format is read

    return convert(doc)


FORMAT = Format(
    source=SourceFormat.VERTEX_TUNING,
    title="a Vertex AI HyperparameterTuningJob",
    bodies=(Body(marker=MARKER, definition="vertexTuningJob"),
            Body(marker=SNAKE_MARKER, definition="vertexTuningJobSnake"),
            Body(marker=SDK_MARKER, definition="vertexTuningSdk")),
    schema=_schema,
    convert=_convert,
)
