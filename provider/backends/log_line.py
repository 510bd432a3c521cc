"""A job's log line as every backend gives it: when it was written, by whom, and what it says.

A job's log has two sources. ``trainer``: what a replica's process wrote (its stdout and stderr),
named by the replica (``workerpool0-0``, ``trial-2/workerpool0-0``). ``setup``: what ran before the
trainer, to get it ready (the local backend's environment build: pip; Vertex AI's own ``service``
entries), named ``setup`` (or by Cloud Logging's task name). ``trainjobs logs --source trainer``
shows the trainer's alone.

The local backend records when each line was written (provider.backends.local.log_times); Vertex
AI's Cloud Logging entries carry their timestamp. A line of a record from before times were
kept carries its file's last write time (``approximate``), so the lines of a file stay together.

Reading is written once: a backend implements one read from a cursor (``Backend.read_logs`` ->
``LogChunk``), and ``stream`` here builds every other way of reading on it (a one-off read,
following until the job ends or the reader goes away). ``trainjobs logs``, ``run``'s live view,
the console's log stream and the conformance suite all read through these two.
"""

from __future__ import annotations

import datetime as dt
import enum
import threading
from typing import TYPE_CHECKING

from provider.core.errors import InvalidArgument
from provider.core.record import Record

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from provider.backends.base import Backend

SETUP_NAME = "setup"  # the local backend's setup stream: logs/setup.log


class LogSource(enum.StrEnum):
    """Who wrote a line: the trainer (a replica's process), or what readied it (the environment build)."""

    TRAINER = "trainer"
    SETUP = "setup"


class LogLine(Record):
    """One line of a job's log."""

    time: dt.datetime | None  # when it was written (UTC); None where no time is known
    replica: str  # workerpool0-0, trial-2/workerpool0-0, or "setup"
    message: str
    source: LogSource = LogSource.TRAINER
    severity: str = "DEFAULT"  # Cloud Logging's severity (the local backend: DEFAULT)
    approximate: bool = False  # the time is the file's last write (a record from before per-line times)

    @property
    def timestamp(self) -> str:
        """RFC 3339 in UTC with microseconds (``2026-11-25T22:48:05.123456Z``); "" without a time."""
        return rfc3339(self.time) if self.time is not None else ""

    def text(self, timestamps: bool = False) -> str:
        """``[workerpool0-0] message``; with ``timestamps``, the RFC 3339 time first, as ``kubectl logs --timestamps``."""
        line = f"[{self.replica}] {self.message}"
        if not timestamps:
            return line
        return f"{self.timestamp or '-'} {line}"

    def json(self) -> dict[str, str | bool]:
        """What ``trainjobs logs --format json`` prints for it, one object a line."""
        out: dict[str, str | bool] = {"timestamp": self.timestamp, "source": self.source.value,
                                      "replica": self.replica, "message": self.message, "severity": self.severity}
        if self.approximate:
            out["approximate"] = True
        return out


class LogQuery(Record):
    """Which lines a reader wants: one replica's, one source's, those written since a time, the last N."""

    replica: str | None = None
    source: LogSource | None = None  # None: both
    since: dt.datetime | None = None  # aware, UTC or not
    tail: int | None = None  # the last N of the lines already written (then, when following, every new one)

    def keeps(self, line: LogLine) -> bool:
        if self.replica is not None and self.replica not in (line.replica, line.replica.rpartition("/")[2]):
            return False  # workerpool0-0 is that replica in every trial of a tuning job
        if self.source is not None and line.source is not self.source:
            return False
        return self.since is None or line.time is None or line.time >= self.since


def rfc3339(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def from_ns(ns: int) -> dt.datetime:
    """Nanoseconds since the epoch -> an aware UTC time (to the microsecond, without a float's rounding)."""
    return dt.datetime.fromtimestamp(ns // 1_000_000_000, tz=dt.UTC).replace(microsecond=ns // 1000 % 1_000_000)


class UnknownReplica(InvalidArgument):
    """``--replica`` names no replica of the job (the message lists them)."""


def check_replica(job_id: str, replica: str | None, names: Iterable[str]) -> None:
    """UnknownReplica (an InvalidArgument), listing the job's replicas, when ``replica`` is not one of them."""
    known = sorted(set(names))
    if replica is None or replica in known:
        return
    from provider.core.suggest import did_you_mean

    hint = "the environment build's lines are --source setup" if replica == SETUP_NAME else did_you_mean(replica, known)
    raise UnknownReplica(f"--replica {replica!r}: job {job_id} has no such replica; its replicas: "
                          f"{', '.join(known) or 'none yet'}" + (f"; {hint}" if hint else ""))


def in_order(lines: Iterable[LogLine]) -> list[LogLine]:
    """Lines by time (stable: lines of one time keep the order they came in); lines without a time last."""
    far = dt.datetime.max.replace(tzinfo=dt.UTC)
    return sorted(lines, key=lambda line: line.time or far)


def last(lines: list[LogLine], n: int | None) -> list[LogLine]:
    return lines if n is None else (lines[-n:] if n > 0 else [])


class LogChunk(Record):
    """The lines written since a cursor, in time order, and the cursor to read the next ones from.

    A cursor is the backend's own opaque text ("" reads from the start: the query's ``tail`` then
    keeps the last N); a line is in one chunk only. ``ended``: the job had ended before this read,
    so these are its last lines and a follower stops."""

    lines: tuple[LogLine, ...]
    cursor: str
    ended: bool = False


def stream(backend: Backend, job_id: str, query: LogQuery | None = None, follow: bool = False,
           stop: threading.Event | None = None) -> Iterator[LogLine]:
    """The job's lines, read with ``backend.read_logs``; with ``follow``, new ones until the job has ended
    (and its last lines are read) or ``stop`` is set (the reader went away: this returns within one
    wait, even while the job is quiet). Between reads it waits per the backend's ``log_backoff``,
    from its first wait again after a read that brought lines."""
    chunk = backend.read_logs(job_id, "", query)
    yield from chunk.lines
    stop = stop or threading.Event()  # never set: follow until the job ends
    delays = backend.log_backoff.delays()
    while follow and not chunk.ended:
        if stop.wait(next(delays)):
            return
        chunk = backend.read_logs(job_id, chunk.cursor, query)
        if chunk.lines:
            delays = backend.log_backoff.delays()
        yield from chunk.lines
