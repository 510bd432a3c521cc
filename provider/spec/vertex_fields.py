"""Reading today's Vertex AI job fields, shared by the native and the verbatim Vertex formats.

``persistentResourceId``, ``enableWebAccess``, ``network``, ``reservedIpRanges``,
``tensorboard``, ``experiment``, ``experimentRun`` and ``enableDashboardAccess`` sit in the spec body
(CustomJobSpec); ``kmsKey`` (gcloud --kms-key) becomes the CustomJob's ``encryptionSpec``;
``reservationAffinity`` in a pool's machine spec; ``protectedArtifactLocationId``, ``models`` and
``pscInterfaceConfig`` in the body; ``nfsMounts`` and ``lustreMounts`` in a pool. ``key`` turns a REST camelCase name into the
name the document uses (itself, or snake_case for the Python SDK's form). Facts and sources:
tools/catalog/curated/vertex_job_fields.json.
"""

from __future__ import annotations

from collections.abc import Callable

from provider.spec.model import DnsPeering, LustreMount, NfsMount, PscInterface, Reservation, VertexOptions
from provider.spec.reader import Node

KeyName = Callable[[str], str]


def _same(name: str) -> str:
    return name


def reservation(node: Node | None, key: KeyName = _same) -> Reservation | None:
    """machineSpec.reservationAffinity -> Reservation (None when absent)."""
    if node is None:
        return None
    return Reservation(
        type=node.text(key("reservationAffinityType")) or "TYPE_UNSPECIFIED",
        key=node.text("key"),
        values=node.strs("values") or (),
        at={"": node.path, "type": node.at(key("reservationAffinityType")), "key": node.at("key"),
            "values": node.at("values")},
    )


def nfs_mounts(pool: Node, key: KeyName = _same) -> tuple[NfsMount, ...]:
    """WorkerPoolSpec.nfsMounts (the native pool's ``nfsMounts`` too)."""
    return tuple(NfsMount(server=m.req_str("server"), path=m.req_str("path"), mount_point=m.req_str(key("mountPoint")),
                          at={"": m.path}) for m in pool.items(key("nfsMounts")))


def lustre_mounts(pool: Node, key: KeyName = _same) -> tuple[LustreMount, ...]:
    """WorkerPoolSpec.lustreMounts (the native pool's ``lustreMounts`` too)."""
    return tuple(LustreMount(instance_ip=m.req_str(key("instanceIp")), volume_handle=m.req_str(key("volumeHandle")),
                             filesystem=m.req_str("filesystem"), mount_point=m.req_str(key("mountPoint")),
                             at={"": m.path}) for m in pool.items(key("lustreMounts")))


def psc_interface(node: Node | None, key: KeyName = _same) -> PscInterface | None:
    """CustomJobSpec.pscInterfaceConfig -> PscInterface (None when absent)."""
    if node is None:
        return None
    peering = tuple(DnsPeering(domain=d.req_str("domain"), target_project=d.req_str(key("targetProject")),
                               target_network=d.req_str(key("targetNetwork")))
                    for d in node.items(key("dnsPeeringConfigs")))
    return PscInterface(network_attachment=node.text(key("networkAttachment")), dns_peering=peering,
                        at={"": node.path})


# aiplatform.CustomJob's argument for the job's key (the SDK's snake_case body): kmsKey by the SDK's name.
_SDK_KMS = "encryption_spec_key_name"


def options(spec: Node, key: KeyName = _same) -> VertexOptions:
    """The CustomJobSpec fields beyond the seeds, read from the spec body."""
    names = ("persistentResourceId", "enableWebAccess", "network", "reservedIpRanges", "tensorboard",
             "experiment", "experimentRun", "enableDashboardAccess", "kmsKey", "protectedArtifactLocationId",
             "models", "pscInterfaceConfig")
    encryption = spec.child(key("encryptionSpec"))
    return VertexOptions(
        persistent_resource_id=spec.text(key("persistentResourceId")),
        enable_web_access=spec.given_flag(key("enableWebAccess")),
        network=spec.text("network"),
        reserved_ip_ranges=spec.strs(key("reservedIpRanges")) or (),
        tensorboard=spec.text("tensorboard"),
        experiment=spec.text("experiment"),
        experiment_run=spec.text(key("experimentRun")),
        enable_dashboard_access=spec.given_flag(key("enableDashboardAccess")),
        kms_key_name=spec.text(key("kmsKey")) or spec.text(_SDK_KMS)
        or (encryption.text(key("kmsKeyName")) if encryption else None),
        protected_artifact_location_id=spec.text(key("protectedArtifactLocationId")),
        models=spec.strs("models") or (),
        psc_interface=psc_interface(spec.child(key("pscInterfaceConfig")), key),
        at={name: spec.at(key(name)) for name in names} | {"": spec.path}
        | ({"kmsKey": spec.at(_SDK_KMS)} if _SDK_KMS in spec else {}),
    )
