"""A Vertex AI job's logs, read from Cloud Logging the way ``gcloud ai custom-jobs stream-logs`` does.

Vertex AI writes each replica's output to Cloud Logging under the monitored resource ``ml_job``,
with the job id in ``resource.labels.job_id`` and the replica in ``resource.labels.task_name``
(``workerpool0-0``). gcloud's own filter is ``resource.type="ml_job" AND
resource.labels.job_id="ID"`` plus the task name (googlecloudsdk/command_lib/ai/log_util.py,
``_LogFilters``); the message is ``textPayload`` or ``jsonPayload.message`` (``_EntryToDict``).

Lines come out as the local backend's do (provider.backends.log_line.LogLine): the entry's
timestamp, the replica (its task name), the message; Vertex AI's own ``service`` entries and the
emulator's ``setup`` ones (the environment build) are the setup source, the rest the trainer's.
``--since`` is the filter's ``timestamp>=``; ``--tail N`` the last N of the first poll. Following
polls ``entries.list`` for entries newer than the last one seen, with backoff while nothing is
new, until the job has ended and a last poll brings nothing. The client is google-cloud-logging's
(HTTP/JSON), pointed at ``trainjobs:apiEndpoint`` when one is set (the emulator serves the
same call).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterator
from typing import Any

from provider.backends.base import JobStatus, NotFound, PermissionDenied
from provider.backends.log_line import SETUP_NAME, LogLine, LogQuery, LogSource, last, rfc3339

# Backoff between polls while following: from the first to the largest delay, in seconds.
FIRST_DELAY, MAX_DELAY = 1.0, 10.0
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


def stream(logs: CloudLogs, job_id: str, status: Callable[[], JobStatus], query: LogQuery | None = None,
           follow: bool = False, sleep: Callable[[float], object] = time.sleep) -> Iterator[LogLine]:
    """The job's log lines, oldest first; with ``follow``, new ones until the job has ended, or until
    ``sleep`` returns True (``threading.Event.wait``: the reader went away)."""
    query = query or LogQuery()
    seen: set[str] = set()
    after: str | None = rfc3339(query.since) if query.since is not None else None
    delay = FIRST_DELAY
    ended_before_poll = False
    first = True
    while True:
        new = 0
        batch: list[LogLine] = []
        for entry in logs.entries(job_id, query.replica, after):
            key = entry_key(entry)
            if key in seen:
                continue
            seen.add(key)
            new += 1
            after = entry_time(entry) or after
            batch += [line for line in entry_lines(entry) if query.keeps(line)]
        yield from (last(batch, query.tail) if first else batch)
        first = False
        if not follow or ended_before_poll:
            return
        ended_before_poll = status().state.terminal  # one more poll after the end catches the last lines
        delay = FIRST_DELAY if new else min(MAX_DELAY, delay * 1.5)
        if not ended_before_poll and sleep(delay) is True:
            return
