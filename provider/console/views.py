"""What the console shows of a job: JobStatus (the backend seam's value) -> small display values.

The hardware line, GPUs and TPUs of a job come from its Vertex AI request (the local backend keeps
it) or, for a job read from Vertex AI, from the spec of its stack (``usage.stack_models``): the
same line and counts as ``jobs list`` and ``plan`` (provider.spec.hardware). Times are
shown in UTC; a duration runs from the start (or creation) to the end, or to now while it runs.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from provider.backends.base import Backend, JobState, JobStatus
from provider.core.job_kinds import TUNING_JOB
from provider.core.record import Record
from provider.spec.model import TrainingJob

Json = dict[str, Any]

STATE_CLASS = {
    JobState.QUEUED: "waiting", JobState.PENDING: "waiting", JobState.RUNNING: "running",
    JobState.SUCCEEDED: "ok", JobState.FAILED: "bad", JobState.CANCELLING: "stopping",
    JobState.CANCELLED: "stopped",
}


class Hardware(Record):
    """What a job runs on, as one line, and the GPUs and TPUs it holds at once (None: unknown)."""

    summary: str  # provider.spec.hardware's line: "n1-standard-8 + 2 x T4, 2 x n1-standard-4"
    gpus: int | None  # GPUs held at once (x parallel trials); None: unknown
    tpus: int | None = None  # TPUs held at once, counted apart from GPUs


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
        return self.job.kind == TUNING_JOB.name

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


def hardware(job: JobStatus, model: TrainingJob | None = None) -> Hardware:
    """From the job's request (provider.backends.summary) or else its stack's spec (provider.spec.hardware)."""
    from provider.backends import summary
    from provider.spec import hardware as spec_hardware

    if request_body(job) is not None:
        held = summary.accelerators(job)
        return Hardware(summary.hardware(job), held.gpus, held.tpus)
    if model is not None:
        held = spec_hardware.held_by(model)
        return Hardware(spec_hardware.hardware(model), held.gpus, held.tpus)
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
