"""JSON Schema (draft 2020-12) for TrainingJob specs, generated from the catalog.

The catalog is the one source of truth: machine types, regions, accelerators and the valid
accelerator counts per machine type become enums and if/then rules, so an editor that uses
the schema (``# yaml-language-server: $schema=...``) rejects an impossible GPU combination
while the user types. ``tools/schema/generate.py`` writes the result to ``schemas/``; a test
keeps the committed files equal to this output.

This module only assembles: each input format's fragment comes from its own package
(``provider/spec/formats/*/schema.py``), registered in ``provider/spec/formats/registry.py``;
here are the shared pieces (the definitions every format refers to, ``metadata``), the choice
of a body by its format's marker. The stack file's schema is ``provider/stack/schema.py``.

Descriptions double as the "allowed" text of validation messages.
"""

from __future__ import annotations

import json
from functools import cache

from provider.catalog import CATALOG, load
from provider.spec.envelope import API_VERSION, KIND
from provider.spec.formats.registry import FORMATS
from provider.spec.formats.schema_kit import DRAFT, Schema
from provider.spec.formats.schema_kit import obj as _obj
from provider.spec.formats.schema_kit import string as _str

SCHEMA_ID = "https://trainjobs.dev/schemas/trainingjob.schema.json"

__all__ = ["API_VERSION", "DRAFT", "SCHEMA_ID", "Schema", "common_defs", "render", "spec_schema"]


# -- shared definitions -----------------------------------------------------------------


def common_defs() -> Schema:
    """The definitions every format refers to (the stack schema takes some of them too)."""
    lim = CATALOG.limits()
    regions = sorted(CATALOG.regions)
    accelerators = sorted(a for a, rec in CATALOG.accelerators.items() if not rec.implied_by_machine_type)
    return {
        "jobName": _str(
            "letters, digits and underscores, starting with a letter, at most 128 characters "
            "(seeds 000 and 003)",
            pattern=lim["job_name"]["regex"],
        ),
        "labels": {
            "type": "object",
            "description": "Google label rules: at most 64 labels; keys start with a lowercase letter; keys and "
            "values use lowercase letters, digits, '_' and '-', at most 63 characters",
            "maxProperties": lim["labels"]["max_labels"],
            "propertyNames": {
                "pattern": lim["labels"]["key_regex"],
                "description": "a lowercase letter first, then lowercase letters, digits, '_' or '-'; at most 63 "
                "characters",
            },
            "additionalProperties": {
                "type": "string",
                "pattern": lim["labels"]["value_regex"],
                "description": "lowercase letters, digits, '_' or '-'; at most 63 characters",
            },
        },
        "duration": _str(
            "seconds with an 's' suffix, such as '3600s' (google.protobuf.Duration)",
            pattern=lim["duration"]["regex"],
        ),
        "metricId": _str("the metric the trainer reports (cloudml-hypertune's hyperparameter_metric_tag); Vertex AI "
                         "refuses a metric id with whitespace", pattern="^\\S+$", minLength=1),
        "studyTime": {"type": "object", "additionalProperties": False,
                      "properties": {"maxDuration": {"$ref": "#/$defs/duration"},
                                     "endTime": {"type": "string", "format": "date-time",
                                                 "description": "an RFC 3339 time, such as 2026-01-01T00:00:00Z"}},
                      "minProperties": 1, "maxProperties": 1,
                      "description": "a StudyTimeConstraint: maxDuration or endTime"},
        "gcsPath": _str("a Cloud Storage path: gs://BUCKET or gs://BUCKET/PATH", pattern=lim["job_dir"]["regex"]),
        "gcsBucket": _str("a Cloud Storage bucket: gs://BUCKET", pattern="^gs://[a-z0-9][-_.a-z0-9]{1,220}/?$"),
        "gcsObject": _str("a Cloud Storage object: gs://BUCKET/PATH", pattern=lim["package_uris"]["regex"]),
        "region": {"enum": regions, "description": "a Google Cloud region that offers custom training",
                   "errorMessage": "not a region that offers Vertex AI custom training (such as us-central1, "
                   "europe-west4, asia-southeast1); run trainjobs validate for the closest name"},
        "acceleratorType": {
            "enum": accelerators,
            "description": "an accelerator type of the Vertex AI API (AcceleratorType enum)",
            "errorMessage": "not an accelerator type of the Vertex AI API (such as NVIDIA_TESLA_T4, NVIDIA_L4, "
            "NVIDIA_TESLA_A100); run trainjobs validate for the closest name",
        },
        # "" and 0 are the API's defaults, written (gcloud sends them): pd-ssd and 100 GB.
        "diskType": {"enum": [*lim["boot_disk"]["types"], ""],
                     "description": "pd-ssd (default, also \"\"), pd-standard or hyperdisk-balanced"},
        "diskSizeGb": {
            "type": "integer",
            "if": {"const": 0},
            "else": {"minimum": lim["boot_disk"]["min_gb"], "maximum": lim["boot_disk"]["max_gb"]},
            "description": f"boot disk size in GB, {lim['boot_disk']['min_gb']} to {lim['boot_disk']['max_gb']} "
                           f"(0: the default, {lim['boot_disk']['default_gb']})",
        },
        "envName": _str("a C identifier: letters, digits and '_', not starting with a digit", pattern=lim["env"]["name_regex"]),
        "serviceAccount": _str(
            "a service account email",
            pattern="^[a-z0-9-]+@[a-z0-9.-]+\\.iam\\.gserviceaccount\\.com$|^[^@\\s]+@[^@\\s]+$",
        ),
        "desiredState": {
            "enum": ["COMPLETED", "CANCELLED"],
            "description": "COMPLETED (run the job to its end, the default) or CANCELLED (pulumi up cancels the job)",
        },
        "strategy": {
            "enum": lim["scheduling_strategies"]["vertex"],
            "description": "STANDARD (default), SPOT or FLEX_START (ON_DEMAND and LOW_COST are deprecated)",
        },
    }



def _metadata() -> Schema:
    return _obj(
        {
            "name": {"$ref": "#/$defs/jobName"},
            "team": _str("the owning team", pattern="^[a-z][a-z0-9-]{0,62}$"),
            "description": _str("what this job is for"),
            "displayName": _str("a free-text display name for Vertex AI (default: name)", maxLength=128),
            "labels": {"$ref": "#/$defs/labels"},
        },
        required=("name",),
        description="name (required), team, description, displayName, labels",
    )


# -- the choice of a format -----------------------------------------------------------------


def _spec_choice() -> Schema:
    """``spec``: the body of the first format whose marker it carries, else the fallback's.

    The formats and their order are the registry's, as in ``provider/spec/parse.py``.
    """
    fallback = next(f for f in FORMATS if f.is_fallback)
    choice: Schema = {"$ref": f"#/$defs/{fallback.bodies[0].definition}"}
    for fmt in reversed(FORMATS):
        for b in reversed(fmt.bodies):
            if b.marker is not None:
                choice = {"if": {"required": [b.marker]}, "then": {"$ref": f"#/$defs/{b.definition}"}, "else": choice}
    titles = [f.title for f in FORMATS]
    return {"type": "object", "description": f"the job: {', '.join(titles[:-1])}, or {titles[-1]}", **choice}


@cache
def spec_schema() -> Schema:
    """The TrainingJob schema; generated once per process from the catalog."""
    defs = common_defs()
    defs["metadata"] = _metadata()
    for fmt in FORMATS:
        defs.update(fmt.schema())
    defs["spec"] = _spec_choice()
    return {
        "$schema": DRAFT,
        "$id": SCHEMA_ID,
        "title": "trainjobs TrainingJob",
        "description": f"One training job for Vertex AI (catalog as of {load('catalog')['as_of']}).",
        "type": "object",
        "additionalProperties": False,
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "properties": {
            "$schema": {"type": "string"},
            "apiVersion": {"const": API_VERSION, "description": f"always {API_VERSION}"},
            "kind": {"const": KIND, "description": f"always {KIND}"},
            "metadata": {"$ref": "#/$defs/metadata"},
            "spec": {"$ref": "#/$defs/spec"},
        },
        "$defs": defs,
    }


def render(schema: Schema) -> str:
    return json.dumps(schema, indent=1, ensure_ascii=False) + "\n"
