"""A Vertex AI job (its REST JSON: camelCase, enum names) -> the shared JobStatus."""

from __future__ import annotations

import re
from typing import Any

from provider.backends.base import JobStatus, TrialState, TrialStatus
from provider.backends.vertex.states import UNTWINNED, to_job_state, vertex_name
from provider.core import job_kinds

Json = dict[str, Any]
_SEGMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")

# python-aiplatform's _Job._dashboard_uri: /ai/platform/ up to v1.149, /agent-platform/ from v1.150
# (google-cloud-aiplatform 2.x, which trainjobs installs, writes the latter).
CONSOLE_URL = "https://console.cloud.google.com/agent-platform/locations/{location}/training/{id}?project={project}"


def split_name(name: str) -> tuple[str, str, str, str]:
    """``projects/P/locations/L/customJobs/ID`` -> (P, L, customJobs, ID); ValueError otherwise."""
    parts = name.split("/")
    if len(parts) != 6 or parts[0] != "projects" or parts[2] != "locations" or \
            not all(_SEGMENT.match(p) for p in parts):
        raise ValueError(f"{name!r} is not a job resource name (projects/P/locations/L/customJobs/ID)")
    return parts[1], parts[3], parts[4], parts[5]


def console_url(name: str) -> str:
    project, location, _, job_id = split_name(name)
    return CONSOLE_URL.format(location=location, id=job_id, project=project)


def _metric(trial: Json, metric_id: str | None) -> float | None:
    for m in (trial.get("finalMeasurement") or {}).get("metrics", []):
        if metric_id is None or m.get("metricId") == metric_id:
            value = m.get("value")
            return float(value) if value is not None else None
    return None


def _trials(job: Json) -> tuple[tuple[TrialStatus, ...], str | None]:
    metrics = (job.get("studySpec") or {}).get("metrics") or [{}]
    metric_id, goal = metrics[0].get("metricId"), metrics[0].get("goal", "MAXIMIZE")
    trials = []
    for t in job.get("trials", []):
        trials.append(TrialStatus(
            id=str(t.get("id", "")),
            state=TrialState.of(t.get("state", "STATE_UNSPECIFIED")),  # a failed trial is INFEASIBLE, with its reason
            parameters=tuple((p.get("parameterId", ""), p.get("value")) for p in t.get("parameters", [])),
            metric=_metric(t, metric_id),
            start_time=t.get("startTime"),
            end_time=t.get("endTime"),
            error=t.get("infeasibleReason"),
        ))
    scored = [t for t in trials if t.state is TrialState.SUCCEEDED and t.metric is not None]
    best = None
    if scored:
        pick = min if goal == "MINIMIZE" else max
        best = pick(scored, key=lambda t: t.metric if t.metric is not None else 0.0).id
    return tuple(trials), best


def job_status(kind: str, job: Json, backend: str = "vertex") -> JobStatus:
    name = job["name"]
    _, _, _, job_id = split_name(name)
    state_name = vertex_name(job.get("state", "JOB_STATE_UNSPECIFIED"))
    spec = job.get(job_kinds.kind(kind).spec_field) or {}
    error = job.get("error") or {}
    trials, best = _trials(job) if kind == job_kinds.TUNING_JOB.name else ((), None)
    return JobStatus(
        id=job_id,
        kind=kind,
        display_name=job.get("displayName", ""),
        state=to_job_state(state_name),
        backend=backend,
        name=name,
        labels=tuple(sorted((job.get("labels") or {}).items())),
        create_time=job.get("createTime"),
        start_time=job.get("startTime"),
        end_time=job.get("endTime"),
        update_time=job.get("updateTime"),
        error=error.get("message") or None,
        message=f"Vertex AI reports {state_name}" if state_name in UNTWINNED else None,
        trials=trials,
        best_trial=best,
        output_dir=(spec.get("baseOutputDirectory") or {}).get("outputUriPrefix"),
        console_url=console_url(name),
        extra={"vertex_state": state_name, "error_code": error.get("code"), "parent": name.rsplit("/", 2)[0],
               "request": job},
    )
