"""Waiting for a job, written once for every backend: capped exponential backoff, monotonic deadline.

* ``Backoff`` is the policy (plain data: the Pulumi provider pickles the backend that holds one):
  waits of ``initial``, ``initial * multiplier`` ... never longer than ``maximum``, each shortened by
  a random fraction up to ``jitter`` of itself.
* ``poll_until`` fetches a value until it is done or the deadline passes. The deadline is measured
  on ``time.monotonic()`` (a clock change never ends or stretches a wait), and the last sleep is cut
  to the time left, so a wait ends within one fetch of its timeout.
* ``Polled`` gives a backend ``find``, ``cancel(wait=)`` and ``wait`` over its own ``get``, ``list``
  and ``request_cancel``: the local and the Vertex AI backend share them.
"""

from __future__ import annotations

import builtins
import random
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

from provider.backends.base import JobState, JobStatus
from provider.core.record import Record

T = TypeVar("T")


class Backoff(Record):
    """Capped exponential backoff with jitter: the waits between polls or retries, and how many tries."""

    initial: float = 1.0  # seconds before the second try
    multiplier: float = 2.0
    maximum: float = 30.0  # no single wait is longer
    attempts: int = 5  # tries in all (retrying only)
    jitter: float = 0.5  # each wait is shortened by a random fraction up to this (0: none)

    def delays(self, rng: random.Random | None = None) -> Iterator[float]:
        """The waits between tries, without end (``retrying`` stops after ``attempts``)."""
        rng = rng or random.Random()
        delay = self.initial
        while True:
            yield max(0.0, delay * (1.0 - self.jitter * rng.random()))
            delay = min(self.maximum, delay * self.multiplier)


def poll_until(fetch: Callable[[], T], done: Callable[[T], bool], backoff: Backoff, timeout: float | None = None,
               sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic) -> T:
    """``fetch()`` until ``done`` says so, sleeping per ``backoff``; after ``timeout`` seconds, the last value."""
    deadline = None if timeout is None else clock() + timeout
    delays = backoff.delays()
    while True:
        value = fetch()
        if done(value):
            return value
        delay = next(delays)
        if deadline is not None:
            left = deadline - clock()
            if left <= 0:
                return value
            delay = min(delay, left)
        sleep(delay)


class Polled:
    """``find``, ``cancel`` and ``wait`` for a backend that has ``get``, ``list`` and ``request_cancel``."""

    poll: Backoff = Backoff()

    def get(self, job_id: str) -> JobStatus:
        raise NotImplementedError

    def list(self, labels: dict[str, str] | None = None) -> builtins.list[JobStatus]:
        raise NotImplementedError

    def request_cancel(self, status: JobStatus) -> str:
        """Ask for the running job ``status`` to be cancelled; the reference to follow it by."""
        raise NotImplementedError

    def find(self, labels: dict[str, str]) -> JobStatus | None:
        """The newest job carrying all these labels (``list`` is newest first)."""
        jobs = self.list(labels)
        return jobs[0] if jobs else None

    def cancel(self, job_id: str, wait: float = 0.0) -> JobStatus:
        """Cancel the job (a finished one is left as it is); wait up to ``wait`` seconds for it to end."""
        status = self.get(job_id)
        if status.state.terminal:
            return status
        ref = self.request_cancel(status)
        return self.wait(ref, timeout=wait) if wait > 0 else self.get(ref)

    def wait(self, job_id: str, until: tuple[JobState, ...] = (), timeout: float | None = None) -> JobStatus:
        """Poll, with backoff, until the job is in one of ``until`` (default: finished) or time is up."""
        return poll_until(lambda: self.get(job_id), lambda s: s.state.terminal or s.state in until, self.poll,
                          timeout)
