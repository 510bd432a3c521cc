"""The TrainingJob dynamic resource: a spec's job, reconciled by ``pulumi up``.

* check()  runs the one validator and the stack's quotas on the spec; failures come back per
           property, so ``pulumi preview`` shows them.
* diff()   jobs are immutable: a change to what runs (the request, its project or region, the
           backend) replaces the job; a change to anything else (wait policy, description,
           labels) is a no-op; a desired state of CANCELLED cancels it, through update().
* create() stages the trainer (content-addressed: unchanged source, no diff), submits through
           the backend (adopting a job that already carries this job's identity label, so a
           retry never starts a second one), waits as the wait policy says, and fails the
           update with the job's error if the job failed.
* read()   refreshes state, times and error (``pulumi refresh``); a job deleted elsewhere is gone.
* delete() cancels a running job, then keeps or deletes its record as the retention says.

The provider holds no state: every client is built inside a method from the resource's
inputs, so the serialized provider is tiny and survives the engine's pickling.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pulumi
from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    CreateResult,
    DiffResult,
    ReadResult,
    ResourceProvider,
    UpdateResult,
)

TYPE_MODULE = "trainjobs"
OUTPUTS = ("jobId", "resourceName", "state", "createTime", "startTime", "endTime", "error", "consoleUrl",
           "outputDir", "trials", "bestTrial")


class TrainingJobError(Exception):
    """Why create() failed. The SDK's host prints a traceback before it, so this one line comes
    last and says all a user needs: which job, what happened, where to look."""


def _one_line(text: str) -> str:
    return " ".join(text.strip().splitlines()[:1]) or "no error message"


def _props(props: Mapping[str, Any]) -> dict[str, Any]:
    """Engine values to plain Python (numbers arrive as floats; whole ones become ints)."""
    from provider.policy_inputs import plain

    result: dict[str, Any] = plain(dict(props))
    return result


def backend_for(props: Mapping[str, Any]) -> Any:
    from provider.backends import get_backend

    if props.get("backend") == "local":
        return get_backend("local", home=props.get("localHome") or None, storage_root=props.get("localStorage") or None)
    return get_backend("vertex", project=props["project"], location=props["region"],
                       api_endpoint=props.get("apiEndpoint") or None)


def stager_for(backend: Any, props: Mapping[str, Any]) -> Any:
    if props.get("backend") == "local":
        from provider.packaging.stage import LocalStager

        return LocalStager(backend.storage)
    from provider.packaging.gcs import GcsStager, gcs_client

    return GcsStager(gcs_client(props["project"], props.get("apiEndpoint") or None))


def request_of(props: Mapping[str, Any]) -> Any:
    from provider.request import VertexRequest

    return VertexRequest(kind=props["requestKind"], parent=props["parent"], body=dict(props["request"]))


def _logs_hint(p: Mapping[str, Any], status: Any) -> str:
    if p.get("backend") == "local":
        home = f"TRAINJOBS_HOME={p['localHome']} " if p.get("localHome") else ""
        return f"{home}trainjobs logs {status.id}"
    return str(status.console_url or f"the job {status.name} in the Vertex AI console")


def status_outputs(status: Any) -> dict[str, Any]:
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

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        from provider.policy import check_job
        from provider.policy_inputs import stack_config
        from provider.validation.rules import Context, Target
        from provider.validation.validator import validate_data

        props = _props(news)
        failures: list[CheckFailure] = []
        for key in ("jobName", "backend", "spec", "request", "requestKind", "parent", "identity"):
            if props.get(key) in (None, ""):
                failures.append(CheckFailure(key, f"{key} is required"))
        if failures:
            return CheckResult(news, failures)
        stack = stack_config(props)
        target = Target.VERTEX if props["backend"] == "vertex" else Target.LOCAL
        ctx = Context(target=target, staging_bucket=f"gs://{stack.bucket}",
                      bucket_regions=tuple(stack.bucket_regions.items()))
        spec_file = str(props.get("specFile") or props["jobName"])
        result = validate_data(props["spec"], spec_file, ctx)
        for p in result.problems:
            if p.is_error:
                where = f" at {p.path}" if p.path else ""
                allowed = f" (allowed: {p.allowed})" if p.allowed else ""
                failures.append(CheckFailure("spec", f"{spec_file}{where}: {p.message}{allowed}"))
        if result.job is not None:
            if result.job.name != props["jobName"]:
                failures.append(CheckFailure("jobName", f"jobName {props['jobName']!r} differs from the spec's "
                                                        f"metadata.name {result.job.name!r}"))
            for v in check_job(result.job, stack):
                failures.append(CheckFailure("quotas", v.text()))
        wait = props.get("wait") or {}
        if wait and wait.get("until") not in ("none", "running", "completion"):
            failures.append(CheckFailure("wait", f"wait.until is {wait.get('until')!r}; allowed: none, running, "
                                                 "completion"))
        if props.get("retention", "keep") not in ("keep", "delete"):
            failures.append(CheckFailure("retention", f"retention is {props.get('retention')!r}; allowed: keep, delete"))
        return CheckResult(news, failures)

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        from provider.diffing import Action, diff

        old, new = _props(olds), _props(news)
        # Where the job lives (backend, project and region, endpoint or local home) or what kind it is.
        where = ("backend", "parent", "requestKind", "apiEndpoint", "localHome", "localStorage")
        replaces = [k for k in where if old.get(k) != new.get(k)]
        if old.get("request") != new.get("request"):
            judged = diff({"parent": old.get("parent"), **(old.get("request") or {})},
                          {"parent": new.get("parent"), **(new.get("request") or {})})
            if judged.action is Action.REPLACE:
                replaces.append("request")
        was_cancelled = old.get("desiredState") == "CANCELLED"
        cancel = new.get("desiredState") == "CANCELLED" and not was_cancelled
        if was_cancelled and new.get("desiredState") != "CANCELLED":
            replaces.append("desiredState")  # a cancelled job cannot resume: run it again
        if replaces:
            return DiffResult(changes=True, replaces=sorted(set(replaces)), delete_before_replace=False)
        return DiffResult(changes=cancel, replaces=[])

    def create(self, props: dict[str, Any]) -> CreateResult:
        from provider.backends.base import BackendError, Submission

        p = _props(props)
        backend = backend_for(p)
        try:
            self._stage(backend, p)
            submission = Submission(request=request_of(p), max_wait_seconds=p.get("maxWaitSeconds"),
                                    secret_env=frozenset(p.get("secretEnvNames") or ()))
            status = backend.submit(submission)
            status = self._wait(backend, status, p)
        except BackendError as exc:
            raise TrainingJobError(f"training job {p['jobName']} was not started: {_one_line(exc.message)}") from None
        outs = {**props, **status_outputs(status)}
        if status.state.value == "FAILED":
            raise TrainingJobError(f"training job {p['jobName']} ({status.id}) failed: {_one_line(status.error or '')}"
                                   f" (its logs: {_logs_hint(p, status)})") from None
        if p.get("desiredState") == "CANCELLED" and not status.state.terminal:
            outs.update(status_outputs(backend.cancel(status.id, wait=15)))
        return CreateResult(status.id, outs)

    def _stage(self, backend: Any, p: Mapping[str, Any]) -> None:
        package = p.get("package")
        if not package:
            return
        from provider.packaging.stage import stage

        source = Path(p.get("projectRoot") or ".") / package["source"]
        stage(source, package["uri"], stager_for(backend, p))

    def _wait(self, backend: Any, status: Any, p: Mapping[str, Any]) -> Any:
        """Wait as the stack's wait policy says: none, running, or completion, within its timeout."""
        from provider.backends.base import JobState

        wait = p.get("wait") or {}
        until = wait.get("until", "running")
        if until == "none":
            return status
        goal = (JobState.RUNNING,) if until == "running" else ()
        timeout = float(wait.get("timeout", 1800))
        status = backend.wait(status.id, until=goal, timeout=timeout)
        if not status.state.terminal and (until == "completion" or status.state not in goal):
            raise TrainingJobError(
                f"training job {p['jobName']} ({status.id}) is still {status.state.value} after {timeout:g}s "
                f"(wait policy: until {until}). It keeps running; `pulumi up` again adopts it, and `pulumi refresh` "
                "tracks it")
        return status

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        from provider.backends.base import NotFound

        p = _props(props)
        try:
            status = backend_for(p).get(id_)
        except NotFound:
            return ReadResult("", {})  # deleted outside Pulumi: the engine drops it from the state
        return ReadResult(id_, {**props, **status_outputs(status)})

    def update(self, id_: str, _olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        """Only a desired state of CANCELLED reaches here (see diff)."""
        p = _props(news)
        backend = backend_for(p)
        status = backend.get(id_)
        if p.get("desiredState") == "CANCELLED" and not status.state.terminal:
            status = backend.cancel(id_, wait=15)
        return UpdateResult({**news, **status_outputs(status)})

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        from provider.backends.base import NotFound

        p = _props(props)
        backend = backend_for(p)
        try:
            status = backend.get(id_)
            if not status.state.terminal:
                status = backend.cancel(id_, wait=15)
            if p.get("retention", "keep") != "delete":
                return
            if not status.state.terminal:
                status = backend.wait(id_, timeout=60)  # polls with backoff
            if not status.state.terminal:
                raise TrainingJobError(f"training job {p['jobName']} ({id_}) is still {status.state.value} 75 s after "
                                       "it was cancelled, so its record cannot be deleted yet; `pulumi destroy` again "
                                       "finishes it") from None
            backend.delete(id_)
        except NotFound:
            return  # gone already: what was asked


class TrainingJob(pulumi.dynamic.Resource, module=TYPE_MODULE, name="TrainingJob"):
    """One training job of a stack (type pulumi-python:dynamic/trainjobs:TrainingJob)."""

    jobId: pulumi.Output[str]
    state: pulumi.Output[str]
    consoleUrl: pulumi.Output[str]
    outputDir: pulumi.Output[str]
    error: pulumi.Output[str]

    def __init__(self, name: str, props: dict[str, Any], opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(TrainingJobProvider(), name, {**dict.fromkeys(OUTPUTS), **props}, opts)
