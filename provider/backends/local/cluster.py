"""What Vertex AI gives each replica, reproduced on localhost.

For every replica of every pool: CLUSTER_SPEC (workerpool0-3, task type/index/trial, the job),
TF_CONFIG (chief/worker/ps, evaluators only as a task, and only for multi-replica jobs), the
AIP_*_DIR variables from baseOutputDirectory, CLOUD_ML_JOB_ID, and MASTER_ADDR/MASTER_PORT/
WORLD_SIZE/RANK for PyTorch. Shapes follow tools/catalog/reference/job_rules.json
(environment_variables.vertex) and the AI Platform distributed PyTorch guide. ``tracking_env``:
the job's project and region, and the experiment and run it is run in, from which
google-cloud-aiplatform inside the trainer finds them (initializer.py, metadata/metadata.py).
"""

from __future__ import annotations

import json
import socket
from typing import Any

from provider.core.record import Record

Json = dict[str, Any]

TASKS = {0: "chief", 1: "worker", 2: "ps", 3: "evaluator"}


class Replica(Record):
    """One replica of a local job: its pool, its index in the pool, its localhost port and its GPUs."""

    pool: int
    index: int
    port: int
    gpus: tuple[int, ...] = ()

    @property
    def name(self) -> str:
        return f"workerpool{self.pool}-{self.index}"

    @property
    def task(self) -> str:
        return TASKS[self.pool]

    @property
    def address(self) -> str:
        return f"localhost:{self.port}"


def pool_specs(job_spec: Json) -> list[Json]:
    """The worker pool specs; an empty {} keeps the place of a skipped pool."""
    specs: list[Json] = job_spec.get("workerPoolSpecs", [])
    return specs


def replica_counts(job_spec: Json) -> dict[int, int]:
    return {i: int(s.get("replicaCount", 1)) for i, s in enumerate(pool_specs(job_spec)) if s}


def gpus_per_replica(spec: Json) -> int:
    machine = spec.get("machineSpec", {})
    from provider.catalog import CATALOG, AcceleratorKind

    acc = str(machine.get("acceleratorType", ""))
    return int(machine.get("acceleratorCount", 0)) if acc and CATALOG.kind_of(acc) is AcceleratorKind.GPU else 0


def free_ports(n: int) -> list[int]:
    """n distinct free TCP ports on localhost (bound together, so never the same one twice)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def layout(job_spec: Json, gpu_devices: list[int] | None = None) -> list[Replica]:
    """Every replica with a port, and its GPUs taken in order from ``gpu_devices``."""
    counts = replica_counts(job_spec)
    specs = pool_specs(job_spec)
    ports = iter(free_ports(sum(counts.values())))
    devices = list(gpu_devices or [])
    out = []
    for pool in sorted(counts):
        need = gpus_per_replica(specs[pool]) if gpu_devices is not None else 0
        for index in range(counts[pool]):
            mine, devices = tuple(devices[:need]), devices[need:]
            out.append(Replica(pool, index, next(ports), mine))
    return out


def output_dirs(job_spec: Json, trial: str = "") -> dict[str, str]:
    """AIP_MODEL_DIR, AIP_CHECKPOINT_DIR and AIP_TENSORBOARD_LOG_DIR, when baseOutputDirectory is set."""
    base = job_spec.get("baseOutputDirectory", {}).get("outputUriPrefix")
    if not base:
        return {}
    base = base.rstrip("/") + "/"
    if trial:
        base += f"{trial}/"
    return {"AIP_MODEL_DIR": base + "model/", "AIP_CHECKPOINT_DIR": base + "checkpoints/",
            "AIP_TENSORBOARD_LOG_DIR": base + "logs/"}


def cluster_spec(replicas: list[Replica], me: Replica, job_spec: Json, trial: str) -> Json:
    cluster: dict[str, list[str]] = {}
    for r in replicas:
        cluster.setdefault(f"workerpool{r.pool}", []).append(r.address)
    return {
        "cluster": cluster,
        "environment": "cloud",
        "task": {"type": f"workerpool{me.pool}", "index": me.index, "trial": trial},
        "job": job_spec,
    }


def tf_config(replicas: list[Replica], me: Replica, job_spec: Json, trial: str, job_id: str) -> Json:
    cluster: dict[str, list[str]] = {}
    for r in replicas:
        if r.pool != 3:  # evaluators are a task type, never a key of cluster
            cluster.setdefault(TASKS[r.pool], []).append(r.address)
    task: Json = {"type": me.task, "index": me.index, "cloud": f"trainjobs-local-{job_id}"}
    if trial:
        task["trial"] = trial
    return {"cluster": cluster, "task": task, "job": job_spec, "environment": "cloud"}


def run_context(experiment: str, run_id: str) -> str:
    """The context of the run ``run_id`` of ``experiment`` (a context's resource name): beside the
    experiment's, ``{experiment ID}-{run ID}``, as the SDK names a run's context."""
    return f"{experiment}-{run_id}"


def trial_run_id(job_id: str, trial: str) -> str:
    """The name of the run a tuning job's trial is run in (its display name): ``{job ID}-{trial ID}``."""
    return f"{job_id}-{trial}"


def trial_run(experiment: str, job_id: str, trial: str) -> str:
    """The ExperimentRun a tuning job's trial is run in when its trialJobSpec names an experiment and
    no run: the context of its run ``trial_run_id`` in ``experiment``. The emulator makes it
    (job_tracking.py, from these same two functions, so the two can never differ)."""
    return run_context(experiment, trial_run_id(job_id, trial))


def tracking_env(job_spec: Json, parent: str, job_id: str = "", trial: str = "") -> dict[str, str]:
    """Where the job runs and what it is tracked in, as the SDK reads them in the trainer.

    CLOUD_ML_PROJECT_ID is the project NUMBER on Vertex AI; here the parent's project, which the SDK
    takes alike. AIP_EXPERIMENT_NAME and AIP_EXPERIMENT_RUN_NAME are the resource names in
    ``jobSpec.experiment`` and ``experimentRun`` (what CustomJob.run(experiment=, experiment_run=)
    sends): the SDK's tracker resolves the run from them, so ``log_params``/``log_metrics`` and
    ``start_run(resume=True)`` in the trainer reach that run; a trial of a tuning job in an experiment
    without a run, its own (``trial_run``). ``tensorboard`` is AIP_TENSORBOARD_RESOURCE_NAME, which
    training_utils reads."""
    parts = parent.split("/")
    env = {"CLOUD_ML_PROJECT_ID": parts[1], "CLOUD_ML_REGION": parts[3]} if len(parts) >= 4 else {}
    for field, name in (("experiment", "AIP_EXPERIMENT_NAME"), ("experimentRun", "AIP_EXPERIMENT_RUN_NAME"),
                        ("tensorboard", "AIP_TENSORBOARD_RESOURCE_NAME")):
        if job_spec.get(field):
            env[name] = str(job_spec[field])
    if trial and job_spec.get("experiment") and not job_spec.get("experimentRun"):
        env["AIP_EXPERIMENT_RUN_NAME"] = trial_run(str(job_spec["experiment"]), job_id, trial)
    return env


def replica_env(replicas: list[Replica], me: Replica, job_spec: Json, job_id: str, trial: str = "",
                parent: str = "") -> dict[str, str]:
    """The variables Vertex AI sets for ``me`` (before the spec's own env)."""
    env = {
        "CLUSTER_SPEC": json.dumps(cluster_spec(replicas, me, job_spec, trial)),
        "CLOUD_ML_JOB_ID": job_id,
        **tracking_env(job_spec, parent, job_id, trial),
    }
    if len(replicas) > 1:
        env["TF_CONFIG"] = json.dumps(tf_config(replicas, me, job_spec, trial, job_id))
    env.update(output_dirs(job_spec, trial))
    # PyTorch: the chief (rank 0) and the workers form the world; MASTER_* point at the chief.
    chief = next(r for r in replicas if r.pool == 0)
    world = [r for r in replicas if r.pool in (0, 1)]
    env["MASTER_ADDR"] = "localhost"
    env["MASTER_PORT"] = str(chief.port)
    env["WORLD_SIZE"] = str(len(world))
    if me.pool in (0, 1):
        env["RANK"] = str(0 if me.pool == 0 else 1 + me.index)
    if trial:
        env["CLOUD_ML_TRIAL_ID"] = trial
    return env
