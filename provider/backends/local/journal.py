"""A running job's own files, as its supervisor keeps them: state.json and job.json.

* Each save merges the changes into state.json under the job's lock, atomically.
* A full disk never kills the supervisor: changes that cannot be saved are kept and saved with the
  next write; the final write is retried, using the space of a small reserve file made at start.
* A state.json or job.json broken (or removed) by someone else while the job runs is rewritten
  from the supervisor's copy, so the job's outcome is never lost to it.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from provider.backends.local import store
from provider.backends.polling import Backoff

Json = dict[str, Any]

RESERVE_BYTES = 128 * 1024
FINAL_WRITE_TRIES = 40
FINAL_WRITE = Backoff(initial=0.1, multiplier=1.5, maximum=2.0, jitter=0.0)  # the waits between those tries


class Journal:
    """The state and record files of one job, written by its supervisor only."""

    def __init__(self, job_dir: Path, record: Json, event: Callable[[str], None]) -> None:
        self.job_dir = job_dir
        self.record = record  # job.json as the supervisor read it at start
        self.event = event
        self.unsaved: Json = {}  # changes a full disk kept from state.json: saved with the next write
        self.saved: Json = {}  # the state as last written: rewrites a state.json someone broke
        self.reserve = job_dir / ".reserve"

    def save(self, changes: Json) -> bool:
        """Merge ``changes`` into state.json; on a full disk keep them for the next save and return False."""
        self.unsaved.update(changes)
        try:
            with store.locked(self.job_dir):
                state = self.current()
                state.update(self.unsaved)
                state["update_time"] = store.now()
                store.write_json(self.job_dir / "state.json", state)
        except OSError as exc:
            if not store.disk_full(exc):
                raise
            self.event(f"could not save the job's state (disk full: {exc.strerror}); will retry")
            return False
        self.unsaved = {}
        self.saved = state
        return True

    def current(self) -> Json:
        """state.json as it is, or the last copy saved when someone broke it."""
        try:
            return store.read_json(self.job_dir / "state.json") or dict(self.saved)
        except store.Unreadable as exc:
            self.event(f"state.json was broken while the job ran ({exc.reason}); rewriting it from the supervisor's copy")
            return dict(self.saved)

    def save_final(self, changes: Json) -> None:
        """The last save: retried, using the reserve's space when the disk is full; job.json restored first."""
        self.keep_record()
        delays = FINAL_WRITE.delays()
        for _ in range(FINAL_WRITE_TRIES):
            if self.save(changes):
                break
            with contextlib.suppress(OSError):
                self.reserve.unlink()
            time.sleep(next(delays))
        with contextlib.suppress(OSError):
            self.reserve.unlink()

    def keep_record(self) -> None:
        """Restore job.json from the supervisor's copy if it was broken, changed or removed while the job ran
        (it never changes once written: any difference is damage)."""
        try:
            intact = store.read_json(self.job_dir / "job.json") == self.record
        except store.Unreadable:
            intact = False
        if not intact:
            with contextlib.suppress(OSError):
                store.write_json(self.job_dir / "job.json", self.record)
                self.event("job.json was broken, changed or removed while the job ran; restored it")

    def make_reserve(self) -> None:
        """A little space set aside at start, given back when the final state cannot be saved."""
        with contextlib.suppress(OSError), store.open_private(self.reserve, "wb") as f:
            f.write(b"\0" * RESERVE_BYTES)
            f.flush()
            os.fsync(f.fileno())
