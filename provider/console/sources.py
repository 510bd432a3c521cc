"""Where jobs are read from: this machine's local jobs, and the jobs of named stacks.

A *source* is one backend and the stack it serves (none for this machine's own jobs):

* a local stack reads the local backend (its ``trainjobs:localHome`` when it has one);
* a vertex stack reads Vertex AI in its ``gcp:project`` and ``gcp:region``, through
  ``trainjobs:apiEndpoint`` when that is set (``trainjobs emulator`` serves the same API).

Backends are built by provider.backends.settings.open_backend, the one factory, and read only through the
seam (Backend.get/list/cancel/logs): the console has no second way to read a job.
A stack's jobs are those labelled ``trainjobs-stack=<stack>`` (provider.submission.launch.labels_for).
Every failure a user can fix is a SourceError with what went wrong and how to fix it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from provider.backends.base import Backend, BackendError, JobStatus
from provider.backends.settings import open_backend, open_local, settings_of_stack
from provider.core.backend_registry import capabilities
from provider.core.record import Record, field
from provider.core.rpc_code import RpcCode
from provider.stack.config import StackConfig
from provider.stack.membership import StackIndex

if TYPE_CHECKING:
    import threading

    from provider.backends.log_line import LogLine

LOGIN = "gcloud auth application-default login"
LOCAL = "local"  # the name of the source for this machine's own jobs
# A page waits for Vertex AI at most about this long: two tries, then it says what failed.
FAST_TRIES, FAST_WAIT = 2, 0.5
CALL_TIMEOUT = 15.0


class SourceError(Exception):
    """A source that cannot be read: ``message`` says what, ``fix`` says how to fix it."""

    def __init__(self, message: str, fix: str = "", status: int = 502) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix
        self.status = status  # the HTTP status of the page that says so


class Source(Record):
    """One backend and the stack it serves; ``name`` is the stack's name, or ``local``."""

    name: str
    backend: Backend
    stack: StackConfig | None = None

    @property
    def kind(self) -> str:
        return self.backend.name

    @property
    def labels(self) -> dict[str, str] | None:
        """The list filter for this source's jobs (None: every job of the backend)."""
        from provider.backends.for_stack import stack_labels

        return stack_labels(self.stack) if self.stack is not None else None

    def jobs(self, limit: int | None = None) -> list[JobStatus]:
        """This source's jobs, newest first; with ``limit``, only the newest that many (the backend stops
        reading there, so a first page costs the same however long the history is)."""
        try:
            return self.backend.scan(self.labels, limit=limit).jobs
        except BackendError as exc:
            raise _error(self, exc) from exc
        except Exception as exc:  # an SDK failure outside the seam's errors (a network error, a bad endpoint)
            raise SourceError(f"{self.describe()} cannot be reached: {type(exc).__name__}: {exc}",
                              _fix_for(self, None)) from exc

    def get(self, job_id: str) -> JobStatus:
        """The job ``job_id`` names: an id, a unique id prefix or a job name, as ``trainjobs status`` finds it."""
        try:
            return self.backend.get(self.backend.resolve(job_id, self.labels))
        except BackendError as exc:
            raise _error(self, exc) from exc
        except Exception as exc:
            raise SourceError(f"{self.describe()} cannot be reached: {type(exc).__name__}: {exc}",
                              _fix_for(self, None)) from exc

    def logs(self, job_id: str, replica: str | None = None, follow: bool = False,
             stop: threading.Event | None = None) -> Iterator[LogLine]:
        """The job's log lines, each with its time (as ``trainjobs logs`` reads them); ``stop`` ends a follow early."""
        from provider.backends.log_line import LogQuery, stream

        return stream(self.backend, self.backend.resolve(job_id, self.labels), LogQuery(replica=replica), follow, stop)

    def cancel(self, job_id: str) -> JobStatus:
        try:
            return self.backend.cancel(self.backend.resolve(job_id, self.labels))
        except BackendError as exc:
            raise _error(self, exc) from exc

    def describe(self) -> str:
        if self.stack is None:
            return "the local backend"
        where = f"{self.stack.project}/{self.stack.region}" if capabilities(self.kind).remote else "this machine"
        via = f" through {self.stack.api_endpoint}" if self.stack.api_endpoint else ""
        return f"stack {self.stack.name} ({self.kind}, {where}{via})"


def _error(source: Source, exc: BackendError) -> SourceError:
    if exc.code == "NOT_FOUND":
        return SourceError(f"{source.describe()}: {exc.message}", "check the job id: the jobs list links every job",
                           404)
    code = RpcCode.named(exc.code)  # Google's HTTP status for it; a backend's failure of no known kind: 502
    return SourceError(f"{source.describe()}: {exc.message}", _fix_for(source, exc),
                       502 if code is RpcCode.UNKNOWN else code.http)


def _fix_for(source: Source, exc: BackendError | None) -> str:
    if not capabilities(source.kind).remote:
        return "check TRAINJOBS_HOME and that this user can read the local job store"
    if exc is not None and exc.code == "PERMISSION_DENIED":
        emulator = "point trainjobs:apiEndpoint at `trainjobs emulator` to use the emulator"
        if LOGIN in exc.message:  # the backend's message says how to log in already: the banner says it once
            return f"log in as it says, or {emulator}"
        return f"run `{LOGIN}` (or set GOOGLE_APPLICATION_CREDENTIALS), or {emulator}"
    assert source.stack is not None
    if source.stack.api_endpoint:
        return (f"is the API at {source.stack.api_endpoint} running? Start it with `trainjobs emulator`, or fix "
                f"trainjobs:apiEndpoint in {source.stack.source}")
    return "check the network, the project and the region of the stack"


class Sources(Record, frozen=False):
    """The sources the console reads: ``local`` first, then each chosen stack."""

    sources: list[Source] = field(default_factory=list)
    index: StackIndex | None = None

    def names(self) -> list[str]:
        return [s.name for s in self.sources]

    def summary(self) -> str:
        """What the console reads, each source once: this machine's jobs, then the chosen stacks (a stack
        may be named ``local`` too, so they are not listed as bare names)."""
        stacks = [s.name for s in self.sources if s.stack is not None]
        if not stacks:
            return "this machine's jobs"
        return f"this machine's jobs and those of stack{'s' if len(stacks) > 1 else ''} {', '.join(stacks)}"

    def get(self, name: str) -> Source:
        for source in self.sources:
            if source.name == name:
                return source
        raise SourceError(f"no source {name!r}: the console reads {', '.join(self.names())}",
                          "start the console with --stack NAME to read that stack's jobs", 404)

    def stack(self, name: str) -> StackConfig:
        known = [s.name for s in self.index.stacks] if self.index else []
        config = self.index.stack(name) if self.index else None
        if config is None:
            raise SourceError(f"no stack {name!r} in stacks/ (stacks: {', '.join(known) or 'none'})",
                              "a stack is a file stacks/Pulumi.NAME.yaml; run the console from the project root", 404)
        return config


def source_for(stack: StackConfig) -> Source:
    """The backend of one stack, built as every job command builds it (provider.backends.settings)."""
    if capabilities(stack.backend).needs_project and not stack.project:
        raise SourceError(f"stack {stack.name} ({stack.source}) has no gcp:project", "set gcp:project in the stack file")
    try:
        from provider.backends.polling import Backoff

        fast = Backoff(initial=FAST_WAIT, maximum=2.0, attempts=FAST_TRIES)
        backend = open_backend(settings_of_stack(stack), retry=fast, timeout=CALL_TIMEOUT).backend
    except ModuleNotFoundError as exc:
        raise SourceError(f"stack {stack.name} runs on Vertex AI, and its SDK is not installed ({exc.name})",
                          "pip install 'trainjobs[vertex]'") from exc
    return Source(stack.name, backend, stack)


def load(stack_names: list[str], stacks_dir: Path = Path("stacks")) -> Sources:
    """``local`` and each named stack; an unknown or invalid stack is a SourceError. The stacks are
    those of ``stacks_dir`` when it exists, else of the workspace holding the current directory
    (provider.workspace: the console started in a subfolder of the project reads the same stacks)."""
    from provider.workspace import Workspace

    index = Workspace.here(stacks_dir).index
    out = Sources([Source(LOCAL, open_local().backend)], index)
    for name in dict.fromkeys(stack_names):
        out.sources.append(source_for(out.stack(name)))
    return out
