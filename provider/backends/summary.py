"""What a job runs on, read from its request the same way for every backend.

A ``JobStatus`` carries the job's request in ``extra["request"]`` (the local backend's record,
or the Vertex AI job's JSON); from it come the worker pools, the hardware line that ``jobs list``
shows, the GPUs a job holds, the replica names its logs use (``workerpool0-0``) and a tuning
job's metric and goal.
"""

from __future__ import annotations

from typing import Any

from provider.backends.base import JobStatus
from provider.core.record import Record

Json = dict[str, Any]


class Pool(Record):
    """A worker pool of a job's request that runs replicas: its machine type, replicas and accelerators."""

    index: int
    machine_type: str
    replicas: int
    accelerator_type: str = ""
    accelerator_count: int = 0


def _body(status: JobStatus) -> Json:
    body = status.extra.get("request")
    return body if isinstance(body, dict) else {}


def job_spec(status: JobStatus) -> Json:
    body = _body(status)
    spec = body.get("trialJobSpec" if status.kind == "HyperparameterTuningJob" else "jobSpec")
    return spec if isinstance(spec, dict) else {}


def _int(value: Any) -> int:
    try:
        return int(value)  # the JSON API writes int64 as strings
    except (TypeError, ValueError):
        return 0


def pools(status: JobStatus) -> list[Pool]:
    """The worker pools that run replicas (an empty placeholder pool runs none)."""
    out = []
    for i, pool in enumerate(job_spec(status).get("workerPoolSpecs") or []):
        machine = (pool or {}).get("machineSpec") or {}
        replicas = _int((pool or {}).get("replicaCount", 1 if machine else 0))
        if not machine or replicas <= 0:
            continue
        out.append(Pool(i, str(machine.get("machineType", "")), replicas, str(machine.get("acceleratorType", "") or ""),
                        _int(machine.get("acceleratorCount", 0))))
    return out


def gpus(status: JobStatus) -> int:
    """Accelerators the job holds while it runs (per trial, times its parallel trials)."""
    per_trial = sum(p.replicas * p.accelerator_count for p in pools(status))
    parallel = _int(_body(status).get("parallelTrialCount", 1)) if status.kind == "HyperparameterTuningJob" else 1
    return per_trial * max(parallel, 1)


def hardware(status: JobStatus) -> str:
    """``n1-standard-8 + 4 T4 | 2 x n1-standard-8 + 4 T4``: each pool, chief first."""
    parts = []
    for p in pools(status):
        text = f"{p.replicas} x {p.machine_type}" if p.replicas > 1 else p.machine_type
        if p.accelerator_count:
            short = p.accelerator_type.removeprefix("NVIDIA_TESLA_").removeprefix("NVIDIA_")
            text += f" + {p.accelerator_count} {short}"
        parts.append(text)
    return " | ".join(parts) or "-"


def replica_names(status: JobStatus) -> list[str]:
    """``workerpool0-0``, ``workerpool1-0`` ...: the task names Vertex AI gives a job's replicas."""
    if status.replicas:
        return sorted({r.name for r in status.replicas})
    return [f"workerpool{p.index}-{i}" for p in pools(status) for i in range(p.replicas)]


def metric_and_goal(status: JobStatus) -> tuple[str, str] | None:
    """A tuning job's metric id and goal (MAXIMIZE or MINIMIZE)."""
    metrics = (_body(status).get("studySpec") or {}).get("metrics") or []
    if status.kind != "HyperparameterTuningJob" or not metrics:
        return None
    return str(metrics[0].get("metricId", "")), str(metrics[0].get("goal", "MAXIMIZE"))


def log_scaled(status: JobStatus) -> frozenset[str]:
    """The parameters a tuning job searches on a log scale (UNIT_LOG_SCALE in its studySpec)."""
    params = (_body(status).get("studySpec") or {}).get("parameters") or []
    return frozenset(str(p.get("parameterId", "")) for p in params
                     if isinstance(p, dict) and p.get("scaleType") == "UNIT_LOG_SCALE")
