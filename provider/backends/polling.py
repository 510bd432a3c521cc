"""Waiting and retrying, written once: capped exponential backoff, an injected monotonic clock.

* ``Backoff`` is the policy (plain data: the Pulumi provider pickles the backend that holds one):
  waits of ``initial``, ``initial * multiplier`` ... never longer than ``maximum``, each shortened by
  a random fraction up to ``jitter`` of itself; ``Backoff.every(s)`` is a steady wait of ``s``.
* ``poll_until`` fetches a value until it is done or the deadline passes. The deadline is measured
  on the injected clock, ``time.monotonic()`` by default (a clock change never ends or stretches a
  wait), and the last sleep is cut to the time left, so a wait ends within one fetch of its timeout.
  Every wait of provider/ for a condition is one: a job to end (``Polled.wait``), a process to
  exit or to be seen, GPUs to free up, a lock, a local job's replicas to stop.
* ``retrying`` calls a function again after each transient failure, ``attempts`` tries in all
  (the Vertex AI calls).
* ``Polled`` gives a backend ``find``, ``cancel(wait=)`` and ``wait`` over its own ``get``, ``list``
  and ``request_cancel``: the local and the Vertex AI backend share them.

Loops that are not waits stay loops: the local supervisor's own loop (it runs the replicas and
writes their state each round until the job ends), streams (log following, ``trainjobs run``'s
live view, the emulator's server), and parsers.
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

    @classmethod
    def every(cls, seconds: float) -> Backoff:
        """A steady wait of ``seconds`` between tries (no growth, no jitter)."""
        return cls(initial=seconds, multiplier=1.0, maximum=seconds, attempts=0, jitter=0.0)

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


def retrying(fn: Callable[[], T], backoff: Backoff, transient: Callable[[BaseException], bool],
             sleep: Callable[[float], None] = time.sleep) -> T:
    """``fn()``, tried again after each transient failure, at most ``backoff.attempts`` times in all."""
    delays = backoff.delays()
    attempt = 1
    while True:
        try:
            return fn()
        except Exception as exc:
            if attempt >= backoff.attempts or not transient(exc):
                raise
            attempt += 1
            sleep(next(delays))


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
