"""The emulator follows the jobs whose experiment runs it made, so a run ends with its job unread.

Vertex AI ends the ExperimentRun it made for a job (``CustomJob.run(experiment=...)``, a tuning
job's trials, a training pipeline's backing job) when the job ends, whoever reads what. A client
that only reads the experiment (``ExperimentRun.get``, ``get_experiment_df``, the metadata contexts)
must see it end too, so a ``RunWatch`` thread, started and stopped with the emulator's server,
reads each such job every ``EVERY`` seconds: a tuning job's trial runs end as their trials do, and
once the job has ended its run ends and its TensorBoard logs are uploaded (``job_tracking.seen``),
once. A job that names a TensorBoard and no experiment is followed too, for its logs.

The jobs followed are kept in memory; at start, every run still RUNNING that was made for a job
names its job again, so a job that ended while no emulator was up has its run ended at once (its
logs, not marked anywhere, are uploaded when it is next read).
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

from provider.core import job_kinds
from provider.emulator import job_tracking
from provider.emulator.errors import ApiError

if TYPE_CHECKING:
    from provider.emulator.nested_routes import Tracking
    from provider.emulator.service import JobService

Json = dict[str, Any]
EVERY = 0.5  # seconds between two reads of the jobs followed
# A job is followed from its prepare, before the job service has stored it: NOT_FOUND means "not yet"
# for this long, "deleted" after.
CREATING = 60.0


class RunWatch:
    """The jobs whose runs (or TensorBoard logs) follow them without a read, and the thread that reads them."""

    def __init__(self, jobs: JobService, tracking: Tracking, storage_root: Path, every: float = EVERY) -> None:
        """Made with the emulator; becomes the job service's hook before a job runs (``prepare``)."""
        jobs.tracking = self.prepare
        self.jobs = jobs
        self.tracking = tracking
        self.storage_root = storage_root
        self.every = every
        self._followed: dict[str, float] = {}  # job name -> when it was followed (time.monotonic)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def prepare(self, name: str, body: Json) -> None:
        """The job service's hook before a valid job runs (JobService.tracking): what Vertex AI makes
        for it is made (job_tracking.prepare), and the job is followed when that is a run or it logs
        to a TensorBoard."""
        if job_tracking.prepare(self.tracking, name, body):
            self.follow(name)

    def follow(self, name: str) -> None:
        with self._lock:
            self._followed.setdefault(name, time.monotonic())

    def followed(self) -> set[str]:
        with self._lock:
            return set(self._followed)

    def start(self) -> None:
        """Follow the jobs of the runs still RUNNING (made before a restart), then read them in a thread."""
        for name in job_tracking.running_jobs(self.tracking):
            self.follow(name)
        self._stopping.clear()
        self._thread = threading.Thread(target=self._run, name="emulator-run-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None

    def _run(self) -> None:
        while not self._stopping.wait(self.every):
            self.sweep()

    def sweep(self) -> None:
        """Read every job followed once: end what ended with it; stop following a job that ended or is gone."""
        for name in sorted(self.followed()):
            if self._stopping.is_set():
                return
            try:
                done = self._read(name)
            except Exception:  # a bug: said, and the job is read again next time
                traceback.print_exc(file=sys.stderr)
                continue
            if done:
                with self._lock:
                    self._followed.pop(name, None)

    def _read(self, name: str) -> bool:
        """True once nothing is left to do for the job ``name``."""
        parts = name.split("/")  # projects/P/locations/L/COLLECTION/ID
        kind = job_kinds.of_collection(parts[4]) if len(parts) == 6 else None
        if kind is None:
            return True
        try:
            job = self.jobs.get(parts[4], "/".join(parts[:4]), parts[5])
        except ApiError:  # being created (prepare comes first), or deleted: then nothing is left to follow
            with self._lock:
                since = self._followed.get(name, 0.0)
            return time.monotonic() - since > CREATING
        if not job_tracking.has_ended(job):
            job_tracking.ended(self.tracking, job)  # a tuning job's trial runs end with their trials
            return False
        job_tracking.seen(self.tracking, self.storage_root, job)
        return True
