"""A Vertex AI job's logs, read from Cloud Logging the way ``gcloud ai custom-jobs stream-logs`` does.

Vertex AI writes each replica's output to Cloud Logging under the monitored resource ``ml_job``,
with the job id in ``resource.labels.job_id`` and the replica in ``resource.labels.task_name``
(``workerpool0-0``). gcloud's own filter is ``resource.type="ml_job" AND
resource.labels.job_id="ID"`` plus the task name (googlecloudsdk/command_lib/ai/log_util.py,
``_LogFilters``); the message is ``textPayload`` or ``jsonPayload.message`` (``_EntryToDict``).

Lines come out as the local backend's do (provider.backends.log_line.LogLine): the entry's
timestamp, the replica (its task name), the message; Vertex AI's own ``service`` entries and the
emulator's ``setup`` ones (the environment build) are the setup source, the rest the trainer's.
``--since`` is the filter's ``timestamp>=``; ``--tail N`` the last N of the first read.

A read goes on from a cursor, JSON: ``{"after": <timestamp of the newest entry read>, "seen":
[<insertIds at that timestamp>]}``. Entries are listed from that timestamp on (Cloud Logging's
filter is ``>=``, so an entry written in the same instant is not lost) and the ones already seen
are skipped, as ``gcloud ai custom-jobs stream-logs`` does; following is the seam's
(provider.backends.log_line.stream). The client is google-cloud-logging's (HTTP/JSON), pointed at
``trainjobs:apiEndpoint`` when one is set (the emulator serves the same call).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from provider.backends.base import InvalidArgument, NotFound, PermissionDenied
from provider.backends.log_line import SETUP_NAME, LogChunk, LogLine, LogQuery, LogSource, last, rfc3339

PAGE_SIZE = 1000


def log_filter(job_id: str, replica: str | None = None, after: str | None = None) -> str:
    parts = ['resource.type="ml_job"', f'resource.labels.job_id="{job_id}"']
    if replica:
        parts.append(f'resource.labels.task_name="{replica}"')
    if after:
        parts.append(f'timestamp>="{after}"')
    return " AND ".join(parts)


def _message(entry: Any) -> str:
    payload = getattr(entry, "payload", None)
    if isinstance(payload, dict):
        return str(payload.get("message", ""))
    return "" if payload is None else str(payload)


def entry_time(entry: Any) -> str:
    ts = getattr(entry, "timestamp", None)
    if ts is None:
        return ""
    text = ts.isoformat() if hasattr(ts, "isoformat") else str(ts)
    return text.replace("+00:00", "Z")


SETUP_TASKS = frozenset({SETUP_NAME, "service"})  # task names of lines that are not the trainer's


def entry_lines(entry: Any) -> list[LogLine]:
    labels = (getattr(entry, "resource", None) and entry.resource.labels) or {}
    replica = labels.get("task_name") or "unknown_task"
    severity = str(getattr(entry, "severity", None) or "DEFAULT")
    messages = _message(entry).splitlines() or [""]
    ts = getattr(entry, "timestamp", None)
    moment = ts if isinstance(ts, dt.datetime) else None
    if moment is not None and moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    source = LogSource.SETUP if replica in SETUP_TASKS else LogSource.TRAINER
    return [LogLine(moment, replica, m, source, severity) for m in messages]


def entry_key(entry: Any) -> str:
    """What tells one entry from another: its insertId, else its time and message."""
    return getattr(entry, "insert_id", None) or f"{entry_time(entry)}|{_message(entry)}"


class CloudLogs:
    """Cloud Logging for one project, through ``api_endpoint`` when given (an http:// one is the emulator)."""

    def __init__(self, project: str, api_endpoint: str | None = None, credentials: Any = None) -> None:
        self.project = project
        self.api_endpoint = api_endpoint
        self.credentials = credentials
        self._client: Any = None

    def client(self) -> Any:
        if self._client is None:
            from google.auth.exceptions import GoogleAuthError
            from google.cloud import logging as cloud_logging

            credentials = self.credentials
            options = {"api_endpoint": self.api_endpoint} if self.api_endpoint else None
            if credentials is None and self.api_endpoint and self.api_endpoint.startswith("http://"):
                from google.auth.credentials import AnonymousCredentials

                credentials = AnonymousCredentials()  # type: ignore[no-untyped-call]  # google-auth leaves it untyped
            try:
                self._client = cloud_logging.Client(  # type: ignore[no-untyped-call]
                    project=self.project, credentials=credentials, _use_grpc=False, client_options=options)
            except GoogleAuthError as exc:
                raise PermissionDenied(f"no Google credentials to read Cloud Logging for project "
                                       f"{self.project!r}: {exc}. Run: gcloud auth application-default login") from exc
        return self._client

    def entries(self, job_id: str, replica: str | None = None, after: str | None = None) -> list[Any]:
        from google.api_core import exceptions
        from google.cloud.logging import ASCENDING

        try:
            return list(self.client().list_entries(resource_names=[f"projects/{self.project}"],
                                                   filter_=log_filter(job_id, replica, after),
                                                   order_by=ASCENDING, page_size=PAGE_SIZE))
        except exceptions.PermissionDenied as exc:
            raise PermissionDenied(f"Cloud Logging refused to list the logs of job {job_id} in project "
                                   f"{self.project!r}: {exc.message} (the caller needs roles/logging.viewer)") from exc
        except exceptions.NotFound as exc:
            raise NotFound(f"Cloud Logging has no project {self.project!r}: {exc.message}") from exc


def _cursor(cursor: str) -> tuple[str | None, set[str]]:
    if not cursor:
        return None, set()
    try:
        data = json.loads(cursor)
        after, seen = data["after"], data["seen"]
    except (ValueError, KeyError, TypeError):
        after, seen = None, None
    if not isinstance(after, str) or not isinstance(seen, list):
        raise InvalidArgument(f"{cursor[:80]!r} is not a cursor of Vertex AI's logs: pass the cursor the last "
                              "read returned, or none to read from the start")
    return after or None, {str(s) for s in seen}


def read(logs: CloudLogs, job_id: str, cursor: str, query: LogQuery | None, ended: bool) -> LogChunk:
    """The job's lines past the cursor, oldest first (``ended``: the job had ended before this read)."""
    query = query or LogQuery()
    after, seen = _cursor(cursor)
    if not cursor and query.since is not None:
        after = rfc3339(query.since)
    lines: list[LogLine] = []
    for entry in logs.entries(job_id, query.replica, after):
        key, stamp = entry_key(entry), entry_time(entry)
        if key in seen:
            continue
        if stamp and stamp != after:
            after, seen = stamp, set()
        seen.add(key)
        lines += [line for line in entry_lines(entry) if query.keeps(line)]
    state = json.dumps({"after": after or "", "seen": sorted(seen)})
    return LogChunk(tuple(last(lines, query.tail) if not cursor else lines), state, ended)
