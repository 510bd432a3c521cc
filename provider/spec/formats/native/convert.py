"""The native spec body (``spec.workerPools``, ``spec.application`` ...) -> TrainingJob.

The pool, disk, application, scheduling and tuning readers are the native format's own; the
AI Platform and Vertex converters read their bodies with their own field names.
"""

from __future__ import annotations

from provider.spec.envelope import body, merge_labels, metadata_fields
from provider.spec.formats.native.tuning import hyperparameters
from provider.spec.model import (
    ACCELERATOR_TYPE_UNSPECIFIED,
    Accelerator,
    Application,
    Container,
    ContainerBuild,
    Disk,
    EnvVar,
    NoAccelerator,
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

POOL_KEYS = {role.value: role for role in Role}


def accelerator(node: Node | None) -> Accelerator | None:
    """The accelerator attached (None: none, ACCELERATOR_TYPE_UNSPECIFIED included: see ``no_accelerator``)."""
    if node is None or node.text("type") in (None, ACCELERATOR_TYPE_UNSPECIFIED):
        return None
    return Accelerator(
        type=node.req_str("type"),
        count=node.integer("count") or 0,
        at={"": node.path, "type": node.at("type"), "count": node.at("count")},
    )


def no_accelerator(node: Node | None) -> NoAccelerator | None:
    """``accelerator: {type: ACCELERATOR_TYPE_UNSPECIFIED, count: 0}`` (either part alone too): none, as written."""
    if node is None or node.text("type") not in (None, ACCELERATOR_TYPE_UNSPECIFIED):
        return None
    return NoAccelerator(type=node.text("type"), count=node.integer("count"),
                         at={"": node.path, "type": node.at("type"), "count": node.at("count")})


def disk(node: Node | None, type_key: str = "type", size_key: str = "sizeGb") -> Disk:
    if node is None:
        return Disk()
    return Disk(
        type=node.text(type_key),
        size_gb=node.integer(size_key),
        at={"": node.path, "type": node.at(type_key), "size_gb": node.at(size_key)},
    )


def pool(role: Role, node: Node) -> WorkerPool:
    override = None
    if any(k in node for k in ("image", "command", "args", "container", "env")):
        override = PoolOverride(image_uri=node.text("image"), command=node.strs("command"), args=node.strs("args"),
                                container=node.flag("container"), env=env_vars(node) if "env" in node else None)
    return WorkerPool(
        role=role,
        machine_type=node.req_str("machineType"),
        replica_count=node.integer("replicas", 1) or 0,
        accelerator=accelerator(node.child("accelerator")),
        no_accelerator=no_accelerator(node.child("accelerator")),
        tpu_topology=node.text("tpuTopology"),
        disk=disk(node.child("disk")),
        override=override,
        reservation=reservation(node.child("reservationAffinity")),
        gpu_partition_size=node.text("gpuPartitionSize"),
        nfs_mounts=nfs_mounts(node),
        lustre_mounts=lustre_mounts(node),
        at={
            "": node.path,
            "machine_type": node.at("machineType"),
            "replica_count": node.at("replicas"),
            "accelerator": node.at("accelerator"),
            "tpu_topology": node.at("tpuTopology"),
            "image": node.at("image"),
            "gpu_partition_size": node.at("gpuPartitionSize"),
            "nfs_mounts": node.at("nfsMounts"),
            "lustre_mounts": node.at("lustreMounts"),
        },
    )


def application(node: Node) -> Application:
    pkg = node.child("pythonPackage")
    ctr = node.child("container")
    if pkg is not None and ctr is None:
        return PythonPackage(
            module=pkg.req_str("module"),
            source_path=pkg.text("path"),
            package_uris=pkg.strs("uris") or (),
            executor_image_uri=pkg.text("executorImage"),
            runtime_version=pkg.text("runtimeVersion"),
            python_version=pkg.text("pythonVersion"),
            args=pkg.strs("args") or (),
            requirements=pkg.strs("requirements") or (),
            extra_packages=pkg.strs("extraPackages") or (),
            at={
                "": pkg.path,
                "module": pkg.at("module"),
                "source_path": pkg.at("path"),
                "package_uris": pkg.at("uris"),
                "executor_image_uri": pkg.at("executorImage"),
                "runtime_version": pkg.at("runtimeVersion"),
                "python_version": pkg.at("pythonVersion"),
                "requirements": pkg.at("requirements"),
                "extra_packages": pkg.at("extraPackages"),
            },
        )
    if ctr is not None and pkg is None:
        build = ctr.child("build")
        return Container(
            image_uri=ctr.text("image"),
            build=ContainerBuild(
                context=build.req_str("context"),
                dockerfile=build.text("dockerfile"),
                at={"": build.path, "context": build.at("context")},
            )
            if build is not None
            else None,
            command=ctr.strs("command") or (),
            args=ctr.strs("args") or (),
            at={"": ctr.path, "image_uri": ctr.at("image"), "build": ctr.at("build")},
        )
    raise ConversionError("application needs exactly one of pythonPackage or container")


def env_vars(node: Node, key: str = "env") -> tuple[EnvVar, ...]:
    return tuple(EnvVar(name=k, value=v, at={"": node.at(key) + (k,)}) for k, v in node.str_map(key))


def scheduling(node: Node | None) -> Scheduling:
    if node is None:
        return Scheduling()
    vertex_wait = "maxWaitDuration" in node and "maxWaitTime" not in node
    wait_key = "maxWaitDuration" if vertex_wait else "maxWaitTime"
    return Scheduling(
        max_wait_seconds=node.duration(wait_key),
        max_running_seconds=node.duration("maxRunningTime"),
        restart_job_on_worker_restart=node.given_flag("restartJobOnWorkerRestart"),
        strategy=node.text("strategy"),
        disable_retries=node.given_flag("disableRetries"),
        max_wait_is_vertex=vertex_wait,
        at={
            "": node.path,
            "max_wait": node.at(wait_key),
            "disable_retries": node.at("disableRetries"),
            "max_running": node.at("maxRunningTime"),
            "strategy": node.at("strategy"),
        },
    )


def output_dir(spec: Node) -> OutputDir | None:
    if spec.text("jobDir") is not None:
        return OutputDir(uri=spec.req_str("jobDir"), job_dir=True, at={"": spec.at("jobDir")})
    if spec.text("baseOutputDirectory") is not None:
        return OutputDir(uri=spec.req_str("baseOutputDirectory"), job_dir=False, at={"": spec.at("baseOutputDirectory")})
    return None


def convert(doc: Node) -> TrainingJob:
    meta = metadata_fields(doc)
    spec = body(doc)
    pools_node = spec.child("workerPools")
    if pools_node is None:
        raise ConversionError("workerPools is missing")
    pools = []
    for key, value in pools_node.data.items():
        role = POOL_KEYS.get(key)
        if role is None:
            raise ConversionError(f"unknown pool {key}")
        pools.append(pool(role, Node(value, pools_node.at(key))))
    pools.sort(key=lambda p: p.role.index)
    if not pools or pools[0].role is not Role.CHIEF:
        raise ConversionError("the chief pool is missing")
    app_node = spec.child("application")
    if app_node is None:
        raise ConversionError("application is missing")
    return TrainingJob(
        name=meta.name,
        team=meta.team,
        description=meta.description,
        display_name=meta.display_name,
        labels=merge_labels(meta.labels, spec.str_map("labels")),
        region=spec.text("region"),
        pools=tuple(pools),
        application=application(app_node),
        user_args=spec.strs("args") or (),
        env=env_vars(spec),
        output=output_dir(spec),
        staging_bucket=spec.text("stagingBucket"),
        scheduling=scheduling(spec.child("scheduling")),
        service_account=spec.text("serviceAccount"),
        hyperparameters=hyperparameters(spec.child("hyperparameters")),
        vertex=options(spec),
        source_format=SourceFormat.NATIVE,
        desired_state=spec.text("desiredState") or "COMPLETED",
        at={
            "": spec.path,
            "name": meta.at_name,
            "labels": meta.at_labels,
            "region": spec.at("region"),
            "pools": spec.at("workerPools"),
            "application": spec.at("application"),
            "env": spec.at("env"),
            "args": spec.at("args"),
            "staging_bucket": spec.at("stagingBucket"),
            "service_account": spec.at("serviceAccount"),
            "scheduling": spec.at("scheduling"),
        },
    )
