"""The backend seam: one job-state enum, small status values, and the Backend protocol.

A backend runs Vertex AI requests (provider.core.vertex_request.VertexRequest): the local backend on
this machine, the Vertex backend on Google Cloud. Each keeps a table from its own states to
JobState; a trial's and a replica's state are enums too (TrialState, ReplicaState). Errors a user
can act on are BackendError subclasses with one clear message. ``Backend`` is everything callers
(the CLI, the console, the Pulumi provider) use; provider.backends.settings builds one, with its
stager, from a stack's settings. Importing this module is cheap: it imports no spec, catalog or SDK.
"""

from __future__ import annotations

import builtins
import enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from provider.backends.log_line import LogChunk as LogChunk  # owned by provider.backends.log_line
from provider.core.errors import (  # the errors of the seam live with the core errors; imported from here too
    BackendError as BackendError,
)
from provider.core.errors import (
    FailedPrecondition as FailedPrecondition,
)
from provider.core.errors import (
    InvalidArgument as InvalidArgument,
)
from provider.core.errors import (
    NotFound as NotFound,
)
from provider.core.errors import (
    PermissionDenied as PermissionDenied,
)
from provider.core.errors import (
    QuotaExceeded as QuotaExceeded,
)
from provider.core.errors import (
    Unavailable as Unavailable,
)
from provider.core.labels import IDENTITY_LABEL as IDENTITY_LABEL  # owned by provider.core.labels; tests import it here
from provider.core.record import Record, field
from provider.core.vertex_request import VertexRequest

if TYPE_CHECKING:
    from provider.backends.log_line import LogQuery
    from provider.backends.polling import Backoff
    from provider.packaging.stage import Stager


class JobState(enum.Enum):
    """QUEUED -> PENDING -> RUNNING -> SUCCEEDED | FAILED, or CANCELLING -> CANCELLED."""

    QUEUED = "QUEUED"
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    CANCELLING = "CANCELLING"
    CANCELLED = "CANCELLED"

    @property
    def terminal(self) -> bool:
        return self in (JobState.SUCCEEDED, JobState.FAILED, JobState.CANCELLED)

    @property
    def adoptable(self) -> bool:
        """Whether a resubmission adopts a job in this state (a failed or cancelled one is retried)."""
        return self not in (JobState.FAILED, JobState.CANCELLING, JobState.CANCELLED)

    @property
    def vertex(self) -> str:
        """The Vertex AI JobState name."""
        return "JOB_STATE_" + self.value


class ReplicaState(enum.StrEnum):
    """A replica (one process of a pool) of a local job; the values are what state.json holds."""

    WAITING = "waiting"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    RESTARTING = "restarting"
    STOPPED = "stopped"

    @property
    def live(self) -> bool:
        """Started or about to be, not yet ended."""
        return self in (ReplicaState.WAITING, ReplicaState.RUNNING, ReplicaState.RESTARTING)


class TrialState(enum.StrEnum):
    """A trial of a tuning job: Vertex AI's Trial.State, and FAILED for a local trial whose replica failed."""

    STATE_UNSPECIFIED = "STATE_UNSPECIFIED"
    REQUESTED = "REQUESTED"
    ACTIVE = "ACTIVE"
    STOPPING = "STOPPING"
    SUCCEEDED = "SUCCEEDED"
    INFEASIBLE = "INFEASIBLE"  # Vertex AI's failed trial, with its reason
    FAILED = "FAILED"

    @classmethod
    def of(cls, name: object) -> TrialState:
        """A state name as a service writes it; STATE_UNSPECIFIED for one this enum does not know."""
        try:
            return cls(str(name))
        except ValueError:
            return cls.STATE_UNSPECIFIED

    @property
    def vertex(self) -> str:
        """The Trial.State name Vertex AI reports (a failed local trial is INFEASIBLE there)."""
        return TrialState.INFEASIBLE.value if self is TrialState.FAILED else self.value


ParamValue = float | int | str  # a trial's parameter: DOUBLE, INTEGER, DISCRETE or CATEGORICAL


class ReplicaStatus(Record):
    """One replica (process) of a local job: its pool, task and state, its process and GPUs."""

    name: str  # workerpool1-0
    pool: int
    index: int
    task: str  # chief | worker | ps | evaluator
    state: ReplicaState
    trial: str = ""
    pid: int | None = None
    exit_code: int | None = None
    restarts: int = 0
    gpus: str = ""  # CUDA_VISIBLE_DEVICES
    address: str = ""


class TrialStatus(Record):
    """One trial of a tuning job: its state, parameters, final metric, times and error."""

    id: str
    state: TrialState
    parameters: tuple[tuple[str, ParamValue], ...] = ()
    metric: float | None = None
    start_time: str | None = None
    end_time: str | None = None
    error: str | None = None


class JobStatus(Record):
    """A job as a backend reports it: its state, labels, times, replicas, trials and outputs."""

    id: str
    kind: str  # CustomJob | HyperparameterTuningJob
    display_name: str
    state: JobState
    backend: str
    name: str = ""  # the resource name: projects/P/locations/L/customJobs/ID
    labels: tuple[tuple[str, str], ...] = ()
    create_time: str | None = None
    start_time: str | None = None
    end_time: str | None = None
    update_time: str | None = None
    error: str | None = None
    message: str | None = None  # what the job is waiting for, and the like
    replicas: tuple[ReplicaStatus, ...] = ()
    trials: tuple[TrialStatus, ...] = ()
    best_trial: str | None = None
    output_dir: str | None = None
    console_url: str | None = None
    restarts: int = 0
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def labels_dict(self) -> dict[str, str]:
        return dict(self.labels)


class Submission(Record):
    """A request to run, and the local-only options that a Vertex request cannot carry."""

    request: VertexRequest
    max_wait_seconds: float | None = None  # AI Platform maxWaitTime (Vertex keeps it for FLEX_START only)
    cpu_only: bool = False  # run GPU specs on the CPU (local smoke tests)
    # Names of env variables whose values are secret (the stack's secretEnv): a backend that keeps
    # the request on disk stores "***" for them and hands the values to the job's processes only.
    secret_env: frozenset[str] = frozenset()


class UnreadableJob(Record):
    """A job listed by its id only, because its record cannot be read: which file or resource, and why."""

    id: str
    path: Path | str  # the broken file (local), the resource name (remote)
    reason: str


class Listing(NamedTuple):
    """A backend's jobs, newest first, and apart from them the ones whose records could not be read."""

    jobs: list[JobStatus]
    unreadable: list[UnreadableJob]


class StoredObject(Record):
    """One object under a job's output directory, where the backend keeps it."""

    uri: str  # gs://bucket/prefix/.../file
    size: int
    local_path: str = ""  # where it lies on this machine, when it does


class Backend(Protocol):
    """What every caller uses of a backend; every registered backend implements all of it
    (tests/test_backend_conformance.py holds each to the same behaviour)."""

    name: str  # its kind (provider.core.backend_registry): callers ask its capabilities, never compare it

    def check(self, submission: Submission) -> None:
        """Refuse, before anything is staged or written, what this backend can never run (the local
        backend: too few GPUs, a container engine missing); BackendError says why. ``submit``
        checks again."""
        ...

    def submit(self, submission: Submission) -> JobStatus:
        """Start the job, or adopt the newest job that already carries the same identity label.

        A job that failed or was cancelled is not adopted: submitting again is a retry."""
        ...

    def get(self, job_id: str) -> JobStatus:
        """The job's status; NotFound if it does not exist."""
        ...

    def list(self, labels: dict[str, str] | None = None) -> list[JobStatus]:
        """The jobs carrying all ``labels`` (every job without), newest first."""
        ...

    def find(self, labels: dict[str, str]) -> JobStatus | None:
        """The newest job carrying all these labels (adoption)."""
        ...

    def resolve(self, ref: str, labels: dict[str, str] | None = None) -> str:
        """The job id (or resource name) that ``ref`` names: an id, a unique id prefix, or a job name
        (its newest job among those carrying ``labels``); NotFound otherwise."""
        ...

    def wait(self, job_id: str, until: tuple[JobState, ...] = (), timeout: float | None = None) -> JobStatus:
        """Poll with backoff until the job is in one of ``until`` (default: finished) or ``timeout`` runs out."""
        ...

    def cancel(self, job_id: str, wait: float = 0.0) -> JobStatus:
        """Cancel the job (a finished one is returned as it is); wait up to ``wait`` seconds for it to end."""
        ...

    def delete(self, job_id: str) -> None:
        """Forget a finished job; FailedPrecondition while it runs."""
        ...

    def scan(self, labels: dict[str, str] | None = None, limit: int | None = None) -> Listing:
        """As ``list``, with the jobs whose records cannot be read listed apart instead of failing the
        listing; with ``limit``, at most that many readable jobs (the newest)."""
        ...

    def read_logs(self, job_id: str, cursor: str = "", query: LogQuery | None = None) -> LogChunk:
        """The job's log lines written since ``cursor``, typed (provider.backends.log_line.LogLine: time,
        replica, source), in time order, and the cursor to read on from; ``query`` picks a replica
        (UnknownReplica, on the first read, lists the real ones), a source, a start, the last N.

        This is the one way to read a job's log, and each backend writes it once. Why a read from a
        cursor rather than a generator: a page that polls (the console's log stream, ``run``'s live
        view) keeps only the cursor between reads, on any thread, and every reader shares one way of
        following (provider.backends.log_line.stream: a one-off read, ``logs --follow``, the
        console's stream), its waits and its end (``LogChunk.ended``), instead of one per backend."""
        ...

    log_backoff: Backoff  # how long a follower waits between two reads (a remote log service has quotas)

    def jobs_at(self) -> str:
        """Where its jobs are kept (a local home, a project and region through an endpoint): two backends
        that answer the same are one store, and list the same jobs."""
        ...

    def outputs(self, uri: str) -> builtins.list[StoredObject]:
        """Every object under the gs:// directory ``uri`` (a job's output directory), sorted by URI;
        none when nothing is there. InvalidArgument for a URI that is not gs://."""
        ...

    def download(self, stored: StoredObject, target: Path) -> None:
        """Copy one object of ``outputs`` to the file ``target`` on this machine."""
        ...

    def local_path(self, uri: str) -> Path | None:
        """Where the gs:// ``uri`` lies on this machine; None for a backend that keeps it elsewhere."""
        ...


class Opened(NamedTuple):
    """A backend and the stager that stages packages where it reads them (a settings class's ``open``)."""

    backend: Backend
    stager: Stager
