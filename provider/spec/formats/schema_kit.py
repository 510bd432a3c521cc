"""Building blocks of the JSON Schema fragments every input format uses.

Each format's ``schema.py`` (``provider/spec/formats/*/schema.py``) builds its ``$defs`` from
these; ``provider/spec/schema.py`` assembles the document schema from the fragments. Patterns, enums
and limits come from the catalog, the one source of truth; descriptions double as the
"allowed" text of validation messages.
"""

from __future__ import annotations

from typing import Any

from provider.catalog import CATALOG
from provider.spec.model import RESERVATION_TYPE_UNSPECIFIED
from provider.spec.vertex_fields import KeyName

DRAFT = "https://json-schema.org/draft/2020-12/schema"

Schema = dict[str, Any]


def limits() -> dict[str, Any]:
    return CATALOG.limits()


def string(description: str, **extra: Any) -> Schema:
    return {"type": "string", "description": description, **extra}


def strings(description: str, **extra: Any) -> Schema:
    return {"type": "array", "items": {"type": "string"}, "description": description, **extra}


def obj(properties: dict[str, Schema], required: tuple[str, ...] = (), description: str = "", **extra: Any) -> Schema:
    out: Schema = {"type": "object", "additionalProperties": False, "properties": properties}
    if required:
        out["required"] = list(required)
    if description:
        out["description"] = description
    out.update(extra)
    return out


def double(description: str = "") -> Schema:
    """double fields: a number, or a number written as a string, which protobuf's JSON reader (the REST API) and
    gcloud's apitools (--config) both read as the number (study_fields.number reads it so)."""
    return {**({"description": description} if description else {}),
            "anyOf": [{"type": "number"}, {"type": "string", "pattern": "^-?[0-9.eE+-]+$"}]}


def int64(description: str, minimum: int = 0) -> Schema:
    """int64 fields: YAML writes a number, the REST API's JSON a decimal string."""
    return {
        "description": description,
        "anyOf": [{"type": "integer", "minimum": minimum}, {"type": "string", "pattern": "^[0-9]+$"}],
    }



def catalog_pattern(field: str) -> str:
    pattern: str = CATALOG.job_fields()[field]["pattern"]
    return pattern


WAIT_ALTERNATIVES: dict[str, Any] = {"not": {
    "required": ["maxWaitTime", "maxWaitDuration"],
    "description": "maxWaitTime and maxWaitDuration are alternatives: set one"}}

JOB_FIELD_SCHEMAS: dict[str, Schema] = {
    "disableRetries": {"type": "boolean",
                       "description": "no retry after internal errors once running (overrides restartJobOnWorkerRestart)"},
}


def job_fields(k: KeyName) -> dict[str, Schema]:
    """Today's CustomJobSpec fields (tools/catalog/curated/vertex_job_fields.json), in the key style ``k``."""
    return {
        k("persistentResourceId"): string(
            "the ID of a PersistentResource in the job's project and region to run on", pattern=catalog_pattern("persistentResourceId")),
        k("enableWebAccess"): {"type": "boolean", "description": "interactive shell access to the training containers"},
        "network": string("the VPC network to peer with: projects/PROJECT_NUMBER/global/networks/NETWORK",
                        pattern=catalog_pattern("network")),
        k("reservedIpRanges"): strings("names of reserved IP ranges of the network, such as vertex-ai-ip-range",
                                        minItems=1, items={"type": "string", "pattern": "^[a-z]([-a-z0-9]*[a-z0-9])?$"}),
        "tensorboard": string("a Vertex AI TensorBoard: projects/PROJECT/locations/REGION/tensorboards/ID",
                            pattern=catalog_pattern("tensorboard")),
        "experiment": string("a Vertex AI Experiment: projects/P/locations/R/metadataStores/S/contexts/EXPERIMENT",
                           pattern=catalog_pattern("experiment")),
        k("experimentRun"): string("a Vertex AI Experiment Run: projects/P/locations/R/metadataStores/S/contexts/"
                                 "EXPERIMENT-RUN", pattern=catalog_pattern("experimentRun")),
        k("enableDashboardAccess"): {"type": "boolean",
                                     "description": "access to the training containers' dashboards (gcloud "
                                     "--enable-dashboard-access)"},
        k("kmsKey"): string("the customer-managed key of the job: projects/P/locations/R/keyRings/K/cryptoKeys/KEY "
                            "(gcloud --kms-key; the request's encryptionSpec.kmsKeyName)",
                            pattern="^projects/[^/]+/locations/[^/]+/keyRings/[^/]+/cryptoKeys/[^/]+$"),
        k("protectedArtifactLocationId"): string("the region where Vertex AI keeps the job's protected artifacts, "
                                                 "such as us-central1", pattern="^[a-z]+(-[a-z0-9]+)+$"),
        "models": strings("Model Registry models (and versions) the job may read: "
                          "projects/P/locations/R/models/ID[@VERSION]", minItems=1,
                          items={"type": "string", "pattern": "^projects/[^/]+/locations/[^/]+/models/[^/]+$"}),
        k("pscInterfaceConfig"): obj(
            {k("networkAttachment"): string("the network attachment: projects/P/regions/R/networkAttachments/NAME "
                                            "or its name"),
             k("dnsPeeringConfigs"): {"type": "array", "minItems": 1, "items": obj(
                 {"domain": string("the DNS name suffix to peer, ending with a dot"),
                  k("targetProject"): string("the project that hosts the target network"),
                  k("targetNetwork"): string("the VPC network name in the target project")},
                 required=("domain", k("targetProject"), k("targetNetwork")))}},
            description="a Private Service Connect interface for the job: networkAttachment, dnsPeeringConfigs"),
    }


def mounts(k: KeyName) -> dict[str, Schema]:
    """A pool's NFS and Managed Lustre mounts (WorkerPoolSpec.nfsMounts, lustreMounts)."""
    # Vertex AI's NFS guide (train-nfs-share): "a valid UNIX directory name"; mountPoint sourceData is the
    # path /mnt/nfs/sourceData in the training VM. A path is no such name.
    mount_point = string("a directory name, not a path: it is mounted at /mnt/nfs/NAME (NFS) or /mnt/lustre/NAME "
                         "(Lustre), e.g. sourceData for /mnt/nfs/sourceData", pattern="^[A-Za-z0-9._-]+$")
    nfs = obj({"server": string("the NFS server's IP address or host name"),
               "path": string("the exported path on the server, starting with /", pattern="^/"),
               k("mountPoint"): mount_point},
              required=("server", "path", k("mountPoint")), description=f"server, path, {k('mountPoint')}")
    lustre = obj({k("instanceIp"): string("the Managed Lustre instance's IP address"),
                  k("volumeHandle"): string("the instance's volume handle: PROJECT/ZONE/INSTANCE"),
                  "filesystem": string("the Lustre file system name"),
                  k("mountPoint"): mount_point},
                 required=(k("instanceIp"), k("volumeHandle"), "filesystem", k("mountPoint")),
                 description=f"{k('instanceIp')}, {k('volumeHandle')}, filesystem, {k('mountPoint')}")
    return {k("nfsMounts"): {"type": "array", "minItems": 1, "items": nfs,
                             "description": "NFS shares mounted in every replica of the pool"},
            k("lustreMounts"): {"type": "array", "minItems": 1, "items": lustre,
                                "description": "Managed Lustre file systems mounted in every replica of the pool"}}


def partition_set(partition_key: str) -> Schema:
    """gpuPartitionSize written, and not at its default "" (which partitions nothing: gcloud sends it as written)."""
    return {"required": [partition_key], "properties": {partition_key: {"not": {"const": ""}}}}


def partition_needs_one_gpu(partition_key: str, type_key: str, count_key: str) -> Schema:
    """MachineSpec.gpu_partition_size: "If set, the accelerator_count should be set to 1" (aiplatform_v1 types)."""
    return {"if": partition_set(partition_key),
            "then": {"required": [type_key, count_key], "properties": {count_key: {"const": 1}},
                     "description": f"{partition_key} partitions one GPU: {type_key} with {count_key} 1"}}


GPU_PARTITION: Schema = string("split each GPU into MIG partitions of this size, such as 1g.10gb (\"\": none, "
                               "the API's default)", pattern="^([0-9]+g\\.[0-9]+gb)?$")


def reservation_affinity(k: KeyName) -> Schema:
    """machineSpec.reservationAffinity: consume a Compute Engine reservation."""
    types = CATALOG.job_fields()["reservationAffinity"]["types"]
    # The API's defaults, written, are taken and sent as written (gcloud sends them): TYPE_UNSPECIFIED,
    # key "" and values []; TYPE_UNSPECIFIED with a key or values is refused by name (rules/vertex_fields.py).
    return obj(
        {k("reservationAffinityType"): {"enum": [*types, RESERVATION_TYPE_UNSPECIFIED]},
         "key": string("the reservation label key; compute.googleapis.com/reservation-name for a named reservation"),
         "values": strings("the reservation's full resource name (projects/P/zones/Z/reservations/NAME)")},
        required=(k("reservationAffinityType"),),
        description="reservationAffinityType (NO_RESERVATION, ANY_RESERVATION or SPECIFIC_RESERVATION), key, values",
    )


def count_needs_type(type_key: str, count_key: str) -> Schema:
    """A non-zero accelerator count names its accelerator type (the SDK's default count 0 does not)."""
    return {
        "if": {"required": [count_key], "properties": {count_key: {"not": {"enum": [0, "0"]}}}},
        "then": {
            "required": [type_key],
            "properties": {type_key: {"not": {"const": "ACCELERATOR_TYPE_UNSPECIFIED"}}},
            "description": f"{count_key} needs {type_key}: the accelerator to attach",
        },
    }

