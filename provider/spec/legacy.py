"""AI Platform Training's ``trainingInput`` (the config.yaml of seeds 001 and 003) -> TrainingJob.

The body is taken verbatim. Beside it, the spec may carry what gcloud takes as flags
(``region``, ``packagePath``, ``moduleName``, ``jobDir``, ``args`` ...); as with gcloud, a
flag overrides the same value in the config (seed 003: "c'est la valeur de la ligne de
commande qui est retenue").

The AI Platform rules that only make sense for this format (scale tiers, legacy machine
types, master/worker counts) are checked here and returned as error notes, each citing the
rule id of tools/catalog/reference/job_rules.json.
"""

from __future__ import annotations

from provider.catalog import CATALOG
from provider.spec.legacy_flags import overlay
from provider.spec.model import (
    Accelerator,
    Application,
    Container,
    Disk,
    DocPath,
    HyperParam,
    Hyperparameters,
    Note,
    OutputDir,
    ParamType,
    PoolOverride,
    PythonPackage,
    Role,
    Scheduling,
    SourceFormat,
    TrainingJob,
    VertexOptions,
    WorkerPool,
)
from provider.spec.native import merge_labels, metadata_fields
from provider.spec.reader import ConversionError, Node

JOB_RULES = "tools/catalog/reference/job_rules.json"
DEFAULT_METRIC_TAG = "training/hptuning/metric"

# The sibling keys that stand for gcloud flags, and the trainingInput field each overrides.
FLAGS = {
    "region": "region",
    "jobDir": "jobDir",
    "runtimeVersion": "runtimeVersion",
    "pythonVersion": "pythonVersion",
    "moduleName": "pythonModule",
    "serviceAccount": "serviceAccount",
    "args": "args",
}


# trainingInput fields gcloud sends that the model has no place for yet (enableWebAccess, network
# and encryptionConfig.kmsKeyName become the Vertex job's own: _vertex_options).
_NOT_CARRIED: tuple[str, ...] = ()


def _vertex_options(ti: Node) -> VertexOptions:
    """AI Platform's enableWebAccess, network and encryptionConfig, as Vertex AI's job fields."""
    encryption = ti.child("encryptionConfig")
    return VertexOptions(
        enable_web_access=ti.flag("enableWebAccess"),
        network=ti.text("network"),
        kms_key_name=encryption.text("kmsKeyName") if encryption is not None else None,
        at={"enableWebAccess": ti.at("enableWebAccess"), "network": ti.at("network"),
            "kmsKey": ti.at("encryptionConfig"), "": ti.path},
    )


class _Notes(list[Note]):
    def error(self, message: str, path: DocPath, rule: str, allowed: str | None = None) -> None:
        self.append(Note(message, path, rule, source=JOB_RULES, allowed=allowed, error=True))

    def warn(self, message: str, path: DocPath, rule: str, source: str | None = None) -> None:
        self.append(Note(message, path, rule, source=source or JOB_RULES))


def _replica(ti: Node, role: Role) -> Node | None:
    return ti.child(f"{role.legacy_prefix}Config")


def _pool(ti: Node, role: Role, machine: str, count: int, notes: _Notes) -> WorkerPool:
    prefix = role.legacy_prefix
    type_path = ti.at(f"{prefix}Type")
    cfg = _replica(ti, role)
    acc_node = cfg.child("acceleratorConfig") if cfg else None
    legacy = CATALOG.legacy_machine(machine)
    accelerator = None
    machine_type = machine
    legacy_name = None
    if legacy is not None:
        legacy_name = machine
        if legacy.tpu is not None:
            machine_type = "cloud-tpu"
            accelerator = Accelerator(legacy.tpu[0], legacy.tpu[1], at={"": type_path})
        else:
            machine_type = legacy.machine_type or machine
            if legacy.accelerator:
                accelerator = Accelerator(legacy.accelerator[0], legacy.accelerator[1], at={"": type_path})
        if acc_node is not None and legacy.tpu is None:
            notes.error(
                f"acceleratorConfig cannot be set on the legacy machine type {machine!r}: it bundles "
                + (f"{legacy.accelerator[1]} x {legacy.accelerator[0]}" if legacy.accelerator else "no GPU"),
                acc_node.path,
                "aip.acceleratorConfig.only_ce",
                allowed="acceleratorConfig only with Compute Engine machine types (n1-*, a2-*)",
            )
        elif acc_node is not None and legacy.tpu is not None:
            accelerator = Accelerator(
                acc_node.req_str("type"),
                acc_node.integer("count") or 0,
                at={"": acc_node.path, "type": acc_node.at("type"), "count": acc_node.at("count")},
            )
    elif acc_node is not None:
        accelerator = Accelerator(
            acc_node.req_str("type"),
            acc_node.integer("count") or 0,
            at={"": acc_node.path, "type": acc_node.at("type"), "count": acc_node.at("count")},
        )
    disk_node = cfg.child("diskConfig") if cfg else None
    disk = Disk()
    if disk_node is not None:
        disk = Disk(
            type=disk_node.text("bootDiskType"),
            size_gb=disk_node.integer("bootDiskSizeGb"),
            at={"": disk_node.path, "type": disk_node.at("bootDiskType"), "size_gb": disk_node.at("bootDiskSizeGb")},
        )
    override = None
    if cfg is not None and any(k in cfg for k in ("imageUri", "containerCommand", "containerArgs")) and role is not Role.CHIEF:
        override = PoolOverride(
            image_uri=cfg.text("imageUri"), command=cfg.strs("containerCommand"), args=cfg.strs("containerArgs")
        )
    count_path = ti.at(f"{prefix}Count") if role is not Role.CHIEF else type_path
    return WorkerPool(
        role=role,
        machine_type=machine_type,
        replica_count=count,
        accelerator=accelerator,
        disk=disk,
        override=override,
        legacy_machine_type=legacy_name,
        at={
            "": type_path,
            "machine_type": type_path,
            "replica_count": count_path,
            "accelerator": acc_node.path if acc_node else type_path,
        },
    )


def _tier_pools(tier_name: str, ti: Node, notes: _Notes) -> tuple[WorkerPool, ...]:
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


def _custom_pools(ti: Node, notes: _Notes) -> tuple[WorkerPool, ...]:
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


def _merge_tpu(pools: tuple[WorkerPool, ...], ti: Node, notes: _Notes) -> tuple[WorkerPool, ...]:
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


def _hyperparameters(node: Node | None) -> Hyperparameters | None:
    if node is None:
        return None
    params = []
    for p in node.items("params"):
        type_name = p.req_str("type")
        if type_name not in ParamType.__members__:
            raise ConversionError(f"unknown parameter type {type_name}")
        ptype = ParamType(type_name)
        values: tuple[str | float, ...] = ()
        if ptype is ParamType.CATEGORICAL:
            values = p.strs("categoricalValues") or ()
        elif ptype is ParamType.DISCRETE:
            raw = p.raw("discreteValues") or []
            if not isinstance(raw, list) or any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in raw):
                raise ConversionError("discreteValues must be numbers")
            values = tuple(float(v) for v in raw)
        params.append(
            HyperParam(
                name=p.req_str("parameterName"),
                type=ptype,
                min=p.number("minValue"),
                max=p.number("maxValue"),
                values=values,
                scale=p.text("scaleType"),
                at={"": p.path, "name": p.at("parameterName"), "min": p.at("minValue"), "max": p.at("maxValue"),
                    "values": p.at("discreteValues" if ptype is ParamType.DISCRETE else "categoricalValues"),
                    "scale": p.at("scaleType")},
            )
        )
    goal = node.text("goal") or "MAXIMIZE"
    return Hyperparameters(
        goal="MAXIMIZE" if goal == "GOAL_TYPE_UNSPECIFIED" else goal,
        metric=node.text("hyperparameterMetricTag") or DEFAULT_METRIC_TAG,
        params=tuple(params),
        max_trials=node.integer("maxTrials", 1) or 0,
        max_parallel_trials=node.integer("maxParallelTrials", 1) or 0,
        max_failed_trials=node.integer("maxFailedTrials", 0) or 0,
        algorithm=node.text("algorithm") or "ALGORITHM_UNSPECIFIED",
        at={"": node.path, "params": node.at("params"), "max_trials": node.at("maxTrials"),
            "max_parallel_trials": node.at("maxParallelTrials"), "max_failed_trials": node.at("maxFailedTrials"),
            "algorithm": node.at("algorithm"), "metric": node.at("hyperparameterMetricTag")},
    )


def _effective(spec: Node, ti: Node, field: str, flag: str | None = None) -> tuple[object, DocPath]:
    """A flag beside trainingInput wins over the same field inside it (gcloud precedence)."""
    flag = flag or field
    if flag in spec:
        return spec.raw(flag), spec.at(flag)
    return ti.raw(field), ti.at(field)


def _application(spec: Node, ti: Node, notes: _Notes) -> Application:
    master = _replica(ti, Role.CHIEF)
    image = master.text("imageUri") if master else None
    runtime, runtime_path = _effective(spec, ti, "runtimeVersion")
    python, python_path = _effective(spec, ti, "pythonVersion")
    module, module_path = _effective(spec, ti, "pythonModule", "moduleName")
    if image is not None:
        if runtime is not None:
            notes.error(
                "runtimeVersion and masterConfig.imageUri are both set",
                runtime_path,
                "aip.runtime_or_image",
                allowed="either runtimeVersion (with pythonVersion) for a Python package, or masterConfig.imageUri",
            )
        assert master is not None
        return Container(
            image_uri=image,
            command=master.strs("containerCommand") or (),
            args=master.strs("containerArgs") or (),
            at={"": master.path, "image_uri": master.at("imageUri")},
        )
    if master is not None:
        for key in ("containerCommand", "containerArgs"):
            if key in master:
                notes.error(
                    f"masterConfig.{key} is set but there is no custom container image",
                    master.at(key),
                    "aip.container_command_args",
                    allowed="containerCommand/containerArgs only with masterConfig.imageUri",
                )
    # gcloud's --packages replaces trainingInput.packageUris, like every other flag.
    uris = (spec.strs("packages") if "packages" in spec else ti.strs("packageUris")) or ()
    uris_path = spec.at("packages") if "packages" in spec else ti.at("packageUris")
    source_path = spec.text("packagePath")
    if not isinstance(module, str) or not module:
        notes.error(
            "no Python module to run: set trainingInput.pythonModule or moduleName",
            module_path,
            "aip.pythonModule",
            allowed="a module name such as trainer.task, or masterConfig.imageUri for a custom container",
        )
        module = ""
    if not uris and source_path is None:
        notes.error(
            "no training package: set trainingInput.packageUris, packages or packagePath",
            uris_path,
            "aip.gcloud.packages_needed",
            allowed="gs:// package URIs, or packagePath (a local directory packaged like gcloud --package-path)",
        )
    return PythonPackage(
        module=str(module),
        source_path=source_path,
        package_uris=uris,
        runtime_version=runtime if isinstance(runtime, str) else None,
        python_version=python if isinstance(python, str) else None,
        at={
            "": ti.path,
            "module": module_path,
            "source_path": spec.at("packagePath"),
            "package_uris": uris_path,
            "runtime_version": runtime_path,
            "python_version": python_path,
        },
    )


def convert(doc: Node) -> TrainingJob:
    meta = metadata_fields(doc)
    spec = doc.child("spec")
    if spec is None:
        raise ConversionError("spec is missing")
    ti = spec.child("trainingInput")
    if ti is None:
        raise ConversionError("trainingInput is missing")
    notes = _Notes()
    job_id = spec.text("jobId")
    if job_id is not None and job_id != meta["name"]:
        notes.error(
            f"jobId {job_id!r} differs from metadata.name {meta['name']!r}",
            spec.at("jobId"),
            "aip.jobId.required",
            allowed="the same name in both places, or no jobId",
        )
    ti = overlay(spec, ti)
    tier = ti.text("scaleTier")
    if tier is None:
        # The service reads a job without scaleTier as BASIC (the hyperparameter samples rely on it).
        notes.warn("trainingInput.scaleTier is not set: read as BASIC, as AI Platform Training did "
                   "(one n1-standard-4 master); set scaleTier to say so", ti.path, "aip.scaleTier.default",
                   source="tools/catalog/reference/job_rules.json")
        tier = "BASIC"
    for key in _NOT_CARRIED:
        if ti.raw(key) not in (None, False, "", {}):  # false (what describe prints) loses nothing
            notes.warn(f"trainingInput.{key} is accepted but trainjobs does not carry it into the Vertex AI "
                       "request yet", ti.at(key), "aip.gcloud.not_carried")
    pools: tuple[WorkerPool, ...]
    if tier == "CUSTOM":
        pools = _custom_pools(ti, notes)
    else:
        pools = _tier_pools(tier, ti, notes)
    pools = _merge_tpu(pools, ti, notes)
    if not pools:
        raise ConversionError("no master pool", notes=tuple(notes))
    region, region_path = _effective(spec, ti, "region")
    job_dir, job_dir_path = _effective(spec, ti, "jobDir")
    args, args_path = _effective(spec, ti, "args")
    service_account, sa_path = _effective(spec, ti, "serviceAccount")
    sched = ti.child("scheduling")
    scheduling = Scheduling()
    if sched is not None:
        scheduling = Scheduling(
            max_wait_seconds=sched.duration("maxWaitTime"),
            max_running_seconds=sched.duration("maxRunningTime"),
            restart_job_on_worker_restart=sched.flag("resilientToWorkerRestart"),
            strategy=sched.text("strategy"),
            at={"": sched.path, "max_wait": sched.at("maxWaitTime"), "max_running": sched.at("maxRunningTime"),
                "strategy": sched.at("strategy")},
        )
    application = _application(spec, ti, notes)
    if isinstance(application, Container) and ti.raw("useChiefInTfConfig") is not True and len(pools) > 1:
        notes.warn(
            "on Vertex AI the primary replica is named 'chief' in TF_CONFIG; AI Platform named it "
            "'master' for custom containers unless useChiefInTfConfig was true",
            ti.at("useChiefInTfConfig") if "useChiefInTfConfig" in ti else ti.path,
            "aip.useChiefInTfConfig",
        )
    if not isinstance(args, (list, type(None))) or (args and not all(isinstance(a, str) for a in args)):
        raise ConversionError("args must be a list of strings")
    return TrainingJob(
        name=meta["name"],
        team=meta["team"],
        description=meta["description"],
        display_name=meta["display_name"],
        labels=merge_labels(meta["labels"], spec.str_map("labels")),
        region=region if isinstance(region, str) else None,
        pools=pools,
        application=application,
        user_args=tuple(args or ()),
        output=OutputDir(uri=job_dir, job_dir=True, at={"": job_dir_path}) if isinstance(job_dir, str) else None,
        staging_bucket=spec.text("stagingBucket"),
        scheduling=scheduling,
        service_account=service_account if isinstance(service_account, str) else None,
        hyperparameters=_hyperparameters(ti.child("hyperparameters")),
        source_format=SourceFormat.AI_PLATFORM,
        desired_state=spec.text("desiredState") or "COMPLETED",
        vertex=_vertex_options(ti),
        notes=tuple(notes),
        at={
            "": ti.path,
            "name": meta["at_name"],
            "labels": meta["at_labels"],
            "region": region_path,
            "pools": ti.path,
            "application": ti.path,
            "args": args_path,
            "staging_bucket": spec.at("stagingBucket"),
            "service_account": sa_path,
            "scheduling": ti.at("scheduling"),
        },
    )
