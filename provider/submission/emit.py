"""TrainingJob -> the native spec document (what ``trainjobs convert`` prints)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from provider.catalog import CATALOG
from provider.spec.envelope import API_VERSION
from provider.spec.model import Container, PythonPackage, TrainingJob, WorkerPool
from provider.spec.reader import format_duration
from provider.submission.emit_tuning import tuning
from provider.submission.request import default_executor_image, mounts_json, reservation_json, vertex_options

Json = dict[str, Any]


def _default_image(job: TrainingJob, pool: WorkerPool) -> str | None:
    """The image a package without runtimeVersion or executorImage runs in this pool, if any."""
    app = job.application
    if not isinstance(app, PythonPackage) or app.executor_image_uri or app.runtime_version:
        return None
    if pool.override is not None and pool.override.image_uri:
        return None
    if not CATALOG.default_container_served(dt.date.today()):
        return None  # never write a retired default: validation says what to choose instead
    return default_executor_image(job.region, pool.gpus > 0)


def _pool(pool: WorkerPool, chief: bool, job: TrainingJob) -> Json:
    out: Json = {"machineType": pool.machine_type}
    if not chief:
        out["replicas"] = pool.replica_count
    if pool.accelerator is not None:
        out["accelerator"] = {"type": pool.accelerator.type, "count": pool.accelerator.count}
    elif pool.no_accelerator is not None:  # written at the defaults: kept as written, as gcloud sends them
        none = {"type": pool.no_accelerator.type, "count": pool.no_accelerator.count}
        out["accelerator"] = {k: v for k, v in none.items() if v is not None}
    if pool.tpu_topology is not None:  # "" too: kept as written
        out["tpuTopology"] = pool.tpu_topology
    disk = {"type": pool.disk.type, "sizeGb": pool.disk.size_gb}
    if any(v is not None for v in disk.values()):  # "" and 0 too: the request sends what is written
        out["disk"] = {k: v for k, v in disk.items() if v is not None}
    ov = pool.override
    if ov is not None:
        if ov.image_uri:
            out["image"] = ov.image_uri
        if ov.command is not None:
            out["command"] = list(ov.command)
        if ov.args is not None:
            out["args"] = list(ov.args)
        if ov.container:
            out["container"] = True
        if ov.env is not None:
            out["env"] = {e.name: e.value for e in ov.env}
    if pool.reservation is not None:
        out["reservationAffinity"] = reservation_json(pool.reservation)
    if pool.gpu_partition_size is not None:
        out["gpuPartitionSize"] = pool.gpu_partition_size
    out.update(mounts_json(pool))
    image = _default_image(job, pool)
    if image is not None and image != _default_image(job, job.chief):
        out["image"] = image  # the GPU build where the chief runs the CPU one, or the reverse
    return out


def _application(job: TrainingJob) -> Json:
    app = job.application
    if isinstance(app, PythonPackage):
        pkg: Json = {}
        if app.source_path:
            pkg["path"] = app.source_path
        if app.package_uris:
            pkg["uris"] = list(app.package_uris)
        pkg["module"] = app.module
        if app.args:
            pkg["args"] = list(app.args)
        if app.executor_image_uri:
            pkg["executorImage"] = app.executor_image_uri
        elif not app.runtime_version and CATALOG.default_container_served(dt.date.today()):
            pkg["executorImage"] = default_executor_image(job.region, job.chief.gpus > 0)
        if app.runtime_version:
            pkg["runtimeVersion"] = app.runtime_version
        if app.python_version:
            pkg["pythonVersion"] = app.python_version
        if app.requirements:
            pkg["requirements"] = list(app.requirements)
        if app.extra_packages:
            pkg["extraPackages"] = list(app.extra_packages)
        return {"pythonPackage": pkg}
    assert isinstance(app, Container)
    ctr: Json = {}
    if app.image_uri:
        ctr["image"] = app.image_uri
    if app.build:
        ctr["build"] = {"context": app.build.context, **({"dockerfile": app.build.dockerfile} if app.build.dockerfile else {})}
    if app.command:
        ctr["command"] = list(app.command)
    if app.args:
        ctr["args"] = list(app.args)
    return {"container": ctr}


def _metadata(job: TrainingJob) -> Json:
    metadata: Json = {"name": job.name}
    if job.team:
        metadata["team"] = job.team
    if job.description:
        metadata["description"] = job.description
    if job.display_name:
        metadata["displayName"] = job.display_name
    if job.labels:
        metadata["labels"] = dict(job.labels)
    return metadata


def _scheduling(job: TrainingJob) -> Json:
    s = job.scheduling
    sched: Json = {}
    if s.max_wait_seconds is not None:
        # Vertex AI's maxWaitDuration stays itself; AI Platform's maxWaitTime likewise.
        sched["maxWaitDuration" if s.max_wait_is_vertex else "maxWaitTime"] = format_duration(s.max_wait_seconds)
    if s.max_running_seconds is not None:
        sched["maxRunningTime"] = format_duration(s.max_running_seconds)
    if s.restart_job_on_worker_restart is not None:
        sched["restartJobOnWorkerRestart"] = s.restart_job_on_worker_restart
    if s.strategy:
        sched["strategy"] = s.strategy
    if s.disable_retries is not None:
        sched["disableRetries"] = s.disable_retries
    return sched


def to_native(job: TrainingJob) -> Json:
    spec: Json = {"region": job.region}
    names = {0: "chief", 1: "workers", 2: "parameterServers", 3: "evaluators"}
    spec["workerPools"] = {names[p.role.index]: _pool(p, p.role.index == 0, job) for p in job.pools}
    spec["application"] = _application(job)
    if job.user_args:
        spec["args"] = list(job.user_args)
    if job.env:
        spec["env"] = {e.name: e.value for e in job.env}
    if job.output is not None:
        spec["jobDir" if job.output.job_dir else "baseOutputDirectory"] = job.output.uri
    if job.staging_bucket:
        spec["stagingBucket"] = job.staging_bucket
    sched = _scheduling(job)
    if sched:
        spec["scheduling"] = sched
    if job.service_account:
        spec["serviceAccount"] = job.service_account
    spec.update(vertex_options(job))
    if job.vertex.kms_key_name:
        spec["kmsKey"] = job.vertex.kms_key_name
    if job.desired_state != "COMPLETED":
        spec["desiredState"] = job.desired_state
    if job.hyperparameters is not None:
        spec["hyperparameters"] = tuning(job.hyperparameters)
    return {"apiVersion": API_VERSION, "kind": "TrainingJob", "metadata": _metadata(job), "spec": spec}
