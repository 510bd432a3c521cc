"""What a job runs on, read from its request the same way for every backend.

A ``JobStatus`` carries the job's request in ``extra["request"]`` (the local backend's record,
or the Vertex AI job's JSON); from it come the worker pools, the hardware line that ``jobs list``
shows, the GPUs and TPUs a job holds, the replica names its logs use (``workerpool0-0``) and a
tuning job's metric and goal. The line and the counts are provider.spec.hardware's, the same as a
spec's (``validate --summary``, ``plan``, the console).
"""

from __future__ import annotations

from typing import Any

from provider.backends.base import JobStatus
from provider.core import job_kinds
from provider.core.record import Record
from provider.spec.hardware import Held, PoolShape, held, line

Json = dict[str, Any]


class Pool(Record):
    """A worker pool of a job's request that runs replicas: its index and its shape."""

    index: int
    shape: PoolShape

    @property
    def replicas(self) -> int:
        return self.shape.replicas


def _body(status: JobStatus) -> Json:
    body = status.extra.get("request")
    return body if isinstance(body, dict) else {}


def job_spec(status: JobStatus) -> Json:
    body = _body(status)
    spec = body.get(job_kinds.kind(status.kind).spec_field)
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
        out.append(Pool(i, PoolShape(str(machine.get("machineType", "")), replicas,
                                     str(machine.get("acceleratorType", "") or ""), _int(machine.get("acceleratorCount", 0)),
                                     str(machine.get("tpuTopology", "") or ""))))
    return out


def accelerators(status: JobStatus) -> Held:
    """GPUs and TPUs the job holds while it runs (per trial, times its parallel trials)."""
    parallel = _int(_body(status).get("parallelTrialCount", 1)) if status.kind == job_kinds.TUNING_JOB.name else 1
    return held((p.shape for p in pools(status)), parallel)


def hardware(status: JobStatus) -> str:
    """The hardware line (provider.spec.hardware): each pool, chief first."""
    return line(p.shape for p in pools(status))


def replica_names(status: JobStatus) -> list[str]:
    """``workerpool0-0``, ``workerpool1-0`` ...: the task names Vertex AI gives a job's replicas."""
    if status.replicas:
        return sorted({r.name for r in status.replicas})
    return [f"workerpool{p.index}-{i}" for p in pools(status) for i in range(p.replicas)]


def metric_and_goal(status: JobStatus) -> tuple[str, str] | None:
    """A tuning job's metric id and goal (MAXIMIZE or MINIMIZE)."""
    metrics = (_body(status).get("studySpec") or {}).get("metrics") or []
    if status.kind != job_kinds.TUNING_JOB.name or not metrics:
        return None
    return str(metrics[0].get("metricId", "")), str(metrics[0].get("goal", "MAXIMIZE"))


def log_scaled(status: JobStatus) -> frozenset[str]:
    """The parameters a tuning job searches on a log scale (UNIT_LOG_SCALE in its studySpec)."""
    params = (_body(status).get("studySpec") or {}).get("parameters") or []
    return frozenset(str(p.get("parameterId", "")) for p in params
                     if isinstance(p, dict) and p.get("scaleType") == "UNIT_LOG_SCALE")
