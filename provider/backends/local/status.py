"""A local job's files (job.json, the record; state.json, what the supervisor writes) -> JobStatus.

Files that are JSON but not a job's record and state make a JobUnreadable with the job's folder;
``scan`` lists such a job apart, as an UnreadableJob, and reads every other one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from provider.backends.base import (
    BackendError,
    JobState,
    JobStatus,
    ReplicaState,
    ReplicaStatus,
    TrialState,
    TrialStatus,
)
from provider.core import job_kinds

Json = dict[str, Any]


class JobUnreadable(BackendError):
    """A job whose files cannot be read; nothing was changed."""

    code = "DATA_LOSS"


def record_labels(record: Json) -> dict[str, Any]:
    labels = record.get("labels")
    return labels if isinstance(labels, dict) else {}


def checked_status(job_id: str, job_dir: Path, record: Json, state: Json) -> JobStatus:
    """The status, or JobUnreadable when the files are JSON but not a job's record and state."""
    try:
        return _status(record, state)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise JobUnreadable(f"local job {job_id} cannot be read: {job_dir}: its job.json or state.json is not "
                            f"a job's ({type(exc).__name__}: {exc}). Nothing was changed") from None


def _replica(r: Json) -> ReplicaStatus:
    return ReplicaStatus(name=r["name"], pool=r["pool"], index=r["index"], task=r["task"],
                         state=ReplicaState(r["state"]), trial=r.get("trial", ""), pid=r.get("pid"),
                         exit_code=r.get("exit_code"), restarts=r.get("restarts", 0), gpus=r.get("gpus", ""),
                         address=r.get("address", ""))


def _trial(t: Json) -> TrialStatus:
    return TrialStatus(id=t["id"], state=TrialState(t["state"]),
                       parameters=tuple(sorted(t.get("parameters", {}).items())), metric=t.get("final_metric"),
                       start_time=t.get("start_time"), end_time=t.get("end_time"), error=t.get("error"))


def _status(record: Json, state: Json) -> JobStatus:
    kind = record["kind"]
    job_kind = job_kinds.kind(kind)
    collection = job_kind.collection
    body = record["request"]
    spec = body.get(job_kind.spec_field, {})
    error = state.get("error")
    return JobStatus(
        id=record["id"],
        kind=kind,
        display_name=record.get("display_name", ""),
        state=JobState(state["state"]),
        backend="local",
        name=f"{record['parent']}/{collection}/{record['id']}",
        labels=tuple(sorted(record.get("labels", {}).items())),
        create_time=record.get("create_time"),
        start_time=state.get("start_time"),
        end_time=state.get("end_time"),
        update_time=state.get("update_time"),
        error=error.get("message") if isinstance(error, dict) else error,
        message=state.get("message"),
        replicas=tuple(_replica(r) for r in state.get("replicas", [])),
        trials=tuple(_trial(t) for t in state.get("trials", [])),
        best_trial=state.get("best_trial"),
        output_dir=spec.get("baseOutputDirectory", {}).get("outputUriPrefix"),
        restarts=state.get("restarts", 0),
        extra={"error_code": error.get("code") if isinstance(error, dict) else None, "request": body,
               "parent": record["parent"], "gcs": state.get("gcs")},
    )
