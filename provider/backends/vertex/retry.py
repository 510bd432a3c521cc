"""Exponential backoff with jitter, for retrying transient errors and for polling.

A ``Backoff`` is plain data (the Pulumi provider pickles the backend that holds one).
``retrying`` calls a function again after a transient failure, waiting ``initial``,
``initial * multiplier`` ... (at most ``maximum``, each shortened by up to ``jitter`` of itself),
and gives up after ``attempts`` tries, raising the last error.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Backoff:
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


RETRY = Backoff(initial=1.0, multiplier=2.0, maximum=16.0, attempts=5, jitter=0.5)  # about 30 s in all
POLL = Backoff(initial=2.0, multiplier=1.5, maximum=60.0, attempts=0, jitter=0.2)


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
