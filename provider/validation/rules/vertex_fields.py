"""Today's Vertex AI job fields (issue 11), checked against each other (what the local backend skips: local_gaps.py).

Facts and sources: tools/catalog/curated/vertex_job_fields.json (google-cloud-aiplatform's
aiplatform_v1 types and the SDK's CustomJob).
"""

from __future__ import annotations

from collections.abc import Iterator

from provider.core.problem import Severity
from provider.spec.model import RESERVATION_TYPE_UNSPECIFIED, Reservation, TrainingJob, path_of
from provider.validation.rules.base import Context, Finding, rule

FIELDS = "tools/catalog/curated/vertex_job_fields.json"
SDK_JOBS = "google/cloud/aiplatform/jobs.py CustomJob.run"


def _source(field: str, ctx: Context) -> str:
    return f"{FIELDS} ({field}: {ctx.catalog.job_fields()[field]['source']})"


@rule
def scheduling_fields(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """maxWaitDuration applies to FLEX_START only; disableRetries overrides restartJobOnWorkerRestart."""
    s = job.scheduling
    if s.max_wait_is_vertex and s.max_wait_seconds is not None and s.strategy != "FLEX_START":
        yield Finding(
            f"maxWaitDuration is set but the scheduling strategy is {s.strategy or 'STANDARD (the default)'}: Vertex AI "
            "applies it to FLEX_START jobs only",
            path_of(s, "max_wait"),
            "scheduling.max_wait_duration",
            _source("maxWaitDuration", ctx),
            allowed="strategy: FLEX_START with maxWaitDuration, or no maxWaitDuration",
        )
    if s.disable_retries and s.restart_job_on_worker_restart:
        yield Finding(
            "disableRetries overrides restartJobOnWorkerRestart to false: the job will not restart on a worker restart",
            path_of(s, "disable_retries"),
            "scheduling.disable_retries",
            _source("disableRetries", ctx),
            allowed="one of disableRetries or restartJobOnWorkerRestart",
            severity=Severity.WARNING,
        )


def _reservation_problem(res: Reservation, specific_key: str) -> tuple[str, str] | None:
    if res.type == "SPECIFIC_RESERVATION":
        if res.key != specific_key or not res.values:
            return ("SPECIFIC_RESERVATION needs key and values naming the reservation",
                    f"key: {specific_key} and values: [the reservation's full resource name]")
        return None
    if res.type == RESERVATION_TYPE_UNSPECIFIED and (res.key or res.values):
        # ReservationAffinity.Type: TYPE_UNSPECIFIED is the "Default value. This should not be used"; key and
        # values identify a reservation "when [SPECIFIC_RESERVATION is] chosen" (aiplatform_v1 types)
        return ("reservationAffinityType TYPE_UNSPECIFIED (the API's default) chooses no reservation, so key and "
                "values select nothing: Vertex AI takes them only with SPECIFIC_RESERVATION",
                "reservationAffinityType: SPECIFIC_RESERVATION with key and values, or no key and values")
    if res.key or res.values:
        return (f"{res.type} takes no key or values", "key and values only with SPECIFIC_RESERVATION")
    return None


@rule
def reservations(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    specific_key = ctx.catalog.job_fields()["reservationAffinity"]["specific_key"]
    for pool in job.pools:
        if pool.reservation is None:
            continue
        found = _reservation_problem(pool.reservation, specific_key)
        if found is not None:
            yield Finding(found[0], path_of(pool.reservation), "reservation.affinity",
                          _source("reservationAffinity", ctx), allowed=found[1])


@rule
def job_fields(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """reservedIpRanges need a network; experimentRun an experiment; the SDK's tensorboard/experiment rules."""
    v = job.vertex
    checks = [
        (bool(v.reserved_ip_ranges) and v.network is None, "reservedIpRanges",
         "reservedIpRanges are ranges of the job's VPC network, but no network is set",
         "network: projects/PROJECT_NUMBER/global/networks/NETWORK with the ranges", _source("reservedIpRanges", ctx)),
        (v.experiment_run is not None and v.experiment is None, "experimentRun",
         "experimentRun belongs to an experiment, but no experiment is set",
         "experiment with experimentRun", SDK_JOBS + " (experiment_run can only be set when experiment is set)"),
        (v.experiment is not None and v.tensorboard is not None, "tensorboard",
         "experiment and tensorboard cannot be set together",
         "one of experiment or tensorboard (an experiment has its own backing TensorBoard)",
         SDK_JOBS + " ('experiment' and 'tensorboard' cannot be set together)"),
    ]
    for bad, name, message, allowed, source in checks:
        if bad:
            yield Finding(message, path_of(v, name), f"job.{name}", source, allowed=allowed)
    for name, value in (("tensorboard", v.tensorboard), ("experiment", v.experiment)):
        if value is not None and job.service_account is None:
            yield Finding(
                f"{name} needs a service account for the job",
                path_of(v, name),
                f"job.{name}",
                SDK_JOBS + f" (`service_account` is required with provided `{name}`)",
                allowed=f"serviceAccount: a service account that may write to the {name}",
            )


@rule
def persistent_resource_declared(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """A job targets a PersistentResource of its stack by ID, when the stack lists the ones it declares."""
    wanted = job.vertex.persistent_resource_id
    declared = ctx.persistent_resources
    if wanted is None or declared is None or wanted in declared:
        return
    yield Finding(
        f"persistentResourceId {wanted!r} is not a PersistentResource this stack declares",
        path_of(job.vertex, "persistentResourceId"),
        "job.persistentResourceId",
        _source("persistentResourceId", ctx),
        allowed="one of: " + (", ".join(sorted(declared)) or "none (the stack declares no PersistentResource)"),
    )
