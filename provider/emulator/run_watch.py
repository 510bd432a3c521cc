"""The emulator follows the jobs whose experiment runs it made, so a run ends with its job unread.

Vertex AI ends the ExperimentRun it made for a job (``CustomJob.run(experiment=...)``, a tuning
job's trials, a training pipeline's backing job) when the job ends, whoever reads what. A client
that only reads the experiment (``ExperimentRun.get``, ``get_experiment_df``, the metadata contexts)
must see it end too, so a ``RunWatch`` thread, started and stopped with the emulator's server,
reads each such job: a tuning job's trial runs end as their trials do, and once the job has ended
its run ends and its TensorBoard logs are uploaded (``job_tracking.seen``), once. A job that
names a TensorBoard and no experiment is followed too, for its logs.

Each job is read ``EVERY`` (0.5) seconds after it is followed, then each wait is ``GROWTH`` (1.5)
times the last, up to ``LONGEST`` (5) seconds: a job that ends within its first few seconds is seen
within a second or two of its end, as before, and one that has run for more than about ten
seconds (six reads) is read every 5 s instead of twice a second: a read is a read of the local
job's state files (and, for a tuning job, of its trials and their runs), for every job followed,
for as long as each runs. A job's end is seen at most ``LONGEST`` seconds after it ends (the
thread sleeps until the next read is due, never longer than ``EVERY``); 5 s is how often the SDK
itself reads a job it waits for (``jobs._JOB_WAIT_TIME``), so a run lags its job by no more than
one of the SDK's own polls.

The jobs followed are kept in the state dir (followed.py), so a restarted emulator follows them
again at start, and one that ended while no emulator was up has its run ended and its logs
uploaded then. At start, every run still RUNNING that was made for a job also names its job again
(a state dir written before the jobs followed were kept).
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

from provider.core import job_kinds
from provider.core.record import Record
from provider.emulator import job_tracking
from provider.emulator.errors import ApiError
from provider.emulator.followed import FollowedJobs

if TYPE_CHECKING:
    from provider.emulator.nested_routes import Tracking
    from provider.emulator.service import JobService

Json = dict[str, Any]
EVERY = 0.5  # seconds from following a job to its first read (and the longest the thread sleeps)
GROWTH = 1.5  # each wait between two reads of a job is this many times the last
LONGEST = 5.0  # seconds: the longest wait between two reads of a job, so the latest its end is seen
# A job is followed from its prepare, before the job service has stored it: NOT_FOUND means "not yet"
# for this long, "deleted" after.
CREATING = 60.0


class _Schedule(Record, frozen=False):
    """When a followed job was followed and is next read (time.monotonic), and the wait before that read."""

    since: float
    due: float
    wait: float


class RunWatch:
    """The jobs whose runs (or TensorBoard logs) follow them without a read, and the thread that reads them."""

    def __init__(self, jobs: JobService, tracking: Tracking, storage_root: Path, state_dir: Path,
                 every: float = EVERY, longest: float = LONGEST) -> None:
        """Made with the emulator; becomes the job service's hook before a job runs (``prepare``)."""
        jobs.tracking = self.prepare
        self.jobs = jobs
        self.tracking = tracking
        self.storage_root = storage_root
        self.every = every
        self.longest = max(longest, every)
        self.kept = FollowedJobs(state_dir, tracking.records.unreadable)  # the server names what it skips
        self._followed: dict[str, _Schedule] = {}  # job name -> when it is read
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def prepare(self, name: str, body: Json) -> None:
        """The job service's hook before a valid job runs (JobService.tracking): what Vertex AI makes
        for it is made (job_tracking.prepare), and the job is followed when that is a run or it logs
        to a TensorBoard."""
        if job_tracking.prepare(self.tracking, name, body):
            self.follow(name)

    def follow(self, name: str, ago: float = 0.0, keep: bool = True) -> None:
        """Follow the job ``name`` (followed ``ago`` seconds ago; kept in the state dir unless it is there
        already); its first read is soon."""
        now = time.monotonic()
        with self._lock:
            if name in self._followed:
                return
            self._followed[name] = _Schedule(since=now - ago, due=now + self.every, wait=self.every)
        if keep:
            self.kept.add(name)

    def followed(self) -> set[str]:
        with self._lock:
            return set(self._followed)

    def wait(self, name: str) -> float | None:
        """Seconds between the last read of the job ``name`` and its next one; None when it is not followed."""
        with self._lock:
            schedule = self._followed.get(name)
            return None if schedule is None else schedule.wait

    def start(self) -> None:
        """Follow the jobs followed before a restart (and those of the runs still RUNNING), read at once,
        then read them in a thread."""
        for name, ago in self.kept.load().items():
            self.follow(name, ago=ago, keep=False)
        for name in job_tracking.running_jobs(self.tracking):
            self.follow(name)
        with self._lock:
            for schedule in self._followed.values():
                schedule.due = time.monotonic()
        self._stopping = threading.Event()  # this thread's: one a stop could not join never runs on
        self._thread = threading.Thread(target=self._run, args=(self._stopping,), name="emulator-run-watch",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None

    def _run(self, stopping: threading.Event) -> None:
        while not stopping.wait(self._sleep()):
            self.sweep(stopping=stopping)

    def _sleep(self) -> float:
        """Until the next job is due; at most ``every`` (a job followed meanwhile is due that soon)."""
        with self._lock:
            due = min((s.due for s in self._followed.values()), default=float("inf"))
        return min(self.every, max(0.01, due - time.monotonic()))

    def sweep(self, now: float | None = None, stopping: threading.Event | None = None) -> None:
        """Read each job followed that is due (at ``now``, time.monotonic by default): end what ended with
        it; stop following a job that ended or is gone; read the others later, each wait longer."""
        now = time.monotonic() if now is None else now
        with self._lock:
            due = sorted(name for name, schedule in self._followed.items() if schedule.due <= now)
        for name in due:
            if stopping is not None and stopping.is_set():  # the thread's sweep, the emulator stopping
                return
            try:
                done = self._read(name, now)
            except Exception:  # a bug: said, and the job is read again next time
                traceback.print_exc(file=sys.stderr)
                done = False
            with self._lock:
                schedule = self._followed.get(name)
                if schedule is None:
                    continue
                if done:
                    del self._followed[name]
                else:
                    schedule.wait = min(self.longest, schedule.wait * GROWTH)
                    schedule.due = now + schedule.wait
            if done:
                self.kept.remove(name)

    def _read(self, name: str, now: float) -> bool:
        """True once nothing is left to do for the job ``name``."""
        parts = name.split("/")  # projects/P/locations/L/COLLECTION/ID
        kind = job_kinds.of_collection(parts[4]) if len(parts) == 6 else None
        if kind is None:
            return True
        try:
            job = self.jobs.get(parts[4], "/".join(parts[:4]), parts[5])
        except ApiError:  # being created (prepare comes first), or deleted: then nothing is left to follow
            with self._lock:
                schedule = self._followed.get(name)
            return schedule is None or now - schedule.since > CREATING
        if not job_tracking.has_ended(job):
            job_tracking.ended(self.tracking, job)  # a tuning job's trial runs end with their trials
            return False
        job_tracking.seen(self.tracking, self.storage_root, job)
        return True
