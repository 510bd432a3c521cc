"""The Vertex AI format's JSON Schema fragment: ``vertexSpec`` / ``vertexPool`` (REST camelCase)
and ``vertexSpecSnake`` / ``vertexPoolSnake`` (the Python SDK's snake_case).

A ``CustomJobSpec`` with ``region`` beside it: up to four ``workerPoolSpecs`` (the primary
with one replica), Vertex AI's flat ``machineSpec`` accelerator rules, and the job fields of
tools/catalog/curated/vertex_job_fields.json. ``provider/spec/schema.py`` puts these into the
document's ``$defs``.
"""

from __future__ import annotations

from provider.catalog import CATALOG
from provider.spec.formats.schema_accelerators import accelerator_type, flat_rules, machine_type_schema
from provider.spec.formats.schema_kit import (
    GPU_PARTITION,
    JOB_FIELD_SCHEMAS,
    Schema,
    count_needs_type,
    int64,
    job_fields,
    limits,
    mounts,
    obj,
    partition_needs_one_gpu,
    reservation_affinity,
    string,
    strings,
)
from provider.spec.formats.vertex.keys import in_spelling, snake


def defs() -> dict[str, Schema]:
    """The Vertex AI format's ``$defs``, camelCase first."""
    vertex, vertex_pool = _vertex_spec(snake_case=False)
    vertex_snake, vertex_pool_snake = _vertex_spec(snake_case=True)
    return {"vertexSpec": vertex, "vertexPool": vertex_pool,
            "vertexSpecSnake": vertex_snake, "vertexPoolSnake": vertex_pool_snake}


def _vertex_spec(snake_case: bool) -> tuple[Schema, Schema]:
    def k(name: str) -> str:
        return snake(name) if snake_case else name

    def said(text: str) -> str:  # a description names the fields as the body it describes does
        return in_spelling(text, snake_case)

    lim = limits()
    machine_names = sorted(set(CATALOG.vertex_machine_names()) | set(CATALOG.ai_platform_machine_names()))
    env = {
        "type": "array",
        "maxItems": lim["env"]["max"],
        "items": obj({"name": {"$ref": "#/$defs/envName"}, "value": {"type": "string"}}, required=("name",)),
        "description": "environment variables: a list of {name, value}, at most 100",
    }
    machine_spec = obj(
        {
            k("machineType"): machine_type_schema(machine_names),
            k("acceleratorType"): accelerator_type(),
            k("acceleratorCount"): {"type": "integer", "minimum": 0},
            k("tpuTopology"): string("TPU slice topology"),
            k("reservationAffinity"): reservation_affinity(k),
            k("gpuPartitionSize"): GPU_PARTITION,
        },
        required=(k("machineType"),),
        description=said("machineType, acceleratorType, acceleratorCount"),
        allOf=flat_rules(k("machineType"), k("acceleratorType"), k("acceleratorCount"), k("tpuTopology"))
        + [count_needs_type(k("acceleratorType"), k("acceleratorCount")),
           partition_needs_one_gpu(k("gpuPartitionSize"), k("acceleratorType"), k("acceleratorCount"))],
    )
    container = obj(
        {k("imageUri"): string("the container image URI"), "command": strings("overrides ENTRYPOINT"),
         "args": strings("container args"), "env": env},
        required=(k("imageUri"),),
        description=said("imageUri, command, args, env"),
    )
    package = obj(
        {k("executorImageUri"): string("a prebuilt training container"),
         k("packageUris"): strings("gs:// package URIs", minItems=1, maxItems=100, items={"$ref": "#/$defs/gcsObject"}),
         k("pythonModule"): string("the module to run"), "args": strings("module args"), "env": env},
        required=(k("executorImageUri"), k("packageUris"), k("pythonModule")),
        description=said("executorImageUri, packageUris, pythonModule, args, env"),
    )
    pool = obj(
        {
            k("machineSpec"): machine_spec,
            k("replicaCount"): int64("number of replicas", minimum=1),
            k("diskSpec"): obj({k("bootDiskType"): {"$ref": "#/$defs/diskType"}, k("bootDiskSizeGb"): {"$ref": "#/$defs/diskSizeGb"}}),
            k("containerSpec"): container,
            k("pythonPackageSpec"): package,
            **mounts(k),
        },
        description=said("a WorkerPoolSpec: machineSpec, replicaCount, diskSpec and containerSpec or pythonPackageSpec; "
                         "{} skips a pool"),
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
        k("baseOutputDirectory"): obj({k("outputUriPrefix"): {"$ref": "#/$defs/gcsPath"}}, required=(k("outputUriPrefix"),)),
        "scheduling": obj(
            {"timeout": {"$ref": "#/$defs/duration"}, k("restartJobOnWorkerRestart"): {"type": "boolean"},
             "strategy": {"$ref": "#/$defs/strategy"}, k("maxWaitDuration"): {"$ref": "#/$defs/duration"},
             k("disableRetries"): JOB_FIELD_SCHEMAS["disableRetries"]},
            description=said("timeout, restartJobOnWorkerRestart, strategy, maxWaitDuration, disableRetries"),
        ),
        k("serviceAccount"): {"$ref": "#/$defs/serviceAccount"},
        **job_fields(k),  # persistentResourceId, enableWebAccess, network, ...: once, with their patterns
        "region": {"$ref": "#/$defs/region"},
        k("displayName"): string("the job's display name", maxLength=128),
        "labels": {"$ref": "#/$defs/labels"},
        # The SDK's staging_bucket may be a path: CustomJob writes under it (aiplatform-custom-job-TIMESTAMP).
        k("stagingBucket"): {"$ref": "#/$defs/gcsPath" if snake_case else "#/$defs/gcsBucket"},
        k("desiredState"): {"$ref": "#/$defs/desiredState"},
    }
    extra: Schema = {}
    if snake_case:
        props["base_output_dir"] = {"$ref": "#/$defs/gcsPath", "description": "the SDK's base_output_dir"}
        # aiplatform.CustomJob(encryption_spec_key_name=...): the job's key, the spec's kms_key by the SDK's name
        props["encryption_spec_key_name"] = {**props["kms_key"], "description": "the SDK's encryption_spec_key_name: "
                                             "the customer-managed key (the request's encryptionSpec.kmsKeyName)"}
        extra["not"] = {"required": ["kms_key", "encryption_spec_key_name"],
                        "description": "kms_key and encryption_spec_key_name are one field: set one"}
    spec = obj(
        props,
        required=(k("workerPoolSpecs"), "region"),
        description=("the Vertex AI Python SDK's CustomJob arguments (snake_case)" if snake_case
                     else "a Vertex AI CustomJobSpec (REST camelCase)") + " with region beside it",
        **extra,
    )
    return spec, pool

