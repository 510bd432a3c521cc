"""``trainjobs run --dry-run``: where the spec would run, its verdict, the request, and the local plan,
with nothing started or staged.

Where it would run is the backend of the stack (``--stack``; this machine without one), and the
verdict is ``trainjobs validate``'s on the spec (provider.workspace), so a dry run never says less
than a real run refuses.

The plan is what the local backend would give each replica: its name and task, an address (the
ports are examples: a run takes free ones when it starts), the GPUs it would hold, and the
environment Vertex AI sets (CLUSTER_SPEC, TF_CONFIG, AIP_*, the PyTorch variables, and what the
job is tracked in: CLOUD_ML_PROJECT_ID, CLOUD_ML_REGION, AIP_EXPERIMENT_NAME,
AIP_EXPERIMENT_RUN_NAME, AIP_TENSORBOARD_RESOURCE_NAME: the one ``cluster.replica_env`` a run
uses), then the spec's own ``env``; secret values (``trainjobs:secretEnv``) are shown as ``***``.
"""

from __future__ import annotations

import json
from typing import IO, TYPE_CHECKING, Any

from provider.core.job_kinds import TUNING_JOB
from provider.core.record import Record

if TYPE_CHECKING:
    from provider.core.problem import Problem

SECRET = "***"
TEXT_VALUE_MAX = 160  # longer values (CLUSTER_SPEC, TF_CONFIG) are cut in the text output


class ReplicaPlan(Record):
    """What the local backend would give one replica: its name, task, address, GPUs and environment."""

    name: str
    task: str
    address: str
    gpus: tuple[int, ...]
    env: dict[str, str]


def plan(request: Any, cpu_only: bool, secret_names: frozenset[str] = frozenset()) -> list[ReplicaPlan]:
    from provider.backends.local import cluster, gpus

    body = request.body
    tuning = request.kind == TUNING_JOB.name
    job_spec = body.get("trialJobSpec" if tuning else "jobSpec") or {}
    need = any(cluster.gpus_per_replica(s) for s in cluster.pool_specs(job_spec) if s)
    devices = None if cpu_only or not need else gpus.inventory()
    replicas = cluster.layout(job_spec, devices)
    trial = "1" if tuning else ""
    out = []
    for r in replicas:
        env = cluster.replica_env(replicas, r, job_spec, "DRY-RUN", trial, request.parent)
        pool = cluster.pool_specs(job_spec)[r.pool]
        container = pool.get("containerSpec") or pool.get("pythonPackageSpec") or {}
        for item in container.get("env", []):
            name = str(item.get("name", ""))
            env[name] = SECRET if name in secret_names else str(item.get("value", ""))
        out.append(ReplicaPlan(r.name, r.task, r.address, r.gpus, env))
    return out


class Where(Record):
    """Where a run would go: the backend, in words, and the stack (None: this machine, in no stack)."""

    backend: str
    description: str
    stack: str | None = None


def render(request: Any, replicas: list[ReplicaPlan] | None, out: IO[str], as_json: bool,
           where: Where | None = None, problems: list[Problem] | None = None) -> None:
    """The dry run's report; ``replicas`` is the local plan (None where the job would not run here)."""
    found = problems or []
    if as_json:
        out.write(json.dumps({
            **({"where": {"backend": where.backend, "description": where.description, "stack": where.stack}}
               if where else {}),
            "verdict": {"ok": not any(p.is_error for p in found), "problems": [p.as_dict() for p in found]},
            "request": {"kind": request.kind, "parent": request.parent, "body": request.body},
            "replicas": [r.__dict__ | {"gpus": list(r.gpus)} for r in replicas or []]}, indent=2) + "\n")
        return
    if where is not None:
        out.write(f"would run on: {where.description}" + (f" (stack {where.stack})" if where.stack else "") + "\n")
    warned = sum(1 for p in found if not p.is_error)
    out.write(f"verdict: valid{f' ({warned} warning(s) or note(s), above)' if warned else ''}\n")
    out.write(f"request: POST {request.parent}/{request.collection}\n")
    out.write(json.dumps(request.body, indent=2) + "\n\n")
    if replicas is None:
        out.write("nothing was started or staged\n")
        return
    out.write(f"local plan: {len(replicas)} replica(s); ports are examples (a run takes free ones); nothing was "
              "started or staged\n")
    for r in replicas:
        gpus = ",".join(map(str, r.gpus)) if r.gpus else "none"
        out.write(f"  {r.name:15s} {r.task:9s} {r.address:21s} GPUs: {gpus}\n")
        for key in sorted(r.env):
            value = r.env[key]
            if len(value) > TEXT_VALUE_MAX:
                value = value[:TEXT_VALUE_MAX] + f"... ({len(value)} characters; --format json shows all)"
            out.write(f"    {key}={value}\n")
