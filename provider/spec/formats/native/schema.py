"""The native format's JSON Schema fragment: ``nativeSpec`` and ``nativePool``.

``spec.workerPools`` by role, ``spec.application`` (exactly one of pythonPackage or
container), outputs, scheduling and hyperparameter tuning; machine types, accelerator counts
and limits from the catalog. ``provider/spec/schema.py`` puts these into the document's ``$defs``.
"""

from __future__ import annotations

from provider.catalog import CATALOG
from provider.spec.formats.native.tuning import STOPPING_TYPES
from provider.spec.formats.schema_accelerators import machine_type_schema, nested_accelerator, nested_rules
from provider.spec.formats.schema_kit import (
    GPU_PARTITION,
    JOB_FIELD_SCHEMAS,
    WAIT_ALTERNATIVES,
    Schema,
    job_fields,
    limits,
    mounts,
    obj,
    partition_set,
    reservation_affinity,
    string,
    strings,
)
from provider.spec.model import Role

ROLES = tuple(role.value for role in Role)  # chief, workers, parameterServers, evaluators


def defs() -> dict[str, Schema]:
    """The native format's ``$defs``."""
    return {"nativeSpec": _native_spec(), "nativePool": _native_pool(), "nativeParam": _param()}


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
    return obj(
        {
            "machineType": machine_type_schema(machine_names),
            "replicas": replicas,
            "accelerator": nested_accelerator(
                {"type": "integer", "minimum": 0, "description": "accelerators per replica"},
                description="accelerators attached to each replica (ACCELERATOR_TYPE_UNSPECIFIED, count 0: none)",
            ),
            "tpuTopology": string("TPU slice topology, for ct5lp, ct6e and tpu7x machine types"),
            "reservationAffinity": reservation_affinity(lambda name: name),
            "gpuPartitionSize": GPU_PARTITION,
            **mounts(lambda name: name),
            "disk": obj(
                {"type": {"$ref": "#/$defs/diskType"}, "sizeGb": {"$ref": "#/$defs/diskSizeGb"}},
                description="the boot disk of every VM in the pool",
            ),
            "image": string("a container image for this pool instead of the job's (e.g. Reduction Server)"),
            "command": strings("the container command for this pool"),
            "args": strings("the container or module args for this pool"),
            "container": {"type": "boolean",
                          "description": "true: this pool runs image as a container (its own command and args) while "
                          "the job runs a Python package, as a Reduction Server pool does"},
            "env": {"type": "object", "maxProperties": limits()["env"]["max"],
                    "propertyNames": {"$ref": "#/$defs/envName"}, "additionalProperties": {"type": "string"},
                    "description": "the environment of a pool that runs its own image, instead of the job's env "
                                   "({}: none, as the SDK's Reduction Server pool has)"},
        },
        required=("machineType",),
        dependentRequired={"env": ["image"]},
        description="a worker pool: machineType, replicas, accelerator, disk",
        allOf=nested_rules("vertex", "machineType", "accelerator", "type", "count") + [{
            "if": partition_set("gpuPartitionSize"),
            "then": {"required": ["accelerator"], "properties": {"accelerator": {"properties": {"count": {"const": 1}}}},
                     "description": "gpuPartitionSize partitions one GPU: an accelerator with count 1"}}],
    )


# A parameter's bound: a number; an INTEGER parameter's int64 past 18 digits as REST writes it, a string of digits.
_BOUND: Schema = {"anyOf": [{"type": "number"}, {"type": "string", "pattern": "^[+-]?[0-9]{1,19}$"}],
                  "description": "a number (an INTEGER parameter's int64 may be written as a string of digits)"}


def _param() -> Schema:
    hp = limits()["hyperparameters"]
    return obj(
        {
            "name": string("the parameter name, passed to the trainer as --NAME=VALUE", pattern="^\\S+$"),
            "type": {"enum": ["DOUBLE", "INTEGER", "CATEGORICAL", "DISCRETE"]},
            "min": _BOUND,
            "max": _BOUND,
            "values": {"type": "array", "minItems": 1, "maxItems": hp["max_discrete_values"],
                       "items": {"type": ["string", "number"]}},
            "scale": {"enum": ["UNIT_LINEAR_SCALE", "UNIT_LOG_SCALE", "UNIT_REVERSE_LOG_SCALE"]},
            "default": {"type": ["string", "number"],
                        "description": "the value Vertex AI tries first (a value spec's defaultValue)"},
            "conditionalParams": {"type": "array", "minItems": 1, "items": obj(
                {"parentValues": {"type": "array", "minItems": 1, "items": {"type": ["string", "number"]},
                                  "description": "the parent's values for which this parameter is searched"},
                 "param": {"$ref": "#/$defs/nativeParam"}},
                required=("parentValues", "param"),
                description="a parameter searched only when this one takes one of parentValues")},
        },
        required=("name", "type"),
        description="a hyperparameter: DOUBLE and INTEGER take min and max; CATEGORICAL and DISCRETE take values",
        allOf=[
            {"if": {"properties": {"type": {"enum": ["DOUBLE", "INTEGER"]}}},
             "then": {"required": ["min", "max"], "properties": {"values": False, "default": {"type": "number"}},
                      "description": "DOUBLE and INTEGER parameters take min and max, not values"}},
            {"if": {"properties": {"type": {"const": "CATEGORICAL"}}},
             "then": {"required": ["values"], "properties": {"min": False, "max": False, "scale": False,
                                                            "values": {"items": {"type": "string"}},
                                                            "default": {"type": "string"}},
                      "description": "CATEGORICAL parameters take a list of strings as values, no scale"}},
            {"if": {"properties": {"type": {"const": "DISCRETE"}}},
             "then": {"required": ["values"], "properties": {"min": False, "max": False,
                                                            "values": {"items": {"type": "number"}},
                                                            "default": {"type": "number"}},
                      "description": "DISCRETE parameters take an increasing list of numbers as values"}},
            {"if": {"properties": {"type": {"const": "DOUBLE"}}},
             "then": {"properties": {"conditionalParams": False},
                      "description": "only INTEGER, CATEGORICAL and DISCRETE parameters have conditional parameters"}},
        ],
    )


def _hyperparameters_native() -> Schema:
    goal: Schema = {"enum": ["MAXIMIZE", "MINIMIZE"]}
    safety = obj({"threshold": {"type": "number"},
                  "minSafeTrialsFraction": {"type": "number", "minimum": 0, "maximum": 1}},
                 description="a safety metric: threshold, minSafeTrialsFraction (safetyConfig)")
    return obj(
        {
            "goal": goal,
            "metric": {"$ref": "#/$defs/metricId"},
            "safety": safety,
            "otherMetrics": {"type": "array", "items": obj(
                {"metric": {"$ref": "#/$defs/metricId"}, "goal": goal, "safety": safety},
                required=("metric", "goal"), description="another metric of the study: metric, goal, safety")},
            "params": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/nativeParam"}},
            "maxTrials": {"type": "integer", "minimum": 1},
            "maxParallelTrials": {"type": "integer", "minimum": 1},
            "maxFailedTrials": {"type": "integer", "minimum": 0},
            "algorithm": {"enum": ["ALGORITHM_UNSPECIFIED", "GRID_SEARCH", "RANDOM_SEARCH"],
                          "description": "ALGORITHM_UNSPECIFIED (Bayesian optimisation), GRID_SEARCH or RANDOM_SEARCH"},
            "measurementSelection": {"enum": ["LAST_MEASUREMENT", "BEST_MEASUREMENT"],
                                     "description": "which of a trial's measurements counts (default LAST_MEASUREMENT)"},
            "observationNoise": {"enum": ["LOW", "HIGH"],
                                 "description": "how noisy the trials' measurements are (Bayesian optimisation)"},
            "stopping": obj(
                {"type": {"enum": sorted(STOPPING_TYPES)},
                 "useElapsedDuration": {"type": "boolean"},
                 "maxStepCount": {"type": "integer", "minimum": 0},
                 "minStepCount": {"type": "integer", "minimum": 0},
                 "minMeasurementCount": {"type": "integer", "minimum": 0},
                 "learningRateParameterName": {"type": "string"},
                 "updateAllStoppedTrials": {"type": "boolean"}},
                required=("type",),
                description="automated early stopping of trials: type DECAY_CURVE, MEDIAN or CONVEX (the convex "
                "spec also takes maxStepCount, minStepCount, minMeasurementCount, learningRateParameterName, "
                "updateAllStoppedTrials)",
                allOf=[{"if": {"properties": {"type": {"enum": ["DECAY_CURVE", "MEDIAN"]}}},
                        "then": {"propertyNames": {"enum": ["type", "useElapsedDuration"]},
                                 "description": "DECAY_CURVE and MEDIAN take useElapsedDuration only"}}]),
            "studyStopping": obj(
                {"shouldStopAsap": {"type": "boolean"},
                 "minimumRuntime": {"$ref": "#/$defs/studyTime"},
                 "maximumRuntime": {"$ref": "#/$defs/studyTime"},
                 "minNumTrials": {"type": "integer", "minimum": 0},
                 "maxNumTrials": {"type": "integer", "minimum": 0},
                 "maxNumTrialsNoProgress": {"type": "integer", "minimum": 0},
                 "maxDurationNoProgress": {"$ref": "#/$defs/duration"}},
                description="when the whole study stops (studyStoppingConfig)"),
        },
        required=("goal", "metric", "params"),
        description="hyperparameter tuning: goal, metric, params, maxTrials, maxParallelTrials, algorithm, "
        "measurementSelection, observationNoise, stopping, studyStopping",
    )


def _native_spec() -> Schema:
    lim = limits()
    pools = obj(
        {role: _native_pool_ref(role) for role in ROLES},
        required=("chief",),
        description="worker pools by role: chief (required, one replica), workers, parameterServers, evaluators",
    )
    package = obj(
        {
            "path": string("a local directory holding the Python package, relative to this file (gcloud --package-path)"),
            "uris": strings("gs:// URIs of built packages", maxItems=lim["package_uris"]["max"],
                             items={"$ref": "#/$defs/gcsObject"}),
            "module": string("the module to run with python -m, such as trainer.task"),
            "args": strings("arguments for the module"),
            "executorImage": string("a Vertex AI prebuilt training container (pythonPackageSpec.executorImageUri)"),
            "runtimeVersion": string("an AI Platform runtime version, such as '2.11'; mapped to a prebuilt container"),
            "pythonVersion": string("the Python version that goes with runtimeVersion, such as '3.7'"),
            "requirements": strings("PEP 508 requirements installed with the package, such as 'pandas>=2' "
                                    "(gcloud's requirements=)"),
            "extraPackages": strings("local Python archives (.whl, .tar.gz, .zip) installed with the package, "
                                     "relative to this file (gcloud's extra-packages=)"),
        },
        required=("module",),
        description="a Python package: path, uris or extraPackages (gcloud --packages of local archives), module, args",
        anyOf=[{"required": ["path"]}, {"required": ["uris"]}, {"required": ["extraPackages"]}],
    )
    container = obj(
        {
            "image": string("the container image URI"),
            "build": obj(
                {"context": string("the build context directory, relative to this file"),
                 "dockerfile": string("the Dockerfile, relative to the context")},
                required=("context",),
                description="build the image from source and push it to the team's registry",
            ),
            "command": strings("overrides the image ENTRYPOINT"),
            "args": strings("arguments for the container"),
        },
        description="a container: image (or build), command, args",
        anyOf=[{"required": ["image"]}, {"required": ["build"]}],
    )
    return obj(
        {
            "region": {"$ref": "#/$defs/region"},
            "workerPools": pools,
            "application": obj(
                {"pythonPackage": package, "container": container},
                description="exactly one of pythonPackage or container",
                minProperties=1,
                maxProperties=1,
            ),
            "args": strings("user args, appended after the application's args (gcloud's args after --)"),
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
            # A path too, as the SDK's staging_bucket takes one: packages are staged under PATH/trainjobs.
            "stagingBucket": {"$ref": "#/$defs/gcsPath", "description": "where packages are staged: gs://BUCKET or "
                              "gs://BUCKET/PATH (under it, trainjobs/packages/...)"},
            "scheduling": obj(
                {
                    "maxWaitTime": {"$ref": "#/$defs/duration"},
                    "maxRunningTime": {"$ref": "#/$defs/duration"},
                    "restartJobOnWorkerRestart": {"type": "boolean"},
                    "strategy": {"$ref": "#/$defs/strategy"},
                    "disableRetries": JOB_FIELD_SCHEMAS["disableRetries"],
                    "maxWaitDuration": {"$ref": "#/$defs/duration",
                                        "description": "Vertex AI's max wait for FLEX_START jobs (no 1800s minimum)"},
                },
                description="maxWaitTime (or maxWaitDuration), maxRunningTime, restartJobOnWorkerRestart, strategy, "
                "disableRetries",
                **WAIT_ALTERNATIVES,
            ),
            "serviceAccount": {"$ref": "#/$defs/serviceAccount"},
            **job_fields(lambda name: name),
            "hyperparameters": _hyperparameters_native(),
            "labels": {"$ref": "#/$defs/labels"},
            "desiredState": {"$ref": "#/$defs/desiredState"},
        },
        required=("region", "workerPools", "application"),
        description="a native spec: region, workerPools, application, and optional outputs, scheduling, tuning",
        **{"not": {"required": ["jobDir", "baseOutputDirectory"],
                   "description": "jobDir and baseOutputDirectory are alternatives: set one"}},
    )

