"""The Vertex AI backend's policies: how it retries transient errors and how often it polls a job.

The policy and its loops are provider.backends.polling's (``Backoff``, ``retrying``,
``poll_until``); these are the Vertex AI backend's settings of it.
"""

from __future__ import annotations

from provider.backends.polling import Backoff

RETRY = Backoff(initial=1.0, multiplier=2.0, maximum=16.0, attempts=5, jitter=0.5)  # about 30 s in all
POLL = Backoff(initial=2.0, multiplier=1.5, maximum=60.0, attempts=0, jitter=0.2)
