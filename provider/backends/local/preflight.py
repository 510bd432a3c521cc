"""What the local backend checks at submit, before anything starts: can this machine ever run the job?

A job refused here starts nothing and leaves no record (and, as LocalBackend.check runs it before
``trainjobs run`` stages the package, stages nothing either): TPU machine types, too many replicas
(replica_limit.py), containers without a container engine that answers, packages missing from
local storage, and more GPUs at once than the machine has (unless it runs on the CPU).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Any

from provider.backends.base import FailedPrecondition, InvalidArgument
from provider.backends.local import cluster as cl
from provider.backends.local import gpus
from provider.backends.local.paths import Storage, StorageError
from provider.backends.local.replica_limit import check_replicas
from provider.catalog import CATALOG, AcceleratorKind

Json = dict[str, Any]
TPU_MACHINES = ("cloud-tpu", "ct5lp-", "ct6e-", "tpu7x-")


def container_engine() -> tuple[str | None, str]:
    """docker or podman, if one is on PATH and its engine answers; else None and why not."""
    found = [e for e in ("docker", "podman") if shutil.which(e)]
    if not found:
        return None, "neither docker nor podman is on PATH"
    reasons = []
    for engine in found:
        try:
            proc = subprocess.run([engine, "info", "--format", "{{.ServerVersion}}"], capture_output=True, text=True,
                                  timeout=15, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            reasons.append(f"{engine}: {exc}")
            continue
        if proc.returncode == 0:
            return engine, ""
        detail = (proc.stderr or proc.stdout).strip().splitlines()
        reasons.append(f"{engine} is installed but its engine does not answer ({detail[-1] if detail else 'no output'})")
    return None, "; ".join(reasons)


def _no_tpus(specs: list[Json]) -> None:
    for s in specs:
        machine = s.get("machineSpec", {})
        acc = str(machine.get("acceleratorType", ""))
        if machine.get("tpuTopology") or (acc and CATALOG.kind_of(acc) is AcceleratorKind.TPU) or \
                str(machine.get("machineType", "")).startswith(TPU_MACHINES):
            raise FailedPrecondition(f"the local backend cannot run TPU jobs ({machine.get('machineType')}); "
                                     "run it on Vertex AI, or use a GPU or CPU machine type for local runs")


def _engine(specs: list[Json]) -> str | None:
    if not any("containerSpec" in s for s in specs):
        return None
    engine, why = container_engine()
    if engine is None:
        raise FailedPrecondition(
            f"this job runs containers, and no container engine is available here: {why}. Start Docker or "
            "Podman, or run the spec on Vertex AI; nothing was started")
    return engine


def _packages_staged(specs: list[Json], storage: Storage) -> None:
    for s in specs:
        for uri in s.get("pythonPackageSpec", {}).get("packageUris", []):
            try:
                path = storage.path(uri)
            except StorageError as exc:
                raise InvalidArgument(str(exc)) from exc
            if not path.is_file():
                raise FailedPrecondition(f"package {uri} is not in local storage (looked for {path}); "
                                         "`trainjobs run` stages local package paths itself")


def _enough_gpus(specs: list[Json]) -> None:
    per_run = sum(cl.gpus_per_replica(s) * int(s.get("replicaCount", 1)) for s in specs)
    have = gpus.inventory()
    if per_run > len(have):
        raise FailedPrecondition(
            f"the job needs {per_run} GPU(s) at once and this machine has {len(have)} "
            f"({'TRAINJOBS_LOCAL_GPUS' if 'TRAINJOBS_LOCAL_GPUS' in os.environ else 'nvidia-smi'}). To "
            "smoke-test a GPU spec on the CPU, run it with --cpu (TRAINJOBS_LOCAL_GPU_MODE=cpu); nothing "
            "was started")


def preflight(job_spec: Json, cpu_only: bool, storage: Storage | None) -> str | None:
    """Refuse, before anything starts, what this machine can never run; the container engine it needs.

    With ``storage``, the job's packages must be staged there; without it (before staging, as
    LocalBackend.check runs it) only what staging cannot change is checked."""
    specs = [s for s in cl.pool_specs(job_spec) if s]
    check_replicas(specs)
    _no_tpus(specs)
    if not cpu_only:
        _enough_gpus(specs)
    engine = _engine(specs)
    if storage is not None:
        _packages_staged(specs, storage)
    return engine
