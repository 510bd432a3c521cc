"""The TrainingJob dynamic resource: a spec's job, reconciled by ``pulumi up``.

* check()  runs the one validator and the stack's quotas on the spec; failures come back per
           property, so ``pulumi preview`` shows them (provider.resources.job_check; unknowns
           during a preview are left to ``pulumi up``). It builds the job's request from the
           spec, the image and the account (provider.resources.job_request) and returns it among
           the checked inputs: the program does not carry it.
* diff()   jobs are immutable: a change to what runs (the request, its project or region, the
           backend) replaces the job, deleting the old one first unless the stack says
           createFirst; a change to anything else (wait policy, description, labels) is a no-op;
           a desired state of CANCELLED cancels it, through update() (provider.resources.job_diff).
* create() stages the trainer (content-addressed: unchanged source, no diff), submits through
           the backend (adopting a job that already carries this job's identity label, so a
           retry never starts a second one; or, with ``adopt``, recording an existing job
           without starting one), waits as the wait policy says within the stack's create
           timeout, and fails the update with the job's error if the job failed. A job that
           exists is always returned, so the engine records it: a wait that runs out is the
           ``waitNotice`` output (the program warns with it), never a lost job.
* read()   refreshes state, times and error (``pulumi refresh``); a job deleted elsewhere is gone.
* delete() cancels a running job, then keeps or deletes its record as the retention says.

The provider holds no state: every client is built inside a method from the resource's
inputs, so the serialized provider is tiny and survives the engine's pickling.

No ``from __future__ import annotations`` here: the SDK reads the resource class's annotations
(its outputs' types) with ``typing.get_type_hints`` at every registration, and string annotations
are compiled and evaluated again each time (about 1 ms per job more than annotations that are
already objects). Names imported only for type checking are quoted instead.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pulumi
from pulumi.dynamic import (
    CheckResult,
    ConfigureRequest,
    CreateResult,
    DiffResult,
    ReadResult,
    ResourceProvider,
    UpdateResult,
)

from provider.core.backend_registry import DEFAULT_FOR_OLD_STATE, capabilities
from provider.core.backend_types import BackendKind
from provider.resources.job_args import JobArgs
from provider.stack.settings import (
    DEFAULT_RETENTION,
    DEFAULT_WAIT_TIMEOUT_SECONDS,
    DEFAULT_WAIT_UNTIL,
    Retention,
    WaitUntil,
)

if TYPE_CHECKING:
    from provider.backends.base import Backend, JobStatus
    from provider.backends.settings import Opened
    from provider.core.vertex_request import VertexRequest
    from provider.packaging.stage import Stager

TYPE_MODULE = "trainjobs"
OUTPUTS = ("jobId", "resourceName", "state", "createTime", "startTime", "endTime", "error", "consoleUrl",
           "outputDir", "trials", "bestTrial", "waitNotice")


class TrainingJobError(Exception):
    """Why create() failed. The SDK's host prints a traceback before it, so this one line comes
    last and says all a user needs: which job, what happened, where to look."""


def _one_line(text: str) -> str:
    return " ".join(text.strip().splitlines()[:1]) or "no error message"


def _args(props: Mapping[str, Any]) -> JobArgs:
    """The inputs of a create, read, update or delete (every value known; whole floats made ints)."""
    return JobArgs.from_props(props, frozenset())


def _kind(p: JobArgs) -> BackendKind:
    """The job's backend kind (a state from before the ``backend`` input: Vertex AI)."""
    return BackendKind(p.backend or DEFAULT_FOR_OLD_STATE)


def backend_for(p: JobArgs) -> "Backend":
    return opened(p).backend


def opened(p: JobArgs) -> "Opened":
    from provider.backends.settings import open_backend

    return open_backend(p.backend_settings())


def request_of(p: JobArgs) -> "VertexRequest":
    from provider.core.vertex_request import VertexRequest
    from provider.resources.job_request import decode

    return VertexRequest(kind=str(p.request_kind), parent=str(p.parent), body=dict(decode(p.request)))


def _limit(p: JobArgs, operation: str, seconds: float) -> float:
    """The shorter of ``seconds`` and the stack's custom timeout for the operation (the ``timeouts``
    input: the SDK's dynamic host does not pass the engine's CreateRequest.timeout to the provider,
    so the program passes the same customTimeouts it sets on the resource as an input)."""
    limit = (p.timeouts or {}).get(operation)
    return min(seconds, float(limit)) if limit else seconds


def _logs_hint(p: JobArgs, status: "JobStatus") -> str:
    if not capabilities(_kind(p)).remote:
        home = f"TRAINJOBS_HOME={p.local_home} " if p.local_home else ""
        return f"{home}trainjobs logs {status.id}"
    return str(status.console_url or f"the job {status.name} in the Vertex AI console")


def status_outputs(status: "JobStatus") -> dict[str, Any]:
    return {
        "jobId": status.id,
        "resourceName": status.name,
        "state": status.state.value,
        "createTime": status.create_time or "",
        "startTime": status.start_time or "",
        "endTime": status.end_time or "",
        "error": status.error or "",
        "consoleUrl": status.console_url or "",
        "outputDir": status.output_dir or "",
        "trials": len(status.trials),
        "bestTrial": status.best_trial or "",
    }


class TrainingJobProvider(ResourceProvider):
    """No fields: everything comes from the resource's inputs."""

    # Secrets in the inputs (env values from the stack's secret config) never reach this object.
    serialize_as_secret_always = False

    def configure(self, _req: ConfigureRequest) -> None:
        """The SDK's host calls this once, when it unpickles the provider: from then on its process
        looks a spec folder's repository boundary up again only when the tree there has changed, not
        once per job (provider.document.boundary.watch; the program holds ``memo()`` for its run)."""
        from provider.document.boundary import watch

        watch()

    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        from provider.resources.check_carry import carried
        from provider.resources.job_check import job_check

        kept = carried(olds, news)  # an unchanged job of a deployed stack: the olds hold its verdict
        if kept is not None:
            return CheckResult(kept, [])
        inputs, failures = job_check(news)
        return CheckResult(inputs, failures)

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        from provider.resources.job_diff import job_diff

        return job_diff(olds, news)

    def create(self, props: dict[str, Any]) -> CreateResult:
        """Submit (or adopt) the job, then wait as the stack says. Once a job exists, create returns
        it, so the engine records its id and state: a wait that runs out (or cannot go on) is a
        ``waitNotice`` output, which the program shows as a warning, not a lost job."""
        from provider.backends.base import BackendError, JobState

        p = _args(props)
        backend, stager = opened(p)
        try:
            status = self._adopt(backend, p) if p.adopt else self._submit(backend, stager, p)
        except BackendError as exc:
            verb = f"adopted (job {p.adopt})" if p.adopt else "started"
            raise TrainingJobError(f"training job {p.job_name} was not {verb}: {_one_line(exc.message)}") from None
        status, notice = self._wait(backend, status, p)
        if status.state is JobState.FAILED:
            raise TrainingJobError(f"training job {p.job_name} ({status.id}) failed: {_one_line(status.error or '')}"
                                   f" (its logs: {_logs_hint(p, status)})") from None
        if p.desired_state == "CANCELLED" and not status.state.terminal:
            status = backend.cancel(status.id, wait=_limit(p, "create", 15))
        return CreateResult(status.id, {**props, **status_outputs(status), "waitNotice": notice})

    def _submit(self, backend: "Backend", stager: "Stager", p: JobArgs) -> "JobStatus":
        from provider.backends.base import Submission

        submission = Submission(request=request_of(p), max_wait_seconds=p.max_wait_seconds,
                                secret_env=frozenset(p.secret_env_names or ()))
        backend.check(submission)  # a refused job stages nothing
        self._stage(stager, p)
        return backend.submit(submission)

    def _adopt(self, backend: "Backend", p: JobArgs) -> "JobStatus":
        """An existing job (``trainjobs:adopt``) recorded under this spec: nothing is started."""
        from provider.backends.base import BackendError, NotFound

        ref = str(p.adopt)
        if "/" in ref and not ref.startswith(f"{p.parent}/"):
            raise BackendError(f"job {ref} is not in {p.parent}, where the spec runs")
        try:
            status = backend.get(ref.rsplit("/", 1)[-1])
        except NotFound:
            raise BackendError(f"no job {ref} in {p.parent} (trainjobs:adopt names a job id or its resource "
                               "name)") from None
        if status.kind != p.request_kind:
            raise BackendError(f"job {ref} is a {status.kind}, and the spec describes a {p.request_kind}")
        if capabilities(_kind(p)).remote and not str(status.name).startswith(f"{p.parent}/"):
            raise BackendError(f"job {status.name} is not in {p.parent}, where the spec runs")
        return status

    def _stage(self, stager: "Stager", p: JobArgs) -> None:
        """Stage what the props name: the package path (``package``), the extra package files
        (``extraPackages``) and the requirements' sdist (``requirements``), each at its URI."""
        from provider.packaging import Upload, UploadKind
        from provider.packaging.stage import stage_upload

        # Relative to the project: the engine starts the provider in the program's directory
        # (pkg/resource/plugin/plugin.go: cmd.Dir = pwd, with ctx.Pwd). A state written before paths
        # were relative keeps its absolute projectRoot.
        root = Path(p.project_root or ".")
        staged = []
        if p.package:
            staged.append(Upload(UploadKind.SOURCE, p.package["uri"], root / p.package["source"]))
        staged += [Upload(UploadKind.EXTRA, extra["uri"], root / extra["source"])
                   for extra in p.extra_packages or ()]
        if p.requirements:
            staged.append(Upload(UploadKind.REQUIREMENTS, p.requirements["uri"],
                                 requirements=tuple(p.requirements["lines"])))
        for upload in staged:
            stage_upload(upload, stager, repository=root)

    def _wait(self, backend: "Backend", status: "JobStatus", p: JobArgs) -> "tuple[JobStatus, str]":
        """Wait as the wait policy says (none, running, or completion), within the shorter of its
        timeout and the create timeout; returns the status and, when the wait ran out or could not
        go on, what the user must know."""
        from provider.backends.base import BackendError, JobState

        wait = p.wait or {}
        until = WaitUntil(wait.get("until", DEFAULT_WAIT_UNTIL))
        if until is WaitUntil.NONE:
            return status, ""
        goal = (JobState.RUNNING,) if until is WaitUntil.RUNNING else ()
        timeout = _limit(p, "create", float(wait.get("timeout", DEFAULT_WAIT_TIMEOUT_SECONDS)))
        try:
            status = backend.wait(status.id, until=goal, timeout=timeout)
        except BackendError as exc:
            return status, (f"training job {p.job_name} ({status.id}) was submitted, but waiting for it failed: "
                            f"{_one_line(exc.message)}. It is recorded in the stack as {status.state.value}; "
                            "`pulumi refresh` reads its state now")
        if not status.state.terminal and (until is WaitUntil.COMPLETION or status.state not in goal):
            return status, (f"training job {p.job_name} ({status.id}) was still {status.state.value} after {timeout:g}s "
                            f"(wait policy: until {until}). It keeps running and is recorded in the stack: "
                            "`pulumi refresh` reads its state now, `pulumi destroy` or removing its spec cancels it")
        return status, ""

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        from provider.backends.base import NotFound

        try:
            status = backend_for(_args(props)).get(id_)
        except NotFound:
            return ReadResult("", {})  # deleted outside Pulumi: the engine drops it from the state
        return ReadResult(id_, {**props, **status_outputs(status), "waitNotice": ""})

    def update(self, id_: str, _olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        """Only a desired state of CANCELLED reaches here (see diff)."""
        p = _args(news)
        backend = backend_for(p)
        status = backend.get(id_)
        if p.desired_state == "CANCELLED" and not status.state.terminal:
            status = backend.cancel(id_, wait=_limit(p, "update", 15))
        return UpdateResult({**news, **status_outputs(status), "waitNotice": ""})

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        from provider.backends.base import NotFound

        p = _args(props)
        backend = backend_for(p)
        try:
            status = backend.get(id_)
            if not status.state.terminal:
                status = backend.cancel(id_, wait=_limit(p, "delete", 15))
            if (p.retention or DEFAULT_RETENTION) != Retention.DELETE:
                return
            waited = _limit(p, "delete", 75)
            if not status.state.terminal:
                status = backend.wait(id_, timeout=max(waited - 15, 1))  # polls with backoff
            if not status.state.terminal:
                raise TrainingJobError(f"training job {p.job_name} ({id_}) is still {status.state.value} {waited:g} s after "
                                       "it was cancelled, so its record cannot be deleted yet; `pulumi destroy` again "
                                       "finishes it") from None
            backend.delete(id_)
        except NotFound:
            return  # gone already: what was asked


class TrainingJob(pulumi.dynamic.Resource, module=TYPE_MODULE, name="TrainingJob"):
    """One training job of a stack (type pulumi-python:dynamic/trainjobs:TrainingJob)."""

    # Every output (OUTPUTS): what create, read and update return besides the inputs.
    jobId: pulumi.Output[str]
    resourceName: pulumi.Output[str]
    state: pulumi.Output[str]
    createTime: pulumi.Output[str]
    startTime: pulumi.Output[str]
    endTime: pulumi.Output[str]
    error: pulumi.Output[str]
    consoleUrl: pulumi.Output[str]
    outputDir: pulumi.Output[str]
    trials: pulumi.Output[int]
    bestTrial: pulumi.Output[str]
    waitNotice: pulumi.Output[str]

    def __init__(self, name: str, args: JobArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(TrainingJobProvider(), name, {**dict.fromkeys(OUTPUTS), **args.to_props()}, opts)
