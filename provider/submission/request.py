"""TrainingJob -> the exact Vertex AI request (REST JSON of google.cloud.aiplatform.v1).

The body is what ``JobServiceClient.create_custom_job`` / ``create_hyperparameter_tuning_job``
send: camelCase keys, int64 values as strings; the type itself (``VertexRequest``) lives in
provider.core.vertex_request, which imports neither the spec model nor the catalog. It is plain data, so the validate and plan
paths can show it without importing the SDK; the Vertex backend parses it with
``aiplatform_v1.CustomJob.from_json``, and tests assert it for every example spec.
"""

from __future__ import annotations

from provider.catalog import CATALOG
from provider.core.job_kinds import CUSTOM_JOB, TUNING_JOB
from provider.core.vertex_request import Json, VertexRequest
from provider.spec.model import (
    Container,
    PscInterface,
    PythonPackage,
    Reservation,
    TrainingJob,
    WorkerPool,
)
from provider.spec.reader import format_duration
from provider.submission.study_request import study_spec

__all__ = ["build_request", "custom_job_spec", "default_executor_image", "executor_image",
           "image_host", "job_args", "reservation_json", "vertex_options"]


def image_host(region: str | None) -> str:
    """Prebuilt containers live in us-, europe- and asia-docker.pkg.dev."""
    if region and region.startswith("europe-"):
        return "europe-docker.pkg.dev"
    if region and (region.startswith("asia-") or region.startswith("australia-")):
        return "asia-docker.pkg.dev"
    return "us-docker.pkg.dev"


def default_executor_image(region: str | None, gpu: bool) -> str:
    """The prebuilt container of a Python package that names neither runtimeVersion nor an image.

    Seeds 001 and 003 submit such packages; the catalog's ``default_without_runtime`` says which
    container runs them (CPU or GPU build per pool) and why.
    """
    default = CATALOG.runtimes()["default_without_runtime"]
    return f"{image_host(region)}/vertex-ai/training/{default['gpu' if gpu else 'cpu']}:latest"


def executor_image(job: TrainingJob, pool: WorkerPool) -> str | None:
    """The prebuilt container a pool runs: explicit, or mapped from the AI Platform runtime."""
    app = job.application
    if not isinstance(app, PythonPackage):
        return None
    if pool.override and pool.override.image_uri and not pool.override.container:
        return pool.override.image_uri
    if app.executor_image_uri:
        return app.executor_image_uri
    if app.runtime_version is None:
        return default_executor_image(job.region, pool.gpus > 0)
    name = CATALOG.implied_container(app.runtime_version, app.python_version, pool.gpus > 0)
    return f"{image_host(job.region)}/vertex-ai/training/{name}:latest" if name else None


def job_args(job: TrainingJob, base: tuple[str, ...]) -> list[str]:
    """The trainer's argv: its own args, the user args, then ``--job-dir DIR`` like the service."""
    args = list(base) + list(job.user_args)
    if job.output is not None and job.output.job_dir:
        args += ["--job-dir", job.output.uri]
    return args


def _machine_spec(pool: WorkerPool) -> Json:
    spec: Json = {"machineType": pool.machine_type}
    if pool.accelerator is not None:
        spec["acceleratorType"] = pool.accelerator.type
        spec["acceleratorCount"] = pool.accelerator.count
    elif pool.no_accelerator is not None:  # written at the defaults: sent as written, as gcloud sends them
        if pool.no_accelerator.type is not None:
            spec["acceleratorType"] = pool.no_accelerator.type
        if pool.no_accelerator.count is not None:
            spec["acceleratorCount"] = pool.no_accelerator.count
    if pool.tpu_topology is not None:  # "" too: sent as written, as gcloud sends it
        spec["tpuTopology"] = pool.tpu_topology
    if pool.reservation is not None:
        spec["reservationAffinity"] = reservation_json(pool.reservation)
    if pool.gpu_partition_size is not None:
        spec["gpuPartitionSize"] = pool.gpu_partition_size
    return spec


def mounts_json(pool: WorkerPool) -> Json:
    """nfsMounts and lustreMounts as the REST API writes them (only those the pool has)."""
    out: Json = {}
    if pool.nfs_mounts:
        out["nfsMounts"] = [{"server": m.server, "path": m.path, "mountPoint": m.mount_point} for m in pool.nfs_mounts]
    if pool.lustre_mounts:
        out["lustreMounts"] = [{"instanceIp": m.instance_ip, "volumeHandle": m.volume_handle,
                                "filesystem": m.filesystem, "mountPoint": m.mount_point} for m in pool.lustre_mounts]
    return out


def reservation_json(reservation: Reservation) -> Json:
    """A ReservationAffinity as gcloud sends it: what was written, ``key: ""`` too (``values: []`` is left
    out, as apitools leaves an empty list out)."""
    out: Json = {"reservationAffinityType": reservation.type}
    if reservation.key is not None:
        out["key"] = reservation.key
    if reservation.values:
        out["values"] = list(reservation.values)
    return out


def _env(job: TrainingJob, pool: WorkerPool) -> list[Json]:
    """The pool's env: the job's, or the pool's own where it runs an image of its own (PoolOverride.env)."""
    own = pool.override.env if pool.override is not None else None
    return [{"name": e.name, "value": e.value} for e in (job.env if own is None else own)]


def _disk_spec(pool: WorkerPool) -> Json | None:
    """The boot disk, with the catalog's defaults for what the pool leaves out; None when it writes neither.

    What is written is sent as written, ``""`` and 0 too (gcloud sends them; Vertex AI reads them as its
    defaults). A disk written only at those defaults gets no catalog default beside them: the request
    then reads as one without a disk (Diff, the fingerprint), as a state written before has it.
    """
    disk = pool.disk
    if disk.type is None and disk.size_gb is None:
        return None
    written = {"bootDiskType": disk.type, "bootDiskSizeGb": disk.size_gb}
    if not (disk.type or disk.size_gb):
        return {name: value for name, value in written.items() if value is not None}
    limits = CATALOG.limits()["boot_disk"]
    defaults = {"bootDiskType": limits["default_type"], "bootDiskSizeGb": limits["default_gb"]}
    return {name: defaults[name] if value is None else value for name, value in written.items()}


def _runs_container(job: TrainingJob, pool: WorkerPool) -> bool:
    return isinstance(job.application, Container) or (pool.override is not None and pool.override.container)


def _container_spec(job: TrainingJob, pool: WorkerPool, image_uri: str | None) -> Json:
    """The pool's ContainerSpec: the job's container, or the pool's own (a per-pool override)."""
    app = job.application
    ov = pool.override
    own_container = bool(ov and ov.container)
    app_container = app if isinstance(app, Container) else None
    command = list(ov.command) if ov and ov.command is not None else list(getattr(app, "command", ()))
    own_args = ov.args if ov and ov.args is not None else (app_container.args if app_container else ())
    image = (ov.image_uri if ov and ov.image_uri else None) or image_uri or \
        (app_container.image_uri if app_container else None)
    if image is None:
        raise ValueError(f"{job.name}: the container is built from source; pass the pushed image (image_uri)")
    container: Json = {"imageUri": image}
    if command:
        container["command"] = command
    args = list(own_args) if own_container else job_args(job, tuple(own_args))
    if args:
        container["args"] = args
    env = _env(job, pool)
    if env:
        container["env"] = env
    return container


def _package_spec(job: TrainingJob, pool: WorkerPool, package_uris: list[str]) -> Json:
    """The pool's PythonPackageSpec: the job's package on its (mapped) prebuilt container."""
    app = job.application
    assert isinstance(app, PythonPackage)
    ov = pool.override
    own = ov.args if ov and ov.args is not None else app.args
    package: Json = {
        "executorImageUri": executor_image(job, pool) or "",
        "packageUris": package_uris,
        "pythonModule": app.module,
    }
    args = job_args(job, tuple(own))
    if args:
        package["args"] = args
    env = _env(job, pool)
    if env:
        package["env"] = env
    return package


def _pool_spec(job: TrainingJob, pool: WorkerPool, package_uris: list[str], image_uri: str | None) -> Json:
    out: Json = {"machineSpec": _machine_spec(pool), "replicaCount": str(pool.replica_count)}
    disk = _disk_spec(pool)
    if disk is not None:
        out["diskSpec"] = disk
    out.update(mounts_json(pool))
    if _runs_container(job, pool):
        out["containerSpec"] = _container_spec(job, pool, image_uri)
    else:
        out["pythonPackageSpec"] = _package_spec(job, pool, package_uris)
    return out


def custom_job_spec(job: TrainingJob, package_uris: list[str] | None = None, image_uri: str | None = None) -> Json:
    """The CustomJobSpec (also the trialJobSpec of a tuning job).

    ``package_uris`` are the gs:// URIs of the packages (the staged build of a local package
    path first); ``image_uri`` replaces a container built from source with its pushed digest.
    """
    app = job.application
    uris = list(package_uris) if package_uris is not None else list(getattr(app, "package_uris", ()))
    pools: list[Json] = []
    by_index = {p.role.index: p for p in job.pools}
    for index in range(max(by_index) + 1):
        pool = by_index.get(index)
        # Pools 1-3 are positional: an empty {} keeps the place of a skipped one.
        pools.append(_pool_spec(job, pool, uris, image_uri) if pool is not None else {})
    spec: Json = {"workerPoolSpecs": pools}
    sched: Json = {}
    if job.scheduling.max_running_seconds is not None:
        sched["timeout"] = format_duration(job.scheduling.max_running_seconds)
    # What the spec wrote is sent as written, an explicit default (false, STRATEGY_UNSPECIFIED) too:
    # gcloud sends a config's explicit values (apitools encodes every assigned field).
    if job.scheduling.restart_job_on_worker_restart is not None:
        sched["restartJobOnWorkerRestart"] = job.scheduling.restart_job_on_worker_restart
    if job.scheduling.strategy:
        sched["strategy"] = job.scheduling.strategy
    if job.scheduling.strategy == "FLEX_START" and job.scheduling.max_wait_seconds is not None:
        sched["maxWaitDuration"] = format_duration(job.scheduling.max_wait_seconds)
    if job.scheduling.disable_retries is not None:
        sched["disableRetries"] = job.scheduling.disable_retries
    if sched:
        spec["scheduling"] = sched
    if job.service_account:
        spec["serviceAccount"] = job.service_account
    if job.output is not None:
        spec["baseOutputDirectory"] = {"outputUriPrefix": job.output.uri}
    spec.update(vertex_options(job))
    return spec


def _psc(psc: PscInterface | None) -> Json | None:
    if psc is None:
        return None
    out: Json = {}
    if psc.network_attachment:
        out["networkAttachment"] = psc.network_attachment
    if psc.dns_peering:
        out["dnsPeeringConfigs"] = [{"domain": d.domain, "targetProject": d.target_project,
                                     "targetNetwork": d.target_network} for d in psc.dns_peering]
    return out


def vertex_options(job: TrainingJob) -> Json:
    """persistentResourceId, enableWebAccess, network, reservedIpRanges, tensorboard, experiment(Run),
    enableDashboardAccess, protectedArtifactLocationId, models, pscInterfaceConfig (the CustomJobSpec's
    names, which the native spec shares)."""
    v = job.vertex
    values: Json = {
        "persistentResourceId": v.persistent_resource_id,
        "enableWebAccess": v.enable_web_access,
        "network": v.network,
        "reservedIpRanges": list(v.reserved_ip_ranges),
        "tensorboard": v.tensorboard,
        "experiment": v.experiment,
        "experimentRun": v.experiment_run,
        "enableDashboardAccess": v.enable_dashboard_access,
        "protectedArtifactLocationId": v.protected_artifact_location_id,
        "models": list(v.models),
        "pscInterfaceConfig": _psc(v.psc_interface),
    }
    # An explicit false (enableWebAccess: false) is sent as written, as gcloud sends it.
    return {name: value for name, value in values.items() if value or value is False}


def _encryption(job: TrainingJob, body: Json) -> Json:
    """gcloud --kms-key: the job's customer-managed key, CustomJob.encryptionSpec (beside the spec)."""
    if job.vertex.kms_key_name:
        body["encryptionSpec"] = {"kmsKeyName": job.vertex.kms_key_name}
    return body


def request_where(job: TrainingJob, project: str) -> tuple[str, str]:
    """The kind and the parent of ``job``'s create request, known before its image and account."""
    kind = (CUSTOM_JOB if job.hyperparameters is None else TUNING_JOB).name
    return kind, f"projects/{project}/locations/{job.region}"


def build_request(
    job: TrainingJob,
    project: str,
    labels: dict[str, str] | None = None,
    package_uris: list[str] | None = None,
    image_uri: str | None = None,
) -> VertexRequest:
    """The create request for ``job``: a CustomJob, or a HyperparameterTuningJob when it tunes."""
    all_labels = {**job.labels_dict, **(labels or {})}
    spec = custom_job_spec(job, package_uris, image_uri)
    kind, parent = request_where(job, project)
    display = job.display_name or job.name
    hp = job.hyperparameters
    if hp is None:
        body: Json = {"displayName": display, "jobSpec": spec}
        if all_labels:
            body["labels"] = all_labels
        return VertexRequest(kind, parent, _encryption(job, body))
    body = {
        "displayName": display,
        "studySpec": study_spec(hp),
        "maxTrialCount": hp.max_trials,
        "parallelTrialCount": hp.max_parallel_trials,
        "trialJobSpec": spec,
    }
    if hp.max_failed_trials is not None:
        body["maxFailedTrialCount"] = hp.max_failed_trials
    if all_labels:
        body["labels"] = all_labels
    return VertexRequest(kind, parent, _encryption(job, body))


