"""What the console shows of a job: JobStatus (the backend seam's value) -> small display values.

The hardware and GPUs of a job come from its Vertex AI request (the local backend keeps it) or,
for a job read from Vertex AI, from the spec of its stack (``usage.stack_models``). Times are
shown in UTC; a duration runs from the start (or creation) to the end, or to now while it runs.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from provider.backends.base import Backend, JobState, JobStatus
from provider.core.record import Record
from provider.spec.model import TrainingJob

Json = dict[str, Any]

STATE_CLASS = {
    JobState.QUEUED: "waiting", JobState.PENDING: "waiting", JobState.RUNNING: "running",
    JobState.SUCCEEDED: "ok", JobState.FAILED: "bad", JobState.CANCELLING: "stopping",
    JobState.CANCELLED: "stopped",
}


class Hardware(Record):
    """What a job runs on, as one line, and the GPUs it holds at once (None: unknown)."""

    summary: str  # "n1-standard-8 + 2 x NVIDIA_TESLA_T4; 2 x n1-standard-4"
    gpus: int | None  # GPUs held at once (x parallel trials); None: unknown


class JobRow(Record):
    """One job as the console's list shows it: source, team, stack, hardware, start, duration and state."""

    source: str  # the source (stack or "local") that reads it
    job: JobStatus
    team: str
    stack: str
    hardware: Hardware
    started: str
    duration: str
    state_class: str

    @property
    def url(self) -> str:
        return f"/jobs/{self.source}/{self.job.id}"

    @property
    def tuning(self) -> bool:
        return self.job.kind == "HyperparameterTuningJob"

    def text(self) -> str:
        """What the text filter searches."""
        return " ".join((self.job.id, self.job.display_name, self.team, self.stack, self.hardware.summary,
                         self.job.state.value)).lower()


def parse_time(value: str | None) -> dt.datetime | None:
    if not value:
        return None
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def started(job: JobStatus) -> str:
    at = parse_time(job.start_time) or parse_time(job.create_time)
    return at.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S") if at else "-"


def duration(job: JobStatus, now: dt.datetime | None = None) -> str:
    start = parse_time(job.start_time) or parse_time(job.create_time)
    if start is None:
        return "-"
    end = parse_time(job.end_time) or (None if job.state.terminal else (now or dt.datetime.now(dt.UTC)))
    if end is None:
        end = parse_time(job.update_time) or start
    seconds = max(0, int((end - start).total_seconds()))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}h {rest // 60:02d}m" if hours else f"{rest // 60}m {rest % 60:02d}s"


def request_body(job: JobStatus) -> Json | None:
    body = job.extra.get("request")
    return body if isinstance(body, dict) else None


def _parallel(body: Json) -> int:
    return max(int(body.get("parallelTrialCount", 1) or 1), 1)


def hardware_of_body(body: Json) -> Hardware:
    spec = body.get("trialJobSpec") or body.get("jobSpec") or {}
    parts = []
    gpus = 0
    for pool in spec.get("workerPoolSpecs", []):
        if not pool:
            continue
        machine = pool.get("machineSpec", {})
        replicas = int(pool.get("replicaCount", 1))
        text = f"{replicas} x {machine.get('machineType', '?')}" if replicas != 1 else str(machine.get("machineType", "?"))
        accelerator = machine.get("acceleratorType")
        count = int(machine.get("acceleratorCount", 0) or 0)
        if accelerator and count:
            text += f" + {count} x {accelerator}"
            if str(accelerator).startswith("NVIDIA"):
                gpus += count * replicas
        parts.append(text)
    if "trialJobSpec" in body:
        gpus *= _parallel(body)
    return Hardware("; ".join(parts) or "-", gpus)


def hardware_of_model(job: TrainingJob) -> Hardware:
    from provider.stack.policy import gpus_at_once

    parts = []
    for pool in job.pools:
        text = f"{pool.replica_count} x {pool.machine_type}" if pool.replica_count != 1 else pool.machine_type
        if pool.accelerator:
            text += f" + {pool.accelerator.count} x {pool.accelerator.type}"
        parts.append(text)
    return Hardware("; ".join(parts), gpus_at_once(job))


def hardware(job: JobStatus, model: TrainingJob | None = None) -> Hardware:
    body = request_body(job)
    if body is not None:
        return hardware_of_body(body)
    if model is not None:
        return hardware_of_model(model)
    return Hardware("-", None)


def row(source: str, job: JobStatus, model: TrainingJob | None = None) -> JobRow:
    labels = job.labels_dict
    return JobRow(
        source=source, job=job, team=labels.get("team") or (model.team if model and model.team else "") or "-",
        stack=labels.get("trainjobs-stack", "-"), hardware=hardware(job, model), started=started(job),
        duration=duration(job), state_class=STATE_CLASS[job.state],
    )


def goal(job: JobStatus, model: TrainingJob | None = None) -> tuple[str, str]:
    """(MAXIMIZE | MINIMIZE, metric id) of a tuning job, from its request or its spec."""
    body = request_body(job) or {}
    metrics = (body.get("studySpec") or {}).get("metrics") or []
    if metrics:
        return str(metrics[0].get("goal", "MAXIMIZE")), str(metrics[0].get("metricId", "metric"))
    if model is not None and model.hyperparameters is not None:
        return model.hyperparameters.goal, model.hyperparameters.metric
    return "MAXIMIZE", "metric"


class Artifact(Record):
    """A file a job wrote, as its page lists it: its path under the output directory and its size."""

    path: str  # relative to the output directory
    size: int


MAX_ARTIFACTS = 50


def artifacts(backend: Backend, job: JobStatus) -> tuple[tuple[Artifact, ...], bool]:
    """The files a job wrote under its output directory (at most MAX_ARTIFACTS; True: more), read
    as ``trainjobs artifacts`` reads them: local storage, or Cloud Storage (or the emulator's)."""
    from provider.backends.artifacts import list_artifacts
    from provider.backends.base import BackendError

    if not job.output_dir:
        return (), False
    try:
        found = list_artifacts(job, backend)
    except (BackendError, ValueError, OSError):
        return (), False
    except Exception:  # Cloud Storage unreachable or refused (an SDK error): the page lists no files
        return (), False
    shown = tuple(Artifact(a.relative, a.size) for a in found[:MAX_ARTIFACTS])
    return shown, len(found) > MAX_ARTIFACTS
