"""The time of the conversion: what a script's ``$(date +FORMAT)`` and a notebook's ``datetime.now().strftime(FMT)``
stand for when trainjobs reads them (it never runs them), one clock for both readers, so one conversion gives one
time everywhere (tests freeze ``now``)."""

from __future__ import annotations

import time
from collections.abc import Callable

now: Callable[[], float] = time.time
