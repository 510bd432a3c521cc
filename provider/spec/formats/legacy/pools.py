"""AI Platform's pools: a scale tier's fixed shape, or CUSTOM's ``masterType`` and friends.

``pools`` reads the worker pools of a ``trainingInput`` (after gcloud's flags are laid over
it): a predefined scale tier from the catalog, or the CUSTOM machine types, counts and
``*Config`` of each role, with legacy machine types mapped to today's and a master beside a
Cloud TPU worker merged into one TPU VM as Vertex AI runs it.
"""

from __future__ import annotations

from provider.catalog import CATALOG
from provider.spec.formats.legacy.notes import Notes
from provider.spec.model import ACCELERATOR_TYPE_UNSPECIFIED, Accelerator, Disk, DocPath, PoolOverride, Role, WorkerPool
from provider.spec.reader import Node


def replica(ti: Node, role: Role) -> Node | None:
    """The ``masterConfig`` / ``workerConfig`` ... of a role, if set."""
    return ti.child(f"{role.legacy_prefix}Config")


def _configured(acc: Node) -> Accelerator:
    """The acceleratorConfig as written."""
    return Accelerator(
        acc.req_str("type"),
        acc.integer("count") or 0,
        at={"": acc.path, "type": acc.at("type"), "count": acc.at("count")},
    )


def _machine(machine: str, acc: Node | None, type_path: DocPath, notes: Notes) -> tuple[str, Accelerator | None, str | None]:
    """(Vertex machine type, accelerator, legacy machine type or None) for a ``*Type`` value.

    A legacy machine type bundles its GPUs (no acceleratorConfig beside it); cloud_tpu is the TPU
    worker, whose acceleratorConfig (TPU_V2 or TPU_V3) replaces the bundled default.
    """
    legacy = CATALOG.legacy_machine(machine)
    if legacy is None:
        return machine, _configured(acc) if acc is not None else None, None
    if legacy.tpu is not None:
        bundled_tpu = Accelerator(legacy.tpu[0], legacy.tpu[1], at={"": type_path})
        return "cloud-tpu", _configured(acc) if acc is not None else bundled_tpu, machine
    bundled = Accelerator(legacy.accelerator[0], legacy.accelerator[1], at={"": type_path}) if legacy.accelerator else None
    if acc is not None:
        notes.error(
            f"acceleratorConfig cannot be set on the legacy machine type {machine!r}: it bundles "
            + (f"{legacy.accelerator[1]} x {legacy.accelerator[0]}" if legacy.accelerator else "no GPU"),
            acc.path,
            "aip.acceleratorConfig.only_ce",
            allowed="acceleratorConfig only with Compute Engine machine types (n1-*, a2-*)",
        )
    return legacy.machine_type or machine, bundled, machine


def _disk(cfg: Node | None) -> Disk:
    node = cfg.child("diskConfig") if cfg else None
    if node is None:
        return Disk()
    return Disk(
        type=node.text("bootDiskType"),
        size_gb=node.integer("bootDiskSizeGb"),
        at={"": node.path, "type": node.at("bootDiskType"), "size_gb": node.at("bootDiskSizeGb")},
    )


def _override(cfg: Node | None, role: Role, master: Node | None, notes: Notes) -> PoolOverride | None:
    """A worker's own container (imageUri, containerCommand, containerArgs); the master's is the job's.

    Only ``imageUri`` falls back to the master's (AI Platform's ReplicaConfig); a replica's command and
    arguments are its own, and none means its image's defaults (job_rules aip.container_command_args). So a
    worker with a container config of its own runs its image's ENTRYPOINT or CMD where it names no
    containerCommand or containerArgs, not the master's. A worker with none keeps the master's container."""
    if cfg is None or role is Role.CHIEF or not any(k in cfg for k in ("imageUri", "containerCommand", "containerArgs")):
        return None
    command, args = cfg.strs("containerCommand"), cfg.strs("containerArgs")
    missing = [k for k in ("containerCommand", "containerArgs") if k not in cfg and master is not None and k in master]
    if missing:
        default = {"containerCommand": "ENTRYPOINT", "containerArgs": "CMD"}
        notes.warn(
            f"{role.legacy_prefix}Config sets no {' or '.join(missing)}: that replica runs its image's "
            f"{' and '.join(default[k] for k in missing)}, not masterConfig's {' and '.join(missing)} (a replica's "
            "command and arguments are its own; only imageUri falls back to the master's)",
            cfg.path,
            "aip.container_command_args",
        )
    return PoolOverride(image_uri=cfg.text("imageUri"), command=command or (), args=args or ())


def _pool(ti: Node, role: Role, machine: str, count: int, notes: Notes) -> WorkerPool:
    prefix = role.legacy_prefix
    type_path = ti.at(f"{prefix}Type")
    cfg = replica(ti, role)
    acc_node = cfg.child("acceleratorConfig") if cfg else None
    if acc_node is not None and acc_node.text("type") == ACCELERATOR_TYPE_UNSPECIFIED:
        # the proto3 defaults (count 0: the schema holds it): no accelerator, as AI Platform read it
        # (tensorflow_cloud writes it for a CPU chief); another API's message, so nothing of it is sent
        acc_node = None
    machine_type, accelerator, legacy_name = _machine(machine, acc_node, type_path, notes)
    count_path = ti.at(f"{prefix}Count") if role is not Role.CHIEF else type_path
    return WorkerPool(
        role=role,
        machine_type=machine_type,
        replica_count=count,
        accelerator=accelerator,
        disk=_disk(cfg),
        override=_override(cfg, role, replica(ti, Role.CHIEF), notes),
        legacy_machine_type=legacy_name,
        at={
            "": type_path,
            "machine_type": type_path,
            "replica_count": count_path,
            "accelerator": acc_node.path if acc_node else type_path,
        },
    )


def _tier_pools(tier_name: str, ti: Node, notes: Notes) -> tuple[WorkerPool, ...]:
    tier = CATALOG.scale_tier(tier_name)
    path = ti.at("scaleTier")
    if tier is None:
        return ()
    pools = []
    for p in tier.pools:
        role = {"chief": Role.CHIEF, "workers": Role.WORKER, "parameterServers": Role.PARAMETER_SERVER}[p.role]
        machine, acc = p.machine_type, None
        if p.tpu:
            machine, acc = "cloud-tpu", Accelerator(p.tpu[0], p.tpu[1], at={"": path})
        elif p.accelerator:
            acc = Accelerator(p.accelerator[0], p.accelerator[1], at={"": path})
        pools.append(
            WorkerPool(role=role, machine_type=machine, replica_count=p.count, accelerator=acc, scale_tier=tier_name,
                       at={"": path, "machine_type": path, "accelerator": path, "replica_count": path})
        )
    if tier.unverified:
        # The shape the request will carry: a TPU tier runs on cloud-tpu with its chips, as in the request.
        shape = ", ".join(
            f"{p.role} {p.count} x "
            + (f"cloud-tpu with {p.tpu[1]} x {p.tpu[0]}" if p.tpu else p.machine_type)
            + (f" + {p.accelerator[1]} {p.accelerator[0]}" if p.accelerator and not p.tpu else "")
            for p in tier.pools
        )
        notes.warn(
            f"scale tier {tier_name} is read as {shape}; the machine types behind this tier are not "
            "confirmed by a Google document (catalog: unverified). Prefer scaleTier CUSTOM with explicit types",
            path,
            "aip.scaleTier.mapping",
            source="tools/catalog/reference/scale_tiers.json",
        )
    for role in (Role.CHIEF, Role.WORKER, Role.PARAMETER_SERVER, Role.EVALUATOR):
        for key in (f"{role.legacy_prefix}Type", f"{role.legacy_prefix}Count"):
            if key in ti and not (key.endswith("Count") and ti.integer(key) == 0):
                notes.error(
                    f"{key} can only be used when scaleTier is CUSTOM (here {tier_name})",
                    ti.at(key),
                    "aip.custom.counts_only_custom",
                    allowed="scaleTier: CUSTOM with masterType, or remove " + key,
                )
    return tuple(pools)


def _custom_pools(ti: Node, notes: Notes) -> tuple[WorkerPool, ...]:
    master = ti.text("masterType")
    if master is None:
        notes.error(
            "masterType must be set when scaleTier is CUSTOM",
            ti.at("scaleTier"),
            "aip.custom.masterType",
            allowed="a Compute Engine machine type (e.g. n1-standard-4) or a legacy machine type",
        )
        return ()
    pools = [_pool(ti, Role.CHIEF, master, 1, notes)]
    for role in (Role.WORKER, Role.PARAMETER_SERVER, Role.EVALUATOR):
        prefix = role.legacy_prefix
        count = ti.integer(f"{prefix}Count", 0) or 0
        machine = ti.text(f"{prefix}Type")
        if count > 0 and machine is None:
            notes.error(
                f"{prefix}Count is {count} but {prefix}Type is not set",
                ti.at(f"{prefix}Count"),
                "aip.custom.type_with_count",
                allowed=f"set {prefix}Type when {prefix}Count > 0",
            )
            continue
        if count > 0 and machine is not None:
            pools.append(_pool(ti, role, machine, count, notes))
    # All types Compute Engine or all legacy (cloud_tpu is the TPU worker, outside the rule).
    kinds = {
        p.role: p.legacy_machine_type is not None for p in pools if p.legacy_machine_type != "cloud_tpu"
    }
    if len(set(kinds.values())) > 1:
        notes.error(
            "masterType and the other *Type fields mix Compute Engine and legacy machine types",
            ti.at("masterType"),
            "aip.machine_category_consistency",
            allowed=f"all Compute Engine types or all legacy types (masterType is {master!r})",
        )
    return tuple(pools)


def _merge_tpu(pools: tuple[WorkerPool, ...], ti: Node, notes: Notes) -> tuple[WorkerPool, ...]:
    """AI Platform ran a master VM beside a Cloud TPU worker; Vertex AI runs one TPU VM."""
    tpu = [p for p in pools if p.machine_type == "cloud-tpu"]
    if not tpu or pools[0].machine_type == "cloud-tpu":
        return pools
    t = tpu[0]
    notes.warn(
        "the master VM and the Cloud TPU worker of this AI Platform job become one Vertex AI TPU VM "
        "(Vertex AI runs TPU jobs as a single pool with one replica)",
        t.at.get("", ti.path),
        "vx.tpu.single_pool",
    )
    chief = WorkerPool(role=Role.CHIEF, machine_type="cloud-tpu", replica_count=1, accelerator=t.accelerator,
                       legacy_machine_type=t.legacy_machine_type, at=t.at)
    return (chief,)


def _tpu_tf_version(ti: Node, notes: Notes) -> None:
    """``tpuTfVersion`` picked the TensorFlow of the Cloud TPU node beside a custom container; Vertex AI has no
    such field (it runs a TPU VM, whose container brings its own TPU TensorFlow), so it cannot be carried."""
    for role in Role:
        cfg = replica(ti, role)
        if cfg is not None and "tpuTfVersion" in cfg:
            notes.error(
                f"{role.legacy_prefix}Config.tpuTfVersion ({cfg.raw('tpuTfVersion')!r}; gcloud --tpu-tf-version) has "
                "no Vertex AI field: AI Platform ran the custom container beside a Cloud TPU node of that TensorFlow "
                "version, Vertex AI runs it on a TPU VM, where the image itself must bring a TPU build of "
                "TensorFlow (libtpu); converted as is, the job could not reach its TPU",
                cfg.at("tpuTfVersion"),
                "aip.tpuTfVersion",
                allowed="rebuild the image for TPU VMs (FROM a TensorFlow TPU VM image, or a Vertex AI prebuilt "
                        "TPU container), then remove tpuTfVersion (and --tpu-tf-version)",
            )


def pools(ti: Node, tier: str, notes: Notes) -> tuple[WorkerPool, ...]:
    """The job's pools for scale tier ``tier``; () when the master is missing (notes say why)."""
    _tpu_tf_version(ti, notes)
    found = _custom_pools(ti, notes) if tier == "CUSTOM" else _tier_pools(tier, ti, notes)
    return _merge_tpu(found, ti, notes)
