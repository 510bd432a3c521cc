"""The AI Platform format's JSON Schema fragment: ``aiPlatformSpec``.

``trainingInput`` verbatim (scale tiers, Compute Engine and legacy machine types with their
accelerator rules, hyperparameters) with gcloud's flags beside it; machine types, tiers and
accelerator tables from the catalog. ``provider/spec/schema.py`` puts it into the document's ``$defs``.
"""

from __future__ import annotations

from provider.catalog import CATALOG
from provider.spec.formats.schema_accelerators import nested_accelerator, nested_rules
from provider.spec.formats.schema_kit import Schema, double, int64, limits, obj, string, strings
from provider.spec.model import Role

LEGACY_ROLES = tuple(role.legacy_prefix for role in Role)  # master, worker, parameterServer, evaluator


def defs() -> dict[str, Schema]:
    """The AI Platform format's ``$defs``."""
    return {"aiPlatformSpec": _legacy_spec()}


def _legacy_spec() -> Schema:
    lim = limits()
    machine_names = sorted(CATALOG.ai_platform_machine_names()) + sorted(CATALOG.legacy_machines)
    replica = obj(
        {
            "acceleratorConfig": nested_accelerator(
                int64("GPUs per replica"), required=("count", "type"),
                description="GPUs attached to a Compute Engine machine type: count and type "
                            "(ACCELERATOR_TYPE_UNSPECIFIED, count 0: none)",
            ),
            "imageUri": string("a custom container image"),
            "containerCommand": strings("overrides the image ENTRYPOINT"),
            "containerArgs": strings("arguments for the container"),
            "tpuTfVersion": string("the TensorFlow version of a custom-container TPU worker"),
            "diskConfig": obj(
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
        "packageUris": strings("gs:// URIs of the training packages", maxItems=100, items={"$ref": "#/$defs/gcsObject"}),
        "pythonModule": string("the module to run, such as trainer.task"),
        "args": strings("arguments for the trainer"),
        "runtimeVersion": string("the AI Platform runtime version, such as '2.4' (quote it: 2.10 unquoted is 2.1)"),
        "pythonVersion": string("the Python version, such as '3.7'"),
        "serviceAccount": {"$ref": "#/$defs/serviceAccount"},
        "useChiefInTfConfig": {"type": "boolean"},
        "scheduling": obj(
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
        "network": string("the VPC network peered with the job"),
        "encryptionConfig": obj({"kmsKeyName": string("a Cloud KMS key")}, description="kmsKeyName"),
    }
    for prefix in LEGACY_ROLES:
        props[f"{prefix}Type"] = {"enum": machine_names, "description": "a Compute Engine machine type or a legacy machine type"}
        props[f"{prefix}Config"] = replica
        if prefix != "master":
            props[f"{prefix}Count"] = int64(f"number of {prefix} replicas")
    rules: list[Schema] = []
    for prefix in LEGACY_ROLES:
        rules += [
            {"if": r["if"] and {"properties": {f"{prefix}Type": r["if"]["properties"]["machineType"]}, "required": [f"{prefix}Type"]},
             "then": {"description": r["then"]["description"],
                      "properties": {f"{prefix}Config": {"properties": {"acceleratorConfig": r["then"]["properties"]["accelerator"]}}}}}
            for r in nested_rules("ai_platform", "machineType", "accelerator", "type", "count", int64=True)
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
    ti = obj(props, description="AI Platform Training's TrainingInput (config.yaml); no scaleTier means BASIC",
              allOf=rules)
    return obj(
        {
            "trainingInput": ti,
            "jobId": {"$ref": "#/$defs/jobName"},
            "labels": {"$ref": "#/$defs/labels"},
            "region": {"$ref": "#/$defs/region"},
            "packagePath": string("a local package directory (gcloud --package-path), relative to this file"),
            # gcloud --packages: gs:// URIs as they are, local archives uploaded with the job (like extraPackages)
            "packages": strings("gs:// package URIs or local package files, relative to this file (gcloud --packages)",
                                items={"anyOf": [{"$ref": "#/$defs/gcsObject"},
                                                 {"type": "string", "minLength": 1, "pattern": "^(?!gs://)"}]}),
            "moduleName": string("the module to run (gcloud --module-name)"),
            "jobDir": {"$ref": "#/$defs/gcsPath"},
            "stagingBucket": {"$ref": "#/$defs/gcsBucket"},
            "runtimeVersion": string("gcloud --runtime-version"),
            "pythonVersion": string("gcloud --python-version"),
            "serviceAccount": {"$ref": "#/$defs/serviceAccount"},
            "args": strings("user args (what follows -- on the gcloud command line)"),
            "desiredState": {"$ref": "#/$defs/desiredState"},
            **_legacy_cluster_flags(props, machine_names),
        },
        required=("trainingInput",),
        description="an AI Platform job: trainingInput verbatim, with gcloud flags beside it (a flag wins over the "
        "same field in trainingInput)",
    )


def _legacy_cluster_flags(props: dict[str, Schema], machine_names: list[str]) -> dict[str, Schema]:
    """gcloud's cluster flags beside trainingInput (flags.py lays them over it)."""
    accelerator = obj({"count": int64("accelerators per replica", minimum=1),
                        "type": {"$ref": "#/$defs/acceleratorType"}},
                       description="gcloud --*-accelerator count=N,type=TYPE, as {count, type}")
    machine = {"enum": machine_names, "description": "gcloud --*-machine-type"}
    out: dict[str, Schema] = {
        "scaleTier": props["scaleTier"],
        "useChiefInTfConfig": {"type": "boolean"},
        "enableWebAccess": {"type": "boolean"},
        "network": string("gcloud --network"),
        "kmsKey": string("gcloud --kms-key (the full key name)"),
        "tpuTfVersion": string("gcloud --tpu-tf-version"),
    }
    for flag in ("master", "worker", "parameterServer"):
        out[f"{flag}MachineType"] = machine
        out[f"{flag}Accelerator"] = accelerator
        out[f"{flag}ImageUri"] = string("gcloud --*-image-uri")
        if flag != "master":
            out[f"{flag}Count"] = int64("gcloud --worker-count or --parameter-server-count")
    return out


def _legacy_hyperparameters() -> Schema:
    count = {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "pattern": "^\\s*\\+?[0-9]+\\s*$"}]}
    param = obj(
        {
            "parameterName": string("the parameter name", pattern="^\\S+$"),
            "type": {"enum": ["DOUBLE", "INTEGER", "CATEGORICAL", "DISCRETE"]},
            "minValue": double(),
            "maxValue": double(),
            "categoricalValues": strings("the categories", minItems=1),
            "discreteValues": {"type": "array", "items": double(), "minItems": 1, "maxItems": 1000},
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
    return obj(
        {
            "goal": {"enum": ["MAXIMIZE", "MINIMIZE"]},
            "params": {"type": "array", "minItems": 1, "items": param},
            # 0 ("0" alike, as gcloud reads a config) is not given: AI Platform's default, one (hyperparameters.py)
            "maxTrials": count,
            "maxParallelTrials": count,
            "maxFailedTrials": {"type": "integer", "minimum": 0},
            "hyperparameterMetricTag": string("the metric tag the trainer reports"),
            "algorithm": {"enum": ["ALGORITHM_UNSPECIFIED", "GRID_SEARCH", "RANDOM_SEARCH"]},
            "enableTrialEarlyStopping": {"type": "boolean"},
            "resumePreviousJobId": string("an earlier AI Platform tuning job to continue (not sent to Vertex AI: "
                                          "a warning says so)"),
        },
        required=("goal", "params"),
        description="a HyperparameterSpec: goal, params, maxTrials, maxParallelTrials, hyperparameterMetricTag, algorithm",
    )

