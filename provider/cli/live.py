"""Show a job: once (status), or live until it ends (run).

On a terminal the display redraws in place: state, elapsed time, each replica, the last log
lines. Elsewhere (CI logs, pipes) it prints each change once, and the log lines as they come.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from typing import IO, TYPE_CHECKING, Any

from provider.backends.base import Backend, JobState, JobStatus, ReplicaStatus
from provider.core.backend_registry import capabilities

if TYPE_CHECKING:
    from provider.backends.log_line import LogLine

LAST_LINES = 6


def _elapsed(job: JobStatus, since_submission: bool = False) -> str:
    def parse(t: str | None) -> dt.datetime | None:
        return dt.datetime.fromisoformat(t.replace("Z", "+00:00")) if t else None

    first, second = (job.create_time, job.start_time) if since_submission else (job.start_time, job.create_time)
    start = parse(first) or parse(second)
    end = parse(job.end_time) or dt.datetime.now(dt.UTC)
    if start is None:
        return "-"
    seconds = int((end - start).total_seconds())
    return f"{seconds // 3600:02d}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


elapsed = _elapsed  # the job's run time so far (from its start, else its submission)


def _status_lines(job: JobStatus, local_outputs: str | None) -> list[str]:
    from provider.backends import summary

    remote = capabilities(job.backend).remote
    lines = [f"{job.display_name}  {job.id}  {job.state.value}  elapsed {_elapsed(job)}"]
    if remote and job.name:
        lines.append(f"  resource: {job.name}")
    lines.append(f"  hardware: {summary.hardware(job)}")
    if job.message:
        lines.append(f"  {job.message}")
    if job.error and job.state is not JobState.SUCCEEDED:
        lines.append("  error: " + job.error.replace("\n", "\n  "))
    if job.restarts:
        lines.append(f"  restarts: {job.restarts}")
    if job.output_dir:
        lines.append(f"  output: {job.output_dir}" + (f"\n  on this machine: {local_outputs}" if local_outputs else ""))
    if job.console_url and remote:
        lines.append(f"  console: {job.console_url}")
    return lines


def _replica_line(r: ReplicaStatus) -> str:
    extra = f"exit {r.exit_code}" if r.exit_code is not None else (f"pid {r.pid}" if r.pid else "")
    gpus = f"  gpus {r.gpus}" if r.gpus else ""
    trial = f"trial {r.trial}  " if r.trial else ""
    return f"  {trial}{r.name:15s} {r.task:9s} {r.state:10s} {extra}{gpus}" + (f"  restarts {r.restarts}" if r.restarts else "")


def _trial_lines(job: JobStatus) -> list[str]:
    from provider.backends import summary

    if not job.trials:
        return []
    goal = summary.metric_and_goal(job)
    lines = ["  trials:" + (f" metric {goal[0]} ({goal[1].lower()})" if goal else "")]
    for t in job.trials:
        best = "  <- best" if t.id == job.best_trial else ""  # the best trial, by the goal
        params = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in t.parameters)
        metric = "-" if t.metric is None else f"{t.metric:.6g}"
        lines.append(f"    {t.id:>3s} {t.state:10s} metric {metric:>10s}  {params}{best}")
    return lines


def describe(job: JobStatus, local_outputs: str | None = None) -> str:
    """What ``trainjobs status`` prints: the state and where things are, the replicas, the trials."""
    lines = _status_lines(job, local_outputs) + [_replica_line(r) for r in job.replicas] + _trial_lines(job)
    return "\n".join(lines)


def follow(backend: Backend, job_id: str, out: IO[str], as_json: bool = False) -> JobStatus:
    """Follow a job to its end, on any backend. Ctrl-C detaches: the job keeps running.

    Each poll prints the new log lines first, each with the time it was written (as ``trainjobs
    logs`` prints them), and then the state, so the final state always comes after the job's last
    lines; a job that started and ended between two polls still shows RUNNING; the elapsed time
    counts from the submission. The lines are the trainer's: the environment build's are left out
    (``trainjobs logs`` shows them, and a failed build's error quotes them). Polls wait per the
    backend's ``log_backoff``. ``as_json``: one JSON object a line (``{"state": ...}`` on each
    change, per log line what ``trainjobs logs --format json`` prints), the last the final status."""
    from provider.backends.log_line import LogQuery, LogSource

    tty = not as_json and hasattr(out, "isatty") and out.isatty() and "NO_COLOR" not in os.environ
    query = LogQuery(source=LogSource.TRAINER)
    tail: list[str] = []
    drawn = 0
    shown: list[str] = []
    cursor = ""
    delays = backend.log_backoff.delays()
    try:
        while True:
            job = backend.get(job_id)
            chunk = backend.read_logs(job_id, cursor, query)  # once the job has ended, every line left
            cursor = chunk.cursor
            if tty:
                tail = (tail + [line.text(timestamps=True) for line in chunk.lines])[-LAST_LINES:]
                text = describe(job) + ("\n  last lines:\n" + "\n".join("    " + line for line in tail) if tail else "")
                out.write(("\033[F\033[K" * drawn) + text + "\n")
                drawn = text.count("\n") + 1
            else:
                for line in chunk.lines:
                    _write_line(out, line, as_json)
                for summary in _new_states(job, shown):
                    _write_state(out, job, job_id, summary, as_json)
            out.flush()
            if job.state.terminal:
                if as_json:
                    out.write(json.dumps({"status": job_json(job)}) + "\n")
                elif not tty:
                    out.write(describe(job) + "\n")
                return job
            if chunk.lines:
                delays = backend.log_backoff.delays()
            time.sleep(next(delays))
    except KeyboardInterrupt:
        out.write(f"\ndetached: job {job_id} keeps running. `trainjobs status {job_id}`, "
                  f"`trainjobs logs -f {job_id}`, `trainjobs cancel {job_id}`\n")
        raise


def _new_states(job: JobStatus, shown: list[str]) -> list[str]:
    """The state lines not shown yet; RUNNING comes before an end that followed a start."""
    summary = job.state.value + (f" ({job.message})" if job.message else "")
    out = []
    ran = job.start_time is not None and job.state in (JobState.SUCCEEDED, JobState.FAILED)
    if ran and not any(s.startswith("RUNNING") for s in shown):
        out.append("RUNNING")
    if not shown or shown[-1] != summary:
        out.append(summary)
    shown.extend(out)
    return out


def _write_line(out: IO[str], line: LogLine, as_json: bool) -> None:
    out.write((json.dumps(line.json()) if as_json else line.text(timestamps=True)) + "\n")


def _write_state(out: IO[str], job: JobStatus, job_id: str, summary: str, as_json: bool) -> None:
    if as_json:
        out.write(json.dumps({"state": summary.split(" ", 1)[0], "message": job.message,
                              "elapsed": _elapsed(job, since_submission=True)}) + "\n")
    else:
        out.write(f"[{_elapsed(job, since_submission=True)}] {job.display_name} {job_id}: {summary}\n")


def job_json(job: JobStatus) -> dict[str, Any]:
    """A job as ``--format json`` prints it, the same way in every command."""
    from provider.backends import summary
    from provider.core.record import asdict

    data = asdict(job)
    data["state"] = job.state.value
    data.pop("extra", None)
    data["hardware"] = summary.hardware(job)
    held = summary.accelerators(job)
    data["gpus"], data["tpus"] = held.gpus, held.tpus
    goal = summary.metric_and_goal(job)
    if goal is not None:
        data["metric"] = {"id": goal[0], "goal": goal[1]}
    data["labels"] = dict(job.labels)
    data["trials"] = [{**asdict(t), "parameters": dict(t.parameters)} for t in job.trials]
    return data
