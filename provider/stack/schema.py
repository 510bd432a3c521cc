"""JSON Schema (draft 2020-12) for stack files (stacks/Pulumi.<stack>.yaml), generated from the catalog.

It shares the spec schema's definitions (regions, labels, durations, disks: ``provider/spec/schema.py``)
and adds the stack settings: backend, team, specs, quotas, policy, wait policy and retention
(``settings.py``), persistent resources (``persistent.py``), and each registered backend type's own
keys and required keys (provider.core.backend_registry). ``tools/schema/generate.py`` writes
it to ``schemas/stack.schema.json``; a test keeps the committed file equal to this output.
"""

from __future__ import annotations

from functools import cache

from provider.catalog import CATALOG
from provider.core.backend_registry import REGISTRY, kinds
from provider.spec.formats.schema_kit import DRAFT, Schema
from provider.spec.formats.schema_kit import obj as _obj
from provider.spec.formats.schema_kit import string as _str
from provider.spec.schema import common_defs
from provider.stack.owners import ALLOWED_FOLDER, ALLOWED_OWNER, FOLDER_PATTERN, OWNER_PATTERN
from provider.stack.persistent import schema_fragment as persistent_resources_schema
from provider.stack.settings import Retention, WaitUntil

__all__ = ["STACK_SCHEMA_ID", "stack_schema"]

STACK_SCHEMA_ID = "https://trainjobs.dev/schemas/stack.schema.json"


@cache
def stack_schema() -> Schema:
    """The schema of a stack file (stacks/Pulumi.<stack>.yaml)."""
    common = common_defs()
    accelerators = sorted(a for a, rec in CATALOG.accelerators.items() if not rec.implied_by_machine_type)
    config = _obj(
        {
            "trainjobs:backend": {"enum": list(kinds()),
                                  "description": f"where the stack's jobs run: {' or '.join(kinds())}"},
            "trainjobs:team": _str("the team that owns the stack", pattern="^[a-z][a-z0-9-]{0,62}$"),
            "trainjobs:environment": _str("the environment, such as dev or prod", pattern="^[a-z][a-z0-9-]{0,30}$"),
            "trainjobs:specs": {
                "type": "array",
                "minItems": 1,
                "items": _str("a glob of spec files, relative to the project root (specs/vision/*.yaml)",
                              pattern="^specs/"),
                "description": "which specs belong to the stack: globs under specs/",
            },
            "trainjobs:quotas": _obj(
                {
                    "maxGpusPerJob": {"type": "integer", "minimum": 0, "description": "GPUs one job may hold at once"},
                    "maxGpusPerStack": {"type": "integer", "minimum": 0,
                                        "description": "GPUs all the stack's jobs may hold together"},
                    "allowedAccelerators": {"type": "array", "items": {"enum": accelerators},
                                            "description": "accelerator types the stack may use"},
                    "allowedRegions": {"type": "array", "items": {"$ref": "#/$defs/region"},
                                       "description": "regions the stack's jobs may run in"},
                    "maxRunningTime": {"$ref": "#/$defs/duration",
                                       "description": "the longest maxRunningTime a job may ask for"},
                },
                description="maxGpusPerJob, maxGpusPerStack, allowedAccelerators, allowedRegions, maxRunningTime",
            ),
            "trainjobs:policy": _obj(
                {
                    "requiredLabels": {"type": "array", "items": _str("a label key every job must carry"),
                                       "description": "label keys every job of the stack must carry"},
                    "owners": {
                        "type": "object",
                        "description": "who owns which specs/ folder: folder -> owners (GitHub users or teams)",
                        "propertyNames": {"pattern": FOLDER_PATTERN, "description": ALLOWED_FOLDER},
                        "additionalProperties": {"type": "array", "items": _str(ALLOWED_OWNER, pattern=OWNER_PATTERN)},
                    },
                },
                description="requiredLabels and owners",
            ),
            "trainjobs:labels": {"$ref": "#/$defs/labels"},
            "trainjobs:wait": _obj(
                {
                    "until": {"enum": list(WaitUntil.values()),
                              "description": "none (submit and go on), running, or completion"},
                    "timeout": {"$ref": "#/$defs/duration"},
                },
                required=("until",),
                description="how long pulumi up waits for each job: until none, running or completion",
            ),
            "trainjobs:retention": {"enum": list(Retention.values()),
                                    "description": "on destroy, keep or delete the job records"},
            "trainjobs:bucket": _str("the team bucket's name (default: PROJECT-TEAM-ENVIRONMENT-trainjobs)",
                                     pattern="^[a-z0-9][-_.a-z0-9]{1,61}[a-z0-9]$"),
            "trainjobs:buckets": {
                "type": "object",
                "description": "other buckets the specs use, with their region",
                "additionalProperties": {"$ref": "#/$defs/region"},
            },
            "trainjobs:deployer": _str("the IAM member that runs pulumi up and may act as the jobs' service account",
                                       pattern="^(user|group|serviceAccount|domain):.+$"),
            **{key: dict(schema) for t in REGISTRY for key, schema in t.stack_keys.items()},  # each backend's own
            "trainjobs:secretEnv": {
                "type": "object",
                "description": "environment variables for every job of the stack whose values stay secret: "
                "pulumi config set --secret --path 'trainjobs:secretEnv.NAME' VALUE",
                "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
                "additionalProperties": {"anyOf": [{"type": "string"},
                                                   {"type": "object", "required": ["secure"],
                                                    "properties": {"secure": {"type": "string"}}}]},
            },
            "trainjobs:replace": {"enum": ["deleteFirst", "createFirst"],
                                  "description": "when a change replaces a job: deleteFirst (the default: the old "
                                  "job is cancelled before the new one starts) or createFirst"},
            "trainjobs:customTimeouts": _obj(
                {k: {"$ref": "#/$defs/duration"} for k in ("create", "update", "delete")},
                description="Pulumi customTimeouts for each job: create, update, delete (the shorter of create "
                "and trainjobs:wait's timeout wins)"),
            "trainjobs:manageApis": {"enum": [True, False, "true", "false"],  # the engine passes "false"
                                     "description": "enable the project's APIs and create the Vertex AI service "
                                     "agent (default true; false where APIs are managed centrally)"},
            "trainjobs:adopt": {
                "type": "object",
                "description": "existing jobs to record under specs instead of starting them: job name -> job id "
                "or resource name",
                "propertyNames": {"pattern": "^[A-Za-z0-9_-]+$"},
                "additionalProperties": _str("a job id or projects/P/locations/L/customJobs/ID", pattern="^[^\\s]+$"),
            },
            "trainjobs:persistentResources": persistent_resources_schema(sorted(CATALOG.vertex_machine_names()),
                                                                         accelerators),
            "gcp:project": _str("the Google Cloud project", pattern="^[a-z][a-z0-9-]{4,28}[a-z0-9]$"),
            "gcp:region": {"$ref": "#/$defs/region"},
        },
        required=("trainjobs:backend", "trainjobs:team", "trainjobs:specs", "gcp:region"),
        description="trainjobs:* settings and gcp:project / gcp:region",
        allOf=[{
            "if": {"properties": {"trainjobs:backend": {"const": t.kind}}, "required": ["trainjobs:backend"]},
            "then": {"required": list(t.required_keys),
                     "description": f"a {t.kind} stack needs {' and '.join(t.required_keys)}"},
        } for t in REGISTRY if t.required_keys],
    )
    config["patternProperties"] = {"^(?!trainjobs:|gcp:)[a-z][a-z0-9-]*:[A-Za-z0-9_]+$": {}}
    return {
        "$schema": DRAFT,
        "$id": STACK_SCHEMA_ID,
        "title": "trainjobs stack config",
        "description": "A Pulumi stack file for one team and environment (stacks/Pulumi.<stack>.yaml).",
        "type": "object",
        "additionalProperties": False,
        "required": ["config"],
        "properties": {
            "config": config,
            "secretsprovider": {"type": "string"},
            "encryptionsalt": {"type": "string"},
            "environment": {},
        },
        "$defs": {k: common[k] for k in ("labels", "duration", "region", "diskType", "diskSizeGb")},
    }
