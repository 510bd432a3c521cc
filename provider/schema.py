"""JSON Schema (draft 2020-12) for TrainingJob specs, generated from the catalog.

The catalog is the one source of truth: machine types, regions, accelerators and the valid
accelerator counts per machine type become enums and if/then rules here, so an editor that
uses the schema (``# yaml-language-server: $schema=...``) rejects an impossible GPU
combination while the user types. ``tools/schema/generate.py`` writes the result to
``schemas/``; a test keeps the committed files equal to this output.

Descriptions double as the "allowed" text of validation messages.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from provider.catalog import CATALOG, load
from provider.stack.persistent import schema_fragment as persistent_resources_schema
from provider.stack.settings import Retention, WaitUntil

API_VERSION = "trainjobs/v1"
SCHEMA_ID = "https://trainjobs.dev/schemas/trainingjob.schema.json"
DRAFT = "https://json-schema.org/draft/2020-12/schema"

Schema = dict[str, Any]

ROLES = ("chief", "workers", "parameterServers", "evaluators")
LEGACY_ROLES = ("master", "worker", "parameterServer", "evaluator")


def _limits() -> dict[str, Any]:
    return CATALOG.limits()


def _str(description: str, **extra: Any) -> Schema:
    return {"type": "string", "description": description, **extra}


def _strings(description: str, **extra: Any) -> Schema:
    return {"type": "array", "items": {"type": "string"}, "description": description, **extra}


def _obj(properties: dict[str, Schema], required: tuple[str, ...] = (), description: str = "", **extra: Any) -> Schema:
    out: Schema = {"type": "object", "additionalProperties": False, "properties": properties}
    if required:
        out["required"] = list(required)
    if description:
        out["description"] = description
    out.update(extra)
    return out


def _int64(description: str, minimum: int = 0) -> Schema:
    """int64 fields: YAML writes a number, the REST API's JSON a decimal string."""
    return {
        "description": description,
        "anyOf": [{"type": "integer", "minimum": minimum}, {"type": "string", "pattern": "^[0-9]+$"}],
    }


# -- shared definitions -----------------------------------------------------------------


def _defs_common() -> Schema:
    lim = _limits()
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
        "diskType": {"enum": lim["boot_disk"]["types"], "description": "pd-ssd (default), pd-standard or hyperdisk-balanced"},
        "diskSizeGb": {
            "type": "integer",
            "minimum": lim["boot_disk"]["min_gb"],
            "maximum": lim["boot_disk"]["max_gb"],
            "description": f"boot disk size in GB, {lim['boot_disk']['min_gb']} to {lim['boot_disk']['max_gb']}",
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


# -- accelerator compatibility: the seed 001 table and the Vertex AI table --------------


@cache
def _groups(table: str) -> list[tuple[list[str], dict[str, list[int]], bool, list[str] | None]]:
    """Machine types grouped by identical accelerator rules, so the schema stays small."""
    names = CATALOG.vertex_machine_names() + [m for m in CATALOG.ai_platform_machine_names() if m not in CATALOG.vertex_machine_names()]
    if table == "ai_platform":
        names = CATALOG.ai_platform_machine_names()
    groups: dict[str, tuple[list[str], dict[str, list[int]], bool, list[str] | None]] = {}
    for name in names:
        counts = CATALOG.counts("ai_platform", name) if table == "ai_platform" else CATALOG.seed_counts(name)
        machine = CATALOG.machine(name)
        requires = bool(machine and machine.requires_accelerator and CATALOG.tpu_topologies(name) is None)
        topologies = CATALOG.tpu_topologies(name)
        key = json.dumps([counts, requires, topologies], sort_keys=True)
        groups.setdefault(key, ([], counts, requires, topologies))[0].append(name)
    return list(groups.values())


def _counts_text(counts: dict[str, list[int]]) -> str:
    return "; ".join(f"{acc}: {', '.join(map(str, c))}" for acc, c in sorted(counts.items()))


def _nested_rules(table: str, machine_key: str, acc_key: str, type_key: str, count_key: str,
                  int64: bool = False) -> list[Schema]:
    """if machineType in GROUP then the accelerator must fit GROUP (accelerator as an object).

    ``int64``: counts may also be written as the REST API writes int64 values ("4").
    """
    rules: list[Schema] = []
    for machines, counts, requires, topologies in _groups(table):
        cond = {"properties": {machine_key: {"enum": machines}}, "required": [machine_key]}
        then: Schema
        label = ", ".join(machines[:4]) + (" ..." if len(machines) > 4 else "")
        if topologies is not None:
            then = {
                "description": f"{label} are TPU machine types: set tpuTopology ({', '.join(topologies)}), no accelerator",
                "properties": {acc_key: False, "tpuTopology": {"enum": topologies}},
                "required": ["tpuTopology"],
            }
        elif not counts:
            then = {"description": f"{label} take no accelerators", "properties": {acc_key: False, "tpuTopology": False}}
        else:
            per_type = [
                {
                    "if": {"properties": {type_key: {"const": acc}}, "required": [type_key]},
                    "then": {
                        "properties": {
                            count_key: _count_enum(c + [str(x) for x in c] if int64 else c, acc, label, c)
                        }
                    },
                }
                for acc, c in sorted(counts.items())
            ]
            then = {
                "description": f"accelerators for {label}: {_counts_text(counts)}",
                "properties": {
                    acc_key: {
                        "properties": {
                            type_key: _fitting_types(sorted(counts), label),
                        },
                        "allOf": per_type,
                    },
                    "tpuTopology": False,
                },
            }
            if requires:
                then["required"] = [acc_key]
        rules.append({"if": cond, "then": then})
    return rules


def _count_enum(allowed: list[Any], acc: str, label: str, counts: list[int]) -> Schema:
    """The counts that fit; checked only on a number, so a count written as a string gets one
    message (its type) in an editor, not two."""
    words = ", ".join(map(str, counts))
    kinds = ["integer", "string"] if any(isinstance(a, str) for a in allowed) else ["integer"]
    return {
        "description": f"{words} x {acc} on {label}",
        "if": {"type": kinds},
        "then": {"enum": allowed, "errorMessage": f"{acc} on {label} comes in counts of {words}"},
    }


def _fitting_types(types: list[str], label: str) -> Schema:
    """The accelerator types that fit; checked only on a known type, so an unknown one gets one message."""
    text = ", ".join(types)
    return {"description": f"accelerators that fit {label}: {text}", "if": {"$ref": "#/$defs/acceleratorType"},
            "then": {"enum": types, "errorMessage": f"this accelerator does not fit {label}; these do: {text}"}}


def machine_type_schema(names: list[str]) -> Schema:
    """A machine type, with what an editor shows: each type's shape on hover and in completion,
    and a short message for a name it does not know (``trainjobs validate`` names the closest)."""
    def shape(name: str) -> str:
        m = CATALOG.machine(name)
        if m is None or m.vcpus is None:
            return name
        memory = f"{m.memory_gb:g} GB" if m.memory_gb is not None else "memory unknown"
        fits = sorted({acc for acc, counts in CATALOG.seed_counts(name).items() if counts}) if not \
            CATALOG.tpu_topologies(name) else ["TPU slice"]
        return f"{m.vcpus:g} vCPUs, {memory}" + (f"; accelerators: {', '.join(fits)}" if fits else "")

    return {
        "enum": names,
        "description": "a machine type Vertex AI offers for training",
        "markdownDescription": "A Compute Engine machine type Vertex AI offers for training, such as "
        "`n1-standard-4`, `n1-highcpu-16` with GPUs attached, or `a2-highgpu-1g` (A100 built in).",
        "markdownEnumDescriptions": [shape(n) for n in names],
        "errorMessage": "not a machine type Vertex AI offers for training (such as n1-standard-4, e2-standard-8, "
        "a2-highgpu-1g); run trainjobs validate for the closest name",
    }


def _flat_rules(machine_key: str, type_key: str, count_key: str, topology_key: str) -> list[Schema]:
    """The same rules for Vertex's flat machineSpec {machineType, acceleratorType, acceleratorCount}."""
    rules: list[Schema] = []
    for machines, counts, requires, topologies in _groups("vertex"):
        cond = {"properties": {machine_key: {"enum": machines}}, "required": [machine_key]}
        label = ", ".join(machines[:4]) + (" ..." if len(machines) > 4 else "")
        then: Schema
        if topologies is not None:
            then = {
                "description": f"{label} are TPU machine types: set {topology_key} ({', '.join(topologies)})",
                "properties": {topology_key: {"enum": topologies}},
                "required": [topology_key],
            }
        elif not counts:
            then = {
                "description": f"{label} take no accelerators",
                "properties": {type_key: False, count_key: False, topology_key: False},
            }
        else:
            then = {
                "description": f"accelerators for {label}: {_counts_text(counts)}",
                "properties": {
                    type_key: _fitting_types(sorted(counts), label),
                    topology_key: False,
                },
                "allOf": [
                    {
                        "if": {"properties": {type_key: {"const": acc}}, "required": [type_key]},
                        "then": {
                            "properties": {count_key: _count_enum(c, acc, label, c)},
                            "required": [count_key],
                        },
                    }
                    for acc, c in sorted(counts.items())
                ],
            }
            if requires:
                then["required"] = [type_key]
        rules.append({"if": cond, "then": then})
    return rules


# -- the native format -------------------------------------------------------------------


def _native_pool_ref(role: str) -> Schema:
    if role != "chief":
        return {"$ref": "#/$defs/nativePool", "description": f"the {role} pool"}
    return {
        "$ref": "#/$defs/nativePool",
        "description": "the chief pool (worker pool 0)",
        "properties": {"replicas": {"const": 1, "description": "the chief (worker pool 0) has exactly one replica"}},
    }


def _native_pool() -> Schema:
    machine_names = sorted(set(CATALOG.vertex_machine_names()) | set(CATALOG.ai_platform_machine_names()))
    replicas: Schema = {"type": "integer", "minimum": 1, "description": "number of replicas in this pool"}
    return _obj(
        {
            "machineType": machine_type_schema(machine_names),
            "replicas": replicas,
            "accelerator": _obj(
                {
                    "type": {"$ref": "#/$defs/acceleratorType"},
                    "count": {"type": "integer", "minimum": 1, "description": "accelerators per replica"},
                },
                required=("type", "count"),
                description="accelerators attached to each replica",
            ),
            "tpuTopology": _str("TPU slice topology, for ct5lp, ct6e and tpu7x machine types"),
            "reservationAffinity": _reservation_affinity(lambda name: name),
            "disk": _obj(
                {"type": {"$ref": "#/$defs/diskType"}, "sizeGb": {"$ref": "#/$defs/diskSizeGb"}},
                description="the boot disk of every VM in the pool",
            ),
            "image": _str("a container image for this pool instead of the job's (e.g. Reduction Server)"),
            "command": _strings("the container command for this pool"),
            "args": _strings("the container or module args for this pool"),
        },
        required=("machineType",),
        description="a worker pool: machineType, replicas, accelerator, disk",
        allOf=_nested_rules("vertex", "machineType", "accelerator", "type", "count"),
    )


def _hyperparameters_native() -> Schema:
    hp = _limits()["hyperparameters"]
    param = _obj(
        {
            "name": _str("the parameter name, passed to the trainer as --NAME=VALUE", pattern="^\\S+$"),
            "type": {"enum": ["DOUBLE", "INTEGER", "CATEGORICAL", "DISCRETE"]},
            "min": {"type": "number"},
            "max": {"type": "number"},
            "values": {"type": "array", "minItems": 1, "maxItems": hp["max_discrete_values"],
                       "items": {"type": ["string", "number"]}},
            "scale": {"enum": ["UNIT_LINEAR_SCALE", "UNIT_LOG_SCALE", "UNIT_REVERSE_LOG_SCALE"]},
        },
        required=("name", "type"),
        description="a hyperparameter: DOUBLE and INTEGER take min and max; CATEGORICAL and DISCRETE take values",
        allOf=[
            {"if": {"properties": {"type": {"enum": ["DOUBLE", "INTEGER"]}}},
             "then": {"required": ["min", "max"], "properties": {"values": False},
                      "description": "DOUBLE and INTEGER parameters take min and max, not values"}},
            {"if": {"properties": {"type": {"const": "CATEGORICAL"}}},
             "then": {"required": ["values"], "properties": {"min": False, "max": False, "scale": False,
                                                            "values": {"items": {"type": "string"}}},
                      "description": "CATEGORICAL parameters take a list of strings as values, no scale"}},
            {"if": {"properties": {"type": {"const": "DISCRETE"}}},
             "then": {"required": ["values"], "properties": {"min": False, "max": False,
                                                            "values": {"items": {"type": "number"}}},
                      "description": "DISCRETE parameters take an increasing list of numbers as values"}},
        ],
    )
    return _obj(
        {
            "goal": {"enum": ["MAXIMIZE", "MINIMIZE"]},
            "metric": _str("the metric tag the trainer reports (cloudml-hypertune hyperparameter_metric_tag)"),
            "params": {"type": "array", "minItems": 1, "items": param},
            "maxTrials": {"type": "integer", "minimum": 1},
            "maxParallelTrials": {"type": "integer", "minimum": 1},
            "maxFailedTrials": {"type": "integer", "minimum": 0},
            "algorithm": {"enum": ["ALGORITHM_UNSPECIFIED", "GRID_SEARCH", "RANDOM_SEARCH"],
                          "description": "ALGORITHM_UNSPECIFIED (Bayesian optimisation), GRID_SEARCH or RANDOM_SEARCH"},
        },
        required=("goal", "metric", "params"),
        description="hyperparameter tuning: goal, metric, params, maxTrials, maxParallelTrials, algorithm",
    )


def _native_spec() -> Schema:
    lim = _limits()
    pools = _obj(
        {role: _native_pool_ref(role) for role in ROLES},
        required=("chief",),
        description="worker pools by role: chief (required, one replica), workers, parameterServers, evaluators",
    )
    package = _obj(
        {
            "path": _str("a local directory holding the Python package, relative to this file (gcloud --package-path)"),
            "uris": _strings("gs:// URIs of built packages", maxItems=lim["package_uris"]["max"],
                             items={"$ref": "#/$defs/gcsObject"}),
            "module": _str("the module to run with python -m, such as trainer.task"),
            "args": _strings("arguments for the module"),
            "executorImage": _str("a Vertex AI prebuilt training container (pythonPackageSpec.executorImageUri)"),
            "runtimeVersion": _str("an AI Platform runtime version, such as '2.11'; mapped to a prebuilt container"),
            "pythonVersion": _str("the Python version that goes with runtimeVersion, such as '3.7'"),
        },
        required=("module",),
        description="a Python package: path or uris, module, args",
        anyOf=[{"required": ["path"]}, {"required": ["uris"]}],
    )
    container = _obj(
        {
            "image": _str("the container image URI"),
            "build": _obj(
                {"context": _str("the build context directory, relative to this file"),
                 "dockerfile": _str("the Dockerfile, relative to the context")},
                required=("context",),
                description="build the image from source and push it to the team's registry",
            ),
            "command": _strings("overrides the image ENTRYPOINT"),
            "args": _strings("arguments for the container"),
        },
        description="a container: image (or build), command, args",
        anyOf=[{"required": ["image"]}, {"required": ["build"]}],
    )
    return _obj(
        {
            "region": {"$ref": "#/$defs/region"},
            "workerPools": pools,
            "application": _obj(
                {"pythonPackage": package, "container": container},
                description="exactly one of pythonPackage or container",
                minProperties=1,
                maxProperties=1,
            ),
            "args": _strings("user args, appended after the application's args (gcloud's args after --)"),
            "env": {
                "type": "object",
                "description": "environment variables for every replica (at most 100; values are strings)",
                "maxProperties": lim["env"]["max"],
                "propertyNames": {"$ref": "#/$defs/envName"},
                "additionalProperties": {"type": "string"},
            },
            "jobDir": {"$ref": "#/$defs/gcsPath", "description": "output directory, also passed to the trainer as --job-dir"},
            "baseOutputDirectory": {"$ref": "#/$defs/gcsPath",
                                    "description": "output directory (sets AIP_MODEL_DIR and friends, no --job-dir)"},
            "stagingBucket": {"$ref": "#/$defs/gcsBucket"},
            "scheduling": _obj(
                {
                    "maxWaitTime": {"$ref": "#/$defs/duration"},
                    "maxRunningTime": {"$ref": "#/$defs/duration"},
                    "restartJobOnWorkerRestart": {"type": "boolean"},
                    "strategy": {"$ref": "#/$defs/strategy"},
                    "disableRetries": _JOB_FIELD_SCHEMAS["disableRetries"],
                    "maxWaitDuration": {"$ref": "#/$defs/duration",
                                        "description": "Vertex AI's max wait for FLEX_START jobs (no 1800s minimum)"},
                },
                description="maxWaitTime (or maxWaitDuration), maxRunningTime, restartJobOnWorkerRestart, strategy, "
                "disableRetries",
                **_WAIT_ALTERNATIVES,
            ),
            "serviceAccount": {"$ref": "#/$defs/serviceAccount"},
            **_job_fields(lambda name: name),
            "hyperparameters": _hyperparameters_native(),
            "labels": {"$ref": "#/$defs/labels"},
            "desiredState": {"$ref": "#/$defs/desiredState"},
        },
        required=("region", "workerPools", "application"),
        description="a native spec: region, workerPools, application, and optional outputs, scheduling, tuning",
        **{"not": {"required": ["jobDir", "baseOutputDirectory"],
                   "description": "jobDir and baseOutputDirectory are alternatives: set one"}},
    )


# -- AI Platform's trainingInput ---------------------------------------------------------


def _pattern(field: str) -> str:
    pattern: str = CATALOG.job_fields()[field]["pattern"]
    return pattern


_WAIT_ALTERNATIVES: dict[str, Any] = {"not": {
    "required": ["maxWaitTime", "maxWaitDuration"],
    "description": "maxWaitTime and maxWaitDuration are alternatives: set one"}}

_JOB_FIELD_SCHEMAS: dict[str, Schema] = {
    "disableRetries": {"type": "boolean",
                       "description": "no retry after internal errors once running (overrides restartJobOnWorkerRestart)"},
}


def _job_fields(k: Any) -> dict[str, Schema]:
    """Today's CustomJobSpec fields (tools/catalog/curated/vertex_job_fields.json), in the key style ``k``."""
    return {
        k("persistentResourceId"): _str(
            "the ID of a PersistentResource in the job's project and region to run on", pattern=_pattern("persistentResourceId")),
        k("enableWebAccess"): {"type": "boolean", "description": "interactive shell access to the training containers"},
        "network": _str("the VPC network to peer with: projects/PROJECT_NUMBER/global/networks/NETWORK",
                        pattern=_pattern("network")),
        k("reservedIpRanges"): _strings("names of reserved IP ranges of the network, such as vertex-ai-ip-range",
                                        minItems=1, items={"type": "string", "pattern": "^[a-z]([-a-z0-9]*[a-z0-9])?$"}),
        "tensorboard": _str("a Vertex AI TensorBoard: projects/PROJECT/locations/REGION/tensorboards/ID",
                            pattern=_pattern("tensorboard")),
        "experiment": _str("a Vertex AI Experiment: projects/P/locations/R/metadataStores/S/contexts/EXPERIMENT",
                           pattern=_pattern("experiment")),
        k("experimentRun"): _str("a Vertex AI Experiment Run: projects/P/locations/R/metadataStores/S/contexts/"
                                 "EXPERIMENT-RUN", pattern=_pattern("experimentRun")),
    }


def _reservation_affinity(k: Any) -> Schema:
    """machineSpec.reservationAffinity: consume a Compute Engine reservation."""
    types = CATALOG.job_fields()["reservationAffinity"]["types"]
    return _obj(
        {k("reservationAffinityType"): {"enum": types},
         "key": _str("the reservation label key; compute.googleapis.com/reservation-name for a named reservation"),
         "values": _strings("the reservation's full resource name (projects/P/zones/Z/reservations/NAME)", minItems=1)},
        required=(k("reservationAffinityType"),),
        description="reservationAffinityType (NO_RESERVATION, ANY_RESERVATION or SPECIFIC_RESERVATION), key, values",
    )


def _count_needs_type(type_key: str, count_key: str) -> Schema:
    """A non-zero accelerator count names its accelerator type (the SDK's default count 0 does not)."""
    return {
        "if": {"required": [count_key], "properties": {count_key: {"not": {"enum": [0, "0"]}}}},
        "then": {
            "required": [type_key],
            "properties": {type_key: {"not": {"const": "ACCELERATOR_TYPE_UNSPECIFIED"}}},
            "description": f"{count_key} needs {type_key}: the accelerator to attach",
        },
    }


def _legacy_spec() -> Schema:
    lim = _limits()
    machine_names = sorted(CATALOG.ai_platform_machine_names()) + sorted(CATALOG.legacy_machines)
    replica = _obj(
        {
            "acceleratorConfig": _obj(
                {"count": _int64("GPUs per replica", minimum=1), "type": {"$ref": "#/$defs/acceleratorType"}},
                required=("count", "type"),
                description="GPUs attached to a Compute Engine machine type: count and type",
            ),
            "imageUri": _str("a custom container image"),
            "containerCommand": _strings("overrides the image ENTRYPOINT"),
            "containerArgs": _strings("arguments for the container"),
            "tpuTfVersion": _str("the TensorFlow version of a custom-container TPU worker"),
            "diskConfig": _obj(
                {"bootDiskType": {"enum": lim["boot_disk"]["legacy_types"]}, "bootDiskSizeGb": {"$ref": "#/$defs/diskSizeGb"}},
                description="boot disk: bootDiskType (pd-ssd or pd-standard) and bootDiskSizeGb",
            ),
        },
        description="acceleratorConfig, imageUri, containerCommand, containerArgs, diskConfig",
    )
    props: dict[str, Schema] = {
        "scaleTier": {"enum": list(CATALOG.scale_tiers), "description": "BASIC, STANDARD_1, PREMIUM_1, BASIC_GPU, BASIC_TPU or CUSTOM"},
        "region": {"$ref": "#/$defs/region"},
        "jobDir": {"$ref": "#/$defs/gcsPath"},
        "packageUris": _strings("gs:// URIs of the training packages", maxItems=100, items={"$ref": "#/$defs/gcsObject"}),
        "pythonModule": _str("the module to run, such as trainer.task"),
        "args": _strings("arguments for the trainer"),
        "runtimeVersion": _str("the AI Platform runtime version, such as '2.4' (quote it: 2.10 unquoted is 2.1)"),
        "pythonVersion": _str("the Python version, such as '3.7'"),
        "serviceAccount": {"$ref": "#/$defs/serviceAccount"},
        "useChiefInTfConfig": {"type": "boolean"},
        "scheduling": _obj(
            {
                "maxWaitTime": {"$ref": "#/$defs/duration"},
                "maxRunningTime": {"$ref": "#/$defs/duration"},
                "priority": {"type": "integer", "minimum": 0, "maximum": 1000},
                "strategy": {"enum": lim["scheduling_strategies"]["ai_platform"]},
                "resilientToWorkerRestart": {"type": "boolean"},
            },
            description="maxWaitTime, maxRunningTime, priority, strategy",
        ),
        "hyperparameters": _legacy_hyperparameters(),
        "enableWebAccess": {"type": "boolean", "description": "interactive shell (gcloud --enable-web-access)"},
        "network": _str("the VPC network peered with the job"),
        "encryptionConfig": _obj({"kmsKeyName": _str("a Cloud KMS key")}, description="kmsKeyName"),
    }
    for prefix in LEGACY_ROLES:
        props[f"{prefix}Type"] = {"enum": machine_names, "description": "a Compute Engine machine type or a legacy machine type"}
        props[f"{prefix}Config"] = replica
        if prefix != "master":
            props[f"{prefix}Count"] = _int64(f"number of {prefix} replicas")
    rules: list[Schema] = []
    for prefix in LEGACY_ROLES:
        rules += [
            {"if": r["if"] and {"properties": {f"{prefix}Type": r["if"]["properties"]["machineType"]}, "required": [f"{prefix}Type"]},
             "then": {"description": r["then"]["description"],
                      "properties": {f"{prefix}Config": {"properties": {"acceleratorConfig": r["then"]["properties"]["accelerator"]}}}}}
            for r in _nested_rules("ai_platform", "machineType", "accelerator", "type", "count", int64=True)
        ]
        legacy_gpu = sorted(m for m, rec in CATALOG.legacy_machines.items() if rec.tpu is None)
        rules.append({
            "if": {"properties": {f"{prefix}Type": {"enum": legacy_gpu}}, "required": [f"{prefix}Type"]},
            "then": {"description": "legacy machine types bundle their GPUs: acceleratorConfig only goes with Compute "
                                    "Engine machine types",
                     "properties": {f"{prefix}Config": {"properties": {"acceleratorConfig": False}}}},
        })
        rules.append({
            "if": {"properties": {f"{prefix}Type": {"const": "cloud_tpu"}}, "required": [f"{prefix}Type"]},
            "then": {"description": "cloud_tpu takes a TPU_V2 or TPU_V3 acceleratorConfig of 8 cores",
                     "properties": {f"{prefix}Config": {"properties": {"acceleratorConfig": {
                         "properties": {"type": {"enum": ["TPU_V2", "TPU_V3"]}, "count": {"enum": [8, "8"]}}}}}}},
        })
    ti = _obj(props, description="AI Platform Training's TrainingInput (config.yaml); no scaleTier means BASIC",
              allOf=rules)
    return _obj(
        {
            "trainingInput": ti,
            "jobId": {"$ref": "#/$defs/jobName"},
            "labels": {"$ref": "#/$defs/labels"},
            "region": {"$ref": "#/$defs/region"},
            "packagePath": _str("a local package directory (gcloud --package-path), relative to this file"),
            "packages": _strings("gs:// package URIs (gcloud --packages)", items={"$ref": "#/$defs/gcsObject"}),
            "moduleName": _str("the module to run (gcloud --module-name)"),
            "jobDir": {"$ref": "#/$defs/gcsPath"},
            "stagingBucket": {"$ref": "#/$defs/gcsBucket"},
            "runtimeVersion": _str("gcloud --runtime-version"),
            "pythonVersion": _str("gcloud --python-version"),
            "serviceAccount": {"$ref": "#/$defs/serviceAccount"},
            "args": _strings("user args (what follows -- on the gcloud command line)"),
            "desiredState": {"$ref": "#/$defs/desiredState"},
            **_legacy_cluster_flags(props, machine_names),
        },
        required=("trainingInput",),
        description="an AI Platform job: trainingInput verbatim, with gcloud flags beside it (a flag wins over the "
        "same field in trainingInput)",
    )


def _legacy_cluster_flags(props: dict[str, Schema], machine_names: list[str]) -> dict[str, Schema]:
    """gcloud's cluster flags beside trainingInput (provider/spec/legacy_flags.py lays them over it)."""
    accelerator = _obj({"count": _int64("accelerators per replica", minimum=1),
                        "type": {"$ref": "#/$defs/acceleratorType"}},
                       description="gcloud --*-accelerator count=N,type=TYPE, as {count, type}")
    machine = {"enum": machine_names, "description": "gcloud --*-machine-type"}
    out: dict[str, Schema] = {
        "scaleTier": props["scaleTier"],
        "useChiefInTfConfig": {"type": "boolean"},
        "enableWebAccess": {"type": "boolean"},
        "network": _str("gcloud --network"),
        "kmsKey": _str("gcloud --kms-key (the full key name)"),
        "tpuTfVersion": _str("gcloud --tpu-tf-version"),
    }
    for flag in ("master", "worker", "parameterServer"):
        out[f"{flag}MachineType"] = machine
        out[f"{flag}Accelerator"] = accelerator
        out[f"{flag}ImageUri"] = _str("gcloud --*-image-uri")
        if flag != "master":
            out[f"{flag}Count"] = _int64("gcloud --worker-count or --parameter-server-count")
    return out


def _legacy_hyperparameters() -> Schema:
    param = _obj(
        {
            "parameterName": _str("the parameter name", pattern="^\\S+$"),
            "type": {"enum": ["DOUBLE", "INTEGER", "CATEGORICAL", "DISCRETE"]},
            "minValue": {"type": "number"},
            "maxValue": {"type": "number"},
            "categoricalValues": _strings("the categories", minItems=1),
            "discreteValues": {"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 1000},
            "scaleType": {"enum": ["NONE", "UNIT_LINEAR_SCALE", "UNIT_LOG_SCALE", "UNIT_REVERSE_LOG_SCALE"]},
        },
        required=("parameterName", "type"),
        description="a ParameterSpec: parameterName, type, and min/max or values",
        allOf=[
            {"if": {"properties": {"type": {"enum": ["DOUBLE", "INTEGER"]}}},
             "then": {"required": ["minValue", "maxValue"], "description": "DOUBLE and INTEGER take minValue and maxValue"}},
            {"if": {"properties": {"type": {"const": "CATEGORICAL"}}},
             "then": {"required": ["categoricalValues"], "description": "CATEGORICAL takes categoricalValues"}},
            {"if": {"properties": {"type": {"const": "DISCRETE"}}},
             "then": {"required": ["discreteValues"], "description": "DISCRETE takes discreteValues"}},
        ],
    )
    return _obj(
        {
            "goal": {"enum": ["MAXIMIZE", "MINIMIZE"]},
            "params": {"type": "array", "minItems": 1, "items": param},
            "maxTrials": {"type": "integer", "minimum": 1},
            "maxParallelTrials": {"type": "integer", "minimum": 1},
            "maxFailedTrials": {"type": "integer", "minimum": 0},
            "hyperparameterMetricTag": _str("the metric tag the trainer reports"),
            "algorithm": {"enum": ["ALGORITHM_UNSPECIFIED", "GRID_SEARCH", "RANDOM_SEARCH"]},
            "enableTrialEarlyStopping": {"type": "boolean"},
        },
        required=("goal", "params"),
        description="a HyperparameterSpec: goal, params, maxTrials, maxParallelTrials, hyperparameterMetricTag, algorithm",
    )


# -- Vertex AI's CustomJobSpec -----------------------------------------------------------


def _vertex_spec(snake_case: bool) -> tuple[Schema, Schema]:
    from provider.spec.vertex import snake

    def k(name: str) -> str:
        return snake(name) if snake_case else name

    lim = _limits()
    machine_names = sorted(set(CATALOG.vertex_machine_names()) | set(CATALOG.ai_platform_machine_names()))
    env = {
        "type": "array",
        "maxItems": lim["env"]["max"],
        "items": _obj({"name": {"$ref": "#/$defs/envName"}, "value": {"type": "string"}}, required=("name",)),
        "description": "environment variables: a list of {name, value}, at most 100",
    }
    machine_spec = _obj(
        {
            k("machineType"): machine_type_schema(machine_names),
            k("acceleratorType"): {"$ref": "#/$defs/acceleratorType"},
            k("acceleratorCount"): {"type": "integer", "minimum": 0},
            k("tpuTopology"): _str("TPU slice topology"),
            k("reservationAffinity"): _reservation_affinity(k),
        },
        required=(k("machineType"),),
        description="machineType, acceleratorType, acceleratorCount",
        allOf=_flat_rules(k("machineType"), k("acceleratorType"), k("acceleratorCount"), k("tpuTopology"))
        + [_count_needs_type(k("acceleratorType"), k("acceleratorCount"))],
    )
    container = _obj(
        {k("imageUri"): _str("the container image URI"), "command": _strings("overrides ENTRYPOINT"),
         "args": _strings("container args"), "env": env},
        required=(k("imageUri"),),
        description="imageUri, command, args, env",
    )
    package = _obj(
        {k("executorImageUri"): _str("a prebuilt training container"),
         k("packageUris"): _strings("gs:// package URIs", minItems=1, maxItems=100, items={"$ref": "#/$defs/gcsObject"}),
         k("pythonModule"): _str("the module to run"), "args": _strings("module args"), "env": env},
        required=(k("executorImageUri"), k("packageUris"), k("pythonModule")),
        description="executorImageUri, packageUris, pythonModule, args, env",
    )
    pool = _obj(
        {
            k("machineSpec"): machine_spec,
            k("replicaCount"): _int64("number of replicas", minimum=1),
            k("diskSpec"): _obj({k("bootDiskType"): {"$ref": "#/$defs/diskType"}, k("bootDiskSizeGb"): {"$ref": "#/$defs/diskSizeGb"}}),
            k("containerSpec"): container,
            k("pythonPackageSpec"): package,
        },
        description="a WorkerPoolSpec: machineSpec, replicaCount, diskSpec and containerSpec or pythonPackageSpec; "
        "{} skips a pool",
        anyOf=[
            {"maxProperties": 0},
            {"required": [k("machineSpec"), k("containerSpec")], "not": {"required": [k("pythonPackageSpec")]}},
            {"required": [k("machineSpec"), k("pythonPackageSpec")], "not": {"required": [k("containerSpec")]}},
        ],
    )
    pool_ref = "#/$defs/" + ("vertexPoolSnake" if snake_case else "vertexPool")
    first = {
        "$ref": pool_ref,
        "minProperties": 1,
        "properties": {k("replicaCount"): {
            "anyOf": [{"const": 1}, {"const": "1"}], "description": "the primary pool (0) has exactly one replica"}},
        "description": "worker pool 0, the primary (chief): it must be set, with one replica",
    }
    props: dict[str, Schema] = {
        k("workerPoolSpecs"): {
            "type": "array",
            "minItems": 1,
            "maxItems": lim["pools"]["max"],
            "prefixItems": [first],
            "items": {"$ref": pool_ref},
            "description": "up to four worker pools: 0 primary, 1 workers, 2 parameter servers, 3 evaluators",
        },
        k("baseOutputDirectory"): _obj({k("outputUriPrefix"): {"$ref": "#/$defs/gcsPath"}}, required=(k("outputUriPrefix"),)),
        "scheduling": _obj(
            {"timeout": {"$ref": "#/$defs/duration"}, k("restartJobOnWorkerRestart"): {"type": "boolean"},
             "strategy": {"$ref": "#/$defs/strategy"}, k("maxWaitDuration"): {"$ref": "#/$defs/duration"},
             k("disableRetries"): _JOB_FIELD_SCHEMAS["disableRetries"]},
            description="timeout, restartJobOnWorkerRestart, strategy, maxWaitDuration, disableRetries",
        ),
        k("serviceAccount"): {"$ref": "#/$defs/serviceAccount"},
        **_job_fields(k),
        "region": {"$ref": "#/$defs/region"},
        k("displayName"): _str("the job's display name", maxLength=128),
        "labels": {"$ref": "#/$defs/labels"},
        # The SDK's staging_bucket may be a path: CustomJob writes under it (aiplatform-custom-job-TIMESTAMP).
        k("stagingBucket"): {"$ref": "#/$defs/gcsPath" if snake_case else "#/$defs/gcsBucket"},
        k("desiredState"): {"$ref": "#/$defs/desiredState"},
        k("network"): _str("the VPC network peered with the job (gcloud --network)"),
        k("enableWebAccess"): {"type": "boolean", "description": "interactive shell (gcloud --enable-web-access)"},
        k("enableDashboardAccess"): {"type": "boolean", "description": "gcloud --enable-dashboard-access"},
        k("persistentResourceId"): _str("gcloud --persistent-resource-id"),
        k("kmsKey"): _str("gcloud --kms-key (the full key name)"),
    }
    if snake_case:
        props["base_output_dir"] = {"$ref": "#/$defs/gcsPath", "description": "the SDK's base_output_dir"}
    spec = _obj(
        props,
        required=(k("workerPoolSpecs"), "region"),
        description=("the Vertex AI Python SDK's CustomJob arguments (snake_case)" if snake_case
                     else "a Vertex AI CustomJobSpec (REST camelCase)") + " with region beside it",
    )
    return spec, pool


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


@cache
def spec_schema() -> Schema:
    """The TrainingJob schema; generated once per process from the catalog."""
    defs = _defs_common()
    vertex, vertex_pool = _vertex_spec(snake_case=False)
    vertex_snake, vertex_pool_snake = _vertex_spec(snake_case=True)
    defs.update(
        {
            "metadata": _metadata(),
            "nativeSpec": _native_spec(),
            "nativePool": _native_pool(),
            "aiPlatformSpec": _legacy_spec(),
            "vertexSpec": vertex,
            "vertexPool": vertex_pool,
            "vertexSpecSnake": vertex_snake,
            "vertexPoolSnake": vertex_pool_snake,
            "spec": {
                "type": "object",
                "description": "the job: a native spec, an AI Platform trainingInput, or a Vertex AI CustomJobSpec",
                "if": {"required": ["trainingInput"]},
                "then": {"$ref": "#/$defs/aiPlatformSpec"},
                "else": {
                    "if": {"required": ["workerPoolSpecs"]},
                    "then": {"$ref": "#/$defs/vertexSpec"},
                    "else": {
                        "if": {"required": ["worker_pool_specs"]},
                        "then": {"$ref": "#/$defs/vertexSpecSnake"},
                        "else": {"$ref": "#/$defs/nativeSpec"},
                    },
                },
            },
        }
    )
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
            "kind": {"const": "TrainingJob", "description": "always TrainingJob"},
            "metadata": {"$ref": "#/$defs/metadata"},
            "spec": {"$ref": "#/$defs/spec"},
        },
        "$defs": defs,
    }


def render(schema: Schema) -> str:
    return json.dumps(schema, indent=1, ensure_ascii=False) + "\n"


# -- stack config ---------------------------------------------------------------------------

STACK_SCHEMA_ID = "https://trainjobs.dev/schemas/stack.schema.json"


@cache
def stack_schema() -> Schema:
    """The schema of a stack file (stacks/Pulumi.<stack>.yaml)."""
    common = _defs_common()
    accelerators = sorted(a for a, rec in CATALOG.accelerators.items() if not rec.implied_by_machine_type)
    config = _obj(
        {
            "trainjobs:backend": {"enum": ["local", "vertex"], "description": "where the stack's jobs run: local or vertex"},
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
                        "propertyNames": {"pattern": "^specs/"},
                        "additionalProperties": {"type": "array", "items": _str("@user or @org/team", pattern="^@")},
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
            "trainjobs:apiEndpoint": _str("a Vertex AI endpoint to use instead of Google's (the trainjobs emulator)"),
            "trainjobs:secretEnv": {
                "type": "object",
                "description": "environment variables for every job of the stack whose values stay secret: "
                "pulumi config set --secret --path 'trainjobs:secretEnv.NAME' VALUE",
                "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
                "additionalProperties": {"anyOf": [{"type": "string"},
                                                   {"type": "object", "required": ["secure"],
                                                    "properties": {"secure": {"type": "string"}}}]},
            },
            "trainjobs:localHome": _str("the local backend's state directory (default: per user)"),
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
            "if": {"properties": {"trainjobs:backend": {"const": "vertex"}}, "required": ["trainjobs:backend"]},
            "then": {"required": ["gcp:project"], "description": "a vertex stack needs gcp:project"},
        }],
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
