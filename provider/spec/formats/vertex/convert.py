"""Vertex AI's ``CustomJobSpec`` (REST camelCase or the Python SDK's snake_case) -> TrainingJob.

Seed 004 submits ``worker_pool_specs`` through ``aiplatform.CustomJob``; the REST API and
``gcloud ai custom-jobs create --config`` take ``workerPoolSpecs``. Both are accepted as the
spec body, with the CustomJob's own fields (``displayName``, ``labels``) and the SDK's
``staging_bucket`` / ``base_output_dir`` beside them, and ``region`` for the location.
"""

from __future__ import annotations

from provider.core.record import replace
from provider.spec.envelope import Metadata, body, merge_labels, metadata_fields
from provider.spec.formats.vertex.keys import Keys, is_snake_case
from provider.spec.model import (
    ACCELERATOR_TYPE_UNSPECIFIED,
    Accelerator,
    Application,
    Container,
    Disk,
    DocPath,
    EnvVar,
    NoAccelerator,
    Note,
    OutputDir,
    PoolOverride,
    PythonPackage,
    Role,
    Scheduling,
    SourceFormat,
    TrainingJob,
    WorkerPool,
)
from provider.spec.reader import ConversionError, Node
from provider.spec.vertex_fields import lustre_mounts, nfs_mounts, options, reservation


def _env(node: Node, k: Keys) -> tuple[EnvVar, ...]:
    out = []
    for item in node.items("env"):
        out.append(EnvVar(name=item.req_str("name"), value=item.text("value") or "", at={"": item.path}))
    return tuple(out)


def _pool(role: Role, node: Node, k: Keys) -> WorkerPool:
    ms = node.child(k("machineSpec"))
    if ms is None:
        raise ConversionError("machineSpec is missing")
    acc_type, acc_count = ms.text(k("acceleratorType")), ms.integer(k("acceleratorCount"))
    acc_at = {"": ms.path, "type": ms.at(k("acceleratorType")), "count": ms.at(k("acceleratorCount"))}
    acc, none = None, None
    if acc_type is not None and acc_type != ACCELERATOR_TYPE_UNSPECIFIED:
        acc = Accelerator(type=acc_type, count=acc_count or 0, at=acc_at)
    elif acc_type is not None or acc_count is not None:  # written at the defaults: gcloud sends them
        none = NoAccelerator(type=acc_type, count=acc_count, at=acc_at)
    ds = node.child(k("diskSpec"))
    disk = Disk()
    if ds is not None:
        disk = Disk(
            type=ds.text(k("bootDiskType")),
            size_gb=ds.integer(k("bootDiskSizeGb")),
            at={"": ds.path, "type": ds.at(k("bootDiskType")), "size_gb": ds.at(k("bootDiskSizeGb"))},
        )
    return WorkerPool(
        role=role,
        machine_type=ms.req_str(k("machineType")),
        replica_count=node.integer(k("replicaCount"), 1) or 0,
        accelerator=acc,
        no_accelerator=none,
        tpu_topology=ms.text(k("tpuTopology")),
        disk=disk,
        reservation=reservation(ms.child(k("reservationAffinity")), k),
        gpu_partition_size=ms.text(k("gpuPartitionSize")),
        nfs_mounts=nfs_mounts(node, k),
        lustre_mounts=lustre_mounts(node, k),
        at={
            "": node.path,
            "machine_type": ms.at(k("machineType")),
            "replica_count": node.at(k("replicaCount")),
            "accelerator": ms.at(k("acceleratorType")) if acc_type else ms.path,
            "tpu_topology": ms.at(k("tpuTopology")),
            "gpu_partition_size": ms.at(k("gpuPartitionSize")),
            "nfs_mounts": node.at(k("nfsMounts")),
            "lustre_mounts": node.at(k("lustreMounts")),
        },
    )


def _task(node: Node, k: Keys) -> tuple[str, Node]:
    ctr = node.child(k("containerSpec"))
    pkg = node.child(k("pythonPackageSpec"))
    if (ctr is None) == (pkg is None):
        raise ConversionError("exactly one of containerSpec or pythonPackageSpec")
    return ("container", ctr) if ctr is not None else ("package", pkg)  # type: ignore[return-value]


def _application(kind: str, task: Node, k: Keys) -> Application:
    if kind == "container":
        return Container(
            image_uri=task.req_str(k("imageUri")),
            command=task.strs("command") or (),
            args=task.strs("args") or (),
            at={"": task.path, "image_uri": task.at(k("imageUri")), "command": task.at("command"),
                "args": task.at("args")},
        )
    return PythonPackage(
        module=task.req_str(k("pythonModule")),
        package_uris=task.strs(k("packageUris")) or (),
        executor_image_uri=task.req_str(k("executorImageUri")),
        args=task.strs("args") or (),
        at={
            "": task.path,
            "module": task.at(k("pythonModule")),
            "package_uris": task.at(k("packageUris")),
            "executor_image_uri": task.at(k("executorImageUri")),
            "args": task.at("args"),
        },
    )


def _override(app: Application, kind: str, task: Node, k: Keys) -> PoolOverride | None:
    if isinstance(app, Container) or kind == "container":
        image = task.text(k("imageUri"))
        base_image = app.image_uri if isinstance(app, Container) else None
        command, args = task.strs("command") or (), task.strs("args") or ()
        base_cmd = app.command if isinstance(app, Container) else ()
        if kind == "container" and isinstance(app, PythonPackage):
            return PoolOverride(image_uri=image, command=command, args=args, container=True)
        if (image, command, args) == (base_image, base_cmd, app.args):
            return None
        return PoolOverride(
            image_uri=image if image != base_image else None,
            command=command if command != base_cmd else None,
            args=args if args != app.args else None,
        )
    image = task.text(k("executorImageUri"))
    args = task.strs("args") or ()
    if (image, args) == (app.executor_image_uri, app.args):
        return None
    return PoolOverride(
        image_uri=image if image != app.executor_image_uri else None,
        args=args if args != app.args else None,
    )


def staging_output(bucket: str, name: str, where: DocPath) -> OutputDir:
    """What ``aiplatform.CustomJob(staging_bucket=...)`` does: a per-job output prefix under the bucket.

    The SDK sets ``baseOutputDirectory`` to ``BUCKET/aiplatform-custom-job-TIMESTAMP``, so the job
    gets AIP_MODEL_DIR, AIP_CHECKPOINT_DIR and AIP_TENSORBOARD_LOG_DIR. trainjobs names the prefix
    after the job instead of the time, so a plan and the next apply build the same request.
    """
    return OutputDir(uri=f"{bucket.rstrip('/')}/aiplatform-custom-job-{name}", job_dir=False, at={"": where})


# CustomJobSpec fields gcloud sends that the model has no place for yet (every one it sends is
# carried now: provider/spec/vertex_fields.py).
NOT_CARRIED: tuple[str, ...] = ()


def _not_carried(spec: Node, k: Keys) -> list[Note]:
    return [Note(f"{k(key)} is accepted but trainjobs does not carry it into the Vertex AI request yet",
                 spec.at(k(key)), "vx.gcloud.not_carried")
            for key in NOT_CARRIED
            if spec.raw(k(key)) not in (None, False, "")]  # false (what describe prints) loses nothing


def _output(spec: Node, name: str, k: Keys) -> OutputDir | None:
    """baseOutputDirectory, the SDK's base_output_dir, or a prefix under the staging bucket."""
    out = spec.child(k("baseOutputDirectory"))
    if out is not None:
        return OutputDir(uri=out.req_str(k("outputUriPrefix")), job_dir=False, at={"": out.at(k("outputUriPrefix"))})
    if spec.text("base_output_dir") is not None:
        return OutputDir(uri=spec.req_str("base_output_dir"), job_dir=False, at={"": spec.at("base_output_dir")})
    if spec.text(k("stagingBucket")) is not None:
        return staging_output(spec.req_str(k("stagingBucket")), name, spec.at(k("stagingBucket")))
    return None


def _scheduling(sched: Node | None, k: Keys) -> Scheduling:
    if sched is None:
        return Scheduling()
    return Scheduling(
        max_wait_seconds=sched.duration(k("maxWaitDuration")),
        max_running_seconds=sched.duration("timeout"),
        restart_job_on_worker_restart=sched.given_flag(k("restartJobOnWorkerRestart")),
        strategy=sched.text("strategy"),
        disable_retries=sched.given_flag(k("disableRetries")),
        max_wait_is_vertex=True,
        at={"": sched.path, "max_wait": sched.at(k("maxWaitDuration")), "max_running": sched.at("timeout"),
            "strategy": sched.at("strategy"), "disable_retries": sched.at(k("disableRetries"))},
    )


def convert(doc: Node) -> TrainingJob:
    return custom_job(metadata_fields(doc), body(doc))


def custom_job(meta: Metadata, spec: Node) -> TrainingJob:
    """A CustomJobSpec (``spec``: a document's body, or a tuning job's trialJobSpec) -> TrainingJob."""
    k = Keys(is_snake_case(spec.data))
    notes: list[Note] = []
    specs = spec.items(k("workerPoolSpecs"))
    if not specs or not specs[0].data:
        raise ConversionError("the first worker pool is missing")
    first_kind, first_task = _task(specs[0], k)
    application = _application(first_kind, first_task, k)
    env = _env(first_task, k)
    pools = []
    for index, node in enumerate(specs[:4]):
        if not node.data:  # an empty {} keeps the position of a skipped pool
            continue
        pool = _pool(Role.by_index(index), node, k)
        if index:
            kind, task = _task(node, k)
            if kind == "package" and isinstance(application, Container):
                # a PoolOverride holds an image, command and args: a package pool's module and URIs have no home
                notes.append(Note(
                    "a pythonPackageSpec pool after a containerSpec first pool cannot be carried: trainjobs runs "
                    "the first pool's application in every pool, with an image, command or args of a pool's own",
                    task.path, "trainjobs.pool.package_after_container",
                    allowed="the package in the first pool (a container pool may follow it), or a containerSpec "
                            "image that holds the package in this pool", error=True))
            override = _override(application, kind, task, k)
            own_env = _env(task, k)
            if override is not None and override.image_uri and own_env != env:
                # a pool that runs an image of its own keeps its own env: the SDK's Reduction Server pool has none
                override = replace(override, env=own_env)
            elif own_env != env:
                notes.append(
                    Note(
                        "this pool's env differs from the first pool's; trainjobs gives every pool that runs the "
                        "job's application the same env",
                        task.at("env"),
                        "trainjobs.env.per_pool",
                        allowed="the same env in every pool (a pool that runs an image of its own, such as a "
                                "Reduction Server pool, may have its own)",
                        error=True,
                    )
                )
            if override is not None:
                pool = replace(pool, override=override)
        pools.append(pool)
    notes += _not_carried(spec, k)
    return TrainingJob(
        name=meta.name,
        team=meta.team,
        description=meta.description,
        display_name=spec.text(k("displayName")) or meta.display_name,
        labels=merge_labels(meta.labels, spec.str_map("labels")),
        region=spec.text("region"),
        pools=tuple(pools),
        application=application,
        env=env,
        output=_output(spec, meta.name, k),
        staging_bucket=spec.text(k("stagingBucket")),
        scheduling=_scheduling(spec.child("scheduling"), k),
        service_account=spec.text(k("serviceAccount")),
        vertex=options(spec, k),
        source_format=SourceFormat.VERTEX,
        desired_state=spec.text(k("desiredState")) or "COMPLETED",
        notes=tuple(notes),
        at={
            "": spec.path,
            "name": meta.at_name,
            "labels": meta.at_labels,
            "region": spec.at("region"),
            "pools": spec.at(k("workerPoolSpecs")),
            "application": first_task.path,
            "env": first_task.at("env"),
            "args": first_task.at("args"),
            "staging_bucket": spec.at(k("stagingBucket")),
            "service_account": spec.at(k("serviceAccount")),
            "scheduling": spec.at("scheduling"),
        },
    )
