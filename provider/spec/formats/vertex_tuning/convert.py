"""A HyperparameterTuningJob body (REST, gcloud --config, or a describe output) -> TrainingJob.

The trial job is a CustomJobSpec, read by the Vertex format's own reader; the study by
``study.py``. The job's own fields (``displayName``, ``labels``, ``encryptionSpec``) apply to
the whole tuning job. Output-only fields (what ``describe`` prints: ``name``, ``state``,
``trials`` ...) are read past with a warning naming each, as ``hyperparameterTuningJobs.create``
ignores them; the region comes from ``region`` or, in a describe output, from ``name``.
The same message in the snake_case of the Python SDK's low-level client (``study_spec``,
``trial_job_spec``, ``max_trial_count``: the dicts ``JobServiceClient.create_hyperparameter_tuning_job``
takes) is read through ``Keys``, as the Vertex format reads ``worker_pool_specs``.
"""

from __future__ import annotations

import re

from provider.core.job_kinds import TUNING_JOB
from provider.core.record import replace
from provider.spec.envelope import body, merge_labels, metadata_fields
from provider.spec.formats.vertex.convert import custom_job
from provider.spec.formats.vertex.field_table import OUTPUT_ONLY
from provider.spec.formats.vertex.keys import Keys
from provider.spec.formats.vertex_tuning import SNAKE_MARKER
from provider.spec.formats.vertex_tuning.study import hyperparameters
from provider.spec.model import Note, SourceFormat, TrainingJob
from provider.spec.reader import ConversionError, Node

_NAME = re.compile(rf"^projects/[^/]+/locations/([^/]+)/{TUNING_JOB.collection}/[^/]+$")
SOURCE = "google/cloud/aiplatform_v1/types/hyperparameter_tuning_job.py (fields marked Output only)"


def _output_only(spec: Node, k: Keys) -> list[Note]:
    """A warning for each output-only field present: the service sets it, and create ignores it."""
    fields = OUTPUT_ONLY["HyperparameterTuningJob"]
    return [Note(f"{k(key)} is output only (set by the service; {fields[key]}): ignored, as "
                 "hyperparameterTuningJobs.create ignores it", spec.at(k(key)), "vx.hpt.output_only", SOURCE,
                 allowed="remove it, or keep it: it does not reach the request")
            for key in fields if k(key) in spec]


def _region(spec: Node) -> tuple[str | None, tuple[str | int, ...]]:
    region = spec.text("region")
    if region is not None:
        return region, spec.at("region")
    match = _NAME.match(spec.text("name") or "")
    return (match.group(1), spec.at("name")) if match else (None, spec.at("region"))


def convert(doc: Node) -> TrainingJob:
    meta = metadata_fields(doc)
    spec = body(doc)
    k = Keys(SNAKE_MARKER in spec)
    trial = spec.child(k("trialJobSpec"))
    if trial is None:
        raise ConversionError(f"{k('trialJobSpec')} is missing")
    job = custom_job(meta, trial)
    region, region_at = _region(spec)
    notes = _output_only(spec, k)
    hp = hyperparameters(spec, notes, k)
    encryption = spec.child(k("encryptionSpec"))
    kms = encryption.text(k("kmsKeyName")) if encryption is not None else None
    return replace(
        job,
        region=region,
        display_name=spec.text(k("displayName")) or meta.display_name,
        labels=merge_labels(meta.labels, spec.str_map("labels")),
        hyperparameters=hp,
        vertex=replace(job.vertex, kms_key_name=kms or job.vertex.kms_key_name,
                       at={**job.vertex.at, "kmsKey": spec.at(k("encryptionSpec"))}),
        source_format=SourceFormat.VERTEX_TUNING,
        desired_state=spec.text(k("desiredState")) or "COMPLETED",
        notes=tuple(notes) + job.notes,
        at={**job.at, "region": region_at},
    )
