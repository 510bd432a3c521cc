"""Exponential backoff with jitter, for retrying transient errors and for polling.

A ``Backoff`` (provider.backends.polling, shared with every backend's wait) is plain data.
``retrying`` calls a function again after a transient failure, waiting ``initial``,
``initial * multiplier`` ... (at most ``maximum``, each shortened by up to ``jitter`` of itself),
and gives up after ``attempts`` tries, raising the last error.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from provider.backends.polling import Backoff

T = TypeVar("T")


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
