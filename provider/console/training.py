"""The training pipelines and the model registry of the console's Vertex AI sources (the emulator
or Vertex AI itself), read through the same aiplatform_v1 clients the backend uses.

Pipelines and models are not a stack's: the SDK that creates them (``CustomTrainingJob.run()``,
``Model.upload``) sets no stack label. So each distinct Vertex AI place (endpoint, project,
region) of the chosen sources is read once, everything in it shown, its stack named as where it
was read. A place that cannot be read is reported, never fatal.
"""

from __future__ import annotations

from typing import Any

from provider.console.sources import Source, SourceError
from provider.core.backend_registry import capabilities
from provider.core.record import Record


class PipelineRow(Record):
    """One training pipeline: its state, and the job that ran it and the model it made, when known."""

    source: str
    id: str
    display_name: str
    state: str  # SUCCEEDED, RUNNING ... (PIPELINE_STATE_ taken off)
    create_time: str
    backing_job: str  # the backing CustomJob's ID, or ""
    model: str  # MODEL_ID@VERSION, or ""
    error: str


class ModelRow(Record):
    """One version of a registered model."""

    source: str
    id: str
    display_name: str
    version_id: str
    aliases: tuple[str, ...]
    artifact_uri: str
    image: str
    create_time: str


def _time(value: Any) -> str:
    return value.isoformat(timespec="seconds").replace("+00:00", "Z") if value else ""


def _pipeline(source: str, p: Any) -> PipelineRow:
    backing = str((p.training_task_metadata or {}).get("backingCustomJob", "")) if p.training_task_metadata else ""
    model = f"{p.model_to_upload.name.rsplit('/', 1)[-1]}@{p.model_to_upload.version_id}" \
        if p.model_to_upload and p.model_to_upload.name else ""
    return PipelineRow(source, p.name.rsplit("/", 1)[-1], p.display_name, p.state.name.removeprefix("PIPELINE_STATE_"),
                       _time(p.create_time), backing.rsplit("/", 1)[-1], model, p.error.message if p.error else "")


def _models(source: str, client: Any, parent: str) -> list[ModelRow]:
    out = []
    for model in client.list_models(parent=parent):
        for v in client.list_model_versions(name=model.name):
            out.append(ModelRow(source, v.name.rsplit("/", 1)[-1], v.display_name, v.version_id,
                                tuple(v.version_aliases), v.artifact_uri, v.container_spec.image_uri,
                                _time(v.version_create_time)))
    return out


def read(sources: list[Source]) -> tuple[list[PipelineRow], list[ModelRow], list[SourceError]]:
    """Every pipeline and model version of the sources' Vertex AI places, newest first."""
    pipelines: list[PipelineRow] = []
    models: list[ModelRow] = []
    errors: list[SourceError] = []
    seen: set[tuple[str, str, str]] = set()
    for source in sources:
        backend: Any = source.backend
        if not capabilities(source.kind).vertex_api:
            continue
        place = (str(backend.api_endpoint or ""), backend.project, backend.location)
        if place in seen:
            continue
        seen.add(place)
        parent = f"projects/{backend.project}/locations/{backend.location}"
        try:
            found = [_pipeline(source.name, p) for p in backend.client(service="PipelineServiceClient")
                     .list_training_pipelines(parent=parent)]
            pipelines += found
            models += _models(source.name, backend.client(service="ModelServiceClient"), parent)
        except Exception as exc:  # an unreachable endpoint, no credentials: said on the page, like a job source's
            errors.append(SourceError(f"{source.describe()}: its training pipelines and models cannot be read: "
                                      f"{type(exc).__name__}: {str(exc)[:300]}"))
    pipelines.sort(key=lambda r: r.create_time, reverse=True)
    models.sort(key=lambda r: (r.create_time, r.version_id), reverse=True)
    return pipelines, models, errors
