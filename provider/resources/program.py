"""The steps of the Pulumi program (``__main__.py``): config, specs, resources, outputs.

Every step fails with one clear message (``pulumi.RunError``: no traceback) that lists all the
problems found, with file, line and column when they come from a file.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pulumi

from provider.core.backend_registry import capabilities
from provider.core.problem import Problem
from provider.core.record import Record, replace
from provider.packaging.digest import directory_digest
from provider.resources.job_args import JobArgs
from provider.resources.job_request import encode
from provider.resources.team import TeamInfra
from provider.resources.training_job import TrainingJob
from provider.spec.model import Container
from provider.spec.model import TrainingJob as JobModel
from provider.stack.config import NS, StackConfig, check_mapping, from_pulumi_env, load_stack
from provider.submission.request import request_where
from provider.submission.stack_request import identity as identity  # its home; tests import it from here
from provider.submission.stack_request import stack_request
from provider.workspace import find_root

# The workspace of the program: the engine runs it in the project directory (Pulumi.yaml), whose stacks/
# and specs/ every entry point checks the same way (provider.workspace).
ROOT = find_root(Path.cwd()) or Path.cwd()


class LoadedSpec(Record):
    """One of the stack's spec files, checked: its path, its document, and the job it describes."""

    path: Path  # relative to the project root
    data: dict[str, Any]  # the document, as the provider's check() will see it
    job: JobModel


def _fail(title: str, problems: list[Problem]) -> None:
    lines = [title]
    for p in problems:
        allowed = f" (allowed: {p.allowed})" if p.allowed else ""
        where = f" at {p.path}" if p.path else ""
        lines.append(f"  {p.where}: {p.message}{where}{allowed}")
    raise pulumi.RunError("\n".join(lines))


def all_config() -> dict[str, Any]:
    """The stack's config as the engine passes it ({"ns:key": value}; structured values as JSON)."""
    from pulumi.runtime import config as runtime_config

    raw = {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()}
    return from_pulumi_env(pulumi.get_stack(), raw)


def stack_config() -> StackConfig:
    """Read and check the stack's config; problems are located in its stack file when it exists."""
    name = pulumi.get_stack()
    config = {k: v for k, v in all_config().items() if k != NS + "secretEnv"}
    path = ROOT / "stacks" / f"Pulumi.{name}.yaml"
    loaded = check_mapping(name, config, f"stack {name} config")
    if loaded.config is None:
        if path.is_file():  # the same check on the file, for line and column
            located = load_stack(path, f"stacks/{path.name}")
            if located.problems:
                _fail(f"stack {name}: its config is invalid", located.problems)
        _fail(f"stack {name}: its config is invalid", loaded.problems)
    assert loaded.config is not None
    if path.is_file():  # where the stack's own problems (its stack-wide quota) point
        return replace(loaded.config, source=f"stacks/{path.name}")
    return loaded.config


def load_specs(stack: StackConfig) -> list[LoadedSpec]:
    """The stack's specs, each checked in its stack (provider.stack.check: the validator, the
    quotas and the policy), and the stack-wide quota over them all: what ``trainjobs validate``
    reports for them, named the same way (relative to the workspace's root)."""
    from provider.document.boundary import memo
    from provider.stack.check import check_in_stack, stack_quota_problems
    from provider.stack.membership import spec_files
    from provider.validation.names import duplicate_names
    from provider.validation.validator import in_order

    files = spec_files(stack, ROOT)
    if not files:
        _fail(f"stack {stack.name}: trainjobs:specs matches no spec file", [])
    with memo():  # one repository-boundary lookup per folder, not per spec
        results = [check_in_stack(path, stack, str(path.relative_to(ROOT))) for path in files]
    problems = [p for r in results for p in r.problems if p.is_error]
    problems.extend(duplicate_names(results, files, lambda _p: [stack.name]))
    problems.extend(stack_quota_problems(stack, results))
    if problems:
        _fail(f"stack {stack.name}: the specs are invalid (trainjobs validate shows the same)", in_order(problems))
    return [LoadedSpec(path=path.relative_to(ROOT), data=r.data, job=r.job)
            for path, r in zip(files, results) if r.job is not None]


def _secret_env() -> pulumi.Output[dict[str, str]] | None:
    if all_config().get(NS + "secretEnv") is None:
        return None
    value = pulumi.Config("trainjobs").get_secret_object("secretEnv")
    return None if value is None else pulumi.Output.secret(value)


def _secret_env_names() -> list[str]:
    value = all_config().get(NS + "secretEnv")
    if isinstance(value, str):
        value = json.loads(value)
    return sorted(value) if isinstance(value, dict) else []


def _request(spec: LoadedSpec, stack: StackConfig, image: str | None, account: str | None,
             secret_env: Mapping[str, str] | None) -> str:
    """The job's request as the stack submits it (provider.submission.stack_request: ``trainjobs run
    --stack`` builds the same, so both give the job the same identity label), carried as Check
    returns it (provider.resources.job_request.encode)."""
    request = stack_request(spec.job, ROOT / spec.path.parent, stack, image=image, account=account,
                            secret_env=secret_env)
    return encode(request.body)


def _packages(spec: LoadedSpec, stack: StackConfig) -> dict[str, Any]:
    """The args the provider stages from (provider.packaging.uploads): ``package`` (the package
    path), ``extra_packages`` (files) and ``requirements`` (their lines), each with its URI."""
    from provider.packaging import UploadKind, uploads

    args: dict[str, Any] = {}
    for upload in uploads(spec.job, ROOT / spec.path.parent, f"gs://{stack.bucket}"):
        if upload.kind is UploadKind.REQUIREMENTS:
            args["requirements"] = {"lines": list(upload.requirements), "uri": upload.uri}
        elif upload.kind is UploadKind.EXTRA:
            assert upload.source is not None
            args.setdefault("extra_packages", []).append({"source": _relative(upload.source), "uri": upload.uri})
        else:
            assert upload.source is not None
            args["package"] = {"source": _relative(upload.source), "uri": upload.uri}
    return args


def _relative(path: Path) -> str:
    """A path as the state stores it: relative to the project, so state is the same in any checkout."""
    import os

    return os.path.relpath(path, ROOT)


def declare_persistent_resources(stack: StackConfig, infra: TeamInfra) -> dict[str, pulumi.Resource]:
    """One PersistentResource per entry of ``trainjobs:persistentResources``, by ID (at the stack's
    ``apiEndpoint`` when it has one: the trainjobs emulator serves them too). A local stack gets a
    warning instead: the local backend does not emulate them (its jobs run as usual)."""
    declared = stack.persistent_resources or ()
    if not declared:
        return {}
    ids = ", ".join(r.id for r in declared)
    if not capabilities(stack.backend).persistent_resources:
        pulumi.log.warn(f"stack {stack.name}: trainjobs:persistentResources ({ids}) are not emulated locally: "
                        "nothing is created, and jobs that name one in persistentResourceId run on this machine "
                        "as usual")
        return {}
    from provider.resources.persistent_resource import PersistentResource, PersistentResourceArgs

    return {
        r.id: PersistentResource(f"{stack.team}-{r.id}", PersistentResourceArgs(
            persistent_resource_id=r.id, project=stack.project_id, region=stack.region, body=r.body(),
            api_endpoint=stack.api_endpoint or None,
        ), pulumi.ResourceOptions(depends_on=[infra], delete_before_replace=True))
        for r in declared
    }


def _job_options(stack: StackConfig, infra: TeamInfra, secret: list[str],
                 needs: list[pulumi.Resource] | None = None) -> pulumi.ResourceOptions:
    timeouts = dict(stack.custom_timeouts)
    custom = pulumi.CustomTimeouts(**{k: f"{v:g}s" for k, v in timeouts.items()}) if timeouts else None
    return pulumi.ResourceOptions(depends_on=[infra, *(needs or [])], additional_secret_outputs=secret,
                                  delete_before_replace=stack.replace != "createFirst", custom_timeouts=custom)


def _warn_on_notice(job: TrainingJob) -> None:
    """A create whose wait ran out records the job and says so in ``waitNotice``: warn with it."""
    def warn(notice: str | None) -> None:
        if notice:
            pulumi.log.warn(notice, resource=job)

    job.waitNotice.apply(warn)


class StackInputs(Record):
    """What every job of a stack carries alike, computed once per stack (not once per job): the
    stack's settings as args, its secret environment (one Output shared by its jobs), and the
    outputs the engine keeps secret."""

    stack: StackConfig
    args: JobArgs
    secret_env: pulumi.Output[dict[str, str]] | None
    secret_outputs: list[str]


_STACK_INPUTS: dict[str, StackInputs] = {}
_DIGESTS: dict[Path, str] = {}  # one build context's digest per run, however many jobs share it


def stack_inputs(stack: StackConfig) -> StackInputs:
    cached = _STACK_INPUTS.get(stack.name)
    if cached is not None and cached.stack is stack:
        return cached
    config = all_config()
    secret_env = _secret_env()
    # An empty value is left out (the provider reads a missing one as empty).
    args = JobArgs(
        stack=stack.name, team=stack.team, project=stack.project_id, backend=stack.backend,
        quotas=_plain_config(config.get(NS + "quotas")),
        policy=_plain_config(config.get(NS + "policy")) or None,
        stack_labels=stack.labels_dict or None,
        persistent_resources=None if stack.persistent_resources is None else [
            r.id for r in stack.persistent_resources],
        wait={"until": stack.wait.until.value, "timeout": stack.wait.timeout_seconds},
        retention=stack.retention.value, replace=stack.replace,
        timeouts=dict(stack.custom_timeouts) or None,
        api_endpoint=stack.api_endpoint or None, local_home=stack.local_home or None, bucket=stack.bucket,
        # the names only (not secret): the local backend stores "***" for them
        secret_env_names=_secret_env_names() if secret_env is not None else None,
    )
    inputs = StackInputs(stack=stack, args=args, secret_env=secret_env,
                         secret_outputs=["request", "spec"] if secret_env is not None else [])
    _STACK_INPUTS[stack.name] = inputs
    return inputs


def _image(spec: LoadedSpec, infra: TeamInfra) -> pulumi.Output[str] | None:
    """The image built from the job's source (one digest per build context and run), or None."""
    job = spec.job
    app = job.application
    if not isinstance(app, Container) or app.build is None:
        return None
    context = (ROOT / spec.path.parent / app.build.context).resolve()
    dockerfile = _relative(context / app.build.dockerfile) if app.build.dockerfile else None
    digest = _DIGESTS.get(context)
    if digest is None:
        digest = _DIGESTS[context] = directory_digest(context)
    ref: pulumi.Output[str] = infra.image(job.name, _relative(context), dockerfile, digest).ref
    return ref


def _computed(spec: LoadedSpec, stack: StackConfig, image: pulumi.Output[str] | None, account: pulumi.Output[str],
              secret_env: pulumi.Output[dict[str, str]]) -> pulumi.Output[str]:
    """The job's request with the stack's secret environment, once the image and the account are
    known: carried by the program only for a stack with a secretEnv (Check builds it otherwise,
    provider.resources.job_request). The engine keeps an input secret only when the program sent
    it secret: the dynamic host accepts no secrets, and an input that Check adds is stored as
    Check returns it, so a request holding secret values must come from here, as a secret."""
    return pulumi.Output.all(image, account, secret_env).apply(lambda v: _request(spec, stack, v[0], v[1], v[2]))


def declare_job(spec: LoadedSpec, stack: StackConfig, infra: TeamInfra,
                persistent: Mapping[str, pulumi.Resource] | None = None) -> TrainingJob:
    """The spec's TrainingJob, after the team's infrastructure and the PersistentResource it names."""
    job = spec.job
    shared = stack_inputs(stack)
    image = _image(spec, infra)
    secret_env = shared.secret_env
    # The request is built by the provider's Check from the spec, the image and the account (an
    # output of TeamInfra): not carried (issue 31: the SDK's work per node of ~70 per job). Where
    # the job goes and its kind are known now, so a preview's unknown image never makes them
    # unknown (which would read as "may move: replace").
    account = infra.service_account
    computed = None if secret_env is None else _computed(spec, stack, image, account, secret_env)
    kind, parent = request_where(job, stack.project_id)
    args = replace(
        shared.args, job_name=job.name, region=job.region, spec=spec.data, spec_file=str(spec.path),
        image=None if computed else image, service_account=None if computed else account,
        request=computed, request_kind=kind, parent=parent, desired_state=job.desired_state,
        adopt=dict(stack.adopt).get(job.name) or None, max_wait_seconds=job.scheduling.max_wait_seconds,
        **_packages(spec, stack))
    target = (persistent or {}).get(job.vertex.persistent_resource_id or "")
    resource = TrainingJob(job.name, args, _job_options(stack, infra, shared.secret_outputs,
                                                         [target] if target else None))
    _warn_on_notice(resource)
    return resource


# The collector's first threshold while the jobs are declared and registered (CPython's default: 700).
JOBS_GC_THRESHOLD = 7000


def declare_jobs(specs: list[LoadedSpec], stack: StackConfig, infra: TeamInfra,
                 persistent: Mapping[str, pulumi.Resource] | None = None) -> list[tuple[LoadedSpec, TrainingJob]]:
    """Every spec's TrainingJob (``declare_job``), each beside its spec.

    What exists when this starts lives until the program ends: the imports (the SDK's and
    pulumi_gcp's above all: some 100,000 objects the collector tracks), the catalog and schema,
    the specs, the team's infrastructure. ``gc.freeze()`` moves it out of the collector's sight,
    so the full collections that N jobs set off walk what the jobs made, not that again each time.
    The jobs' registrations then make many small objects that also live to the end (each input's
    Output and futures); at the default threshold the collector ran some 800 times over them at
    300 jobs, six of them full collections that together freed a few hundred objects. Both cost
    about a sixth of the program's CPU (bench/RESULTS.md, issue 31, third round).
    """
    gc.freeze()
    gc.set_threshold(JOBS_GC_THRESHOLD, *gc.get_threshold()[1:])
    declared = []
    for spec in specs:  # a loop, not a comprehension: the SDK walks every frame of the stack per resource
        declared.append((spec, declare_job(spec, stack, infra, persistent)))
    return declared


def _plain_config(value: Any) -> dict[str, Any]:
    """A structured config value as the engine hands it to the provider (a copy, JSON values only)."""
    plain: dict[str, Any] = json.loads(json.dumps(value or {}))
    return plain


def export(stack: StackConfig, infra: TeamInfra, jobs: list[tuple[LoadedSpec, TrainingJob]]) -> None:
    pulumi.export("team", stack.team)
    pulumi.export("backend", stack.backend)
    pulumi.export("bucket", infra.bucket)
    pulumi.export("registry", infra.registry)
    pulumi.export("serviceAccount", infra.service_account)
    pulumi.export("jobs", {
        spec.job.name: {
            "id": res.jobId,
            "state": res.state,
            "consoleUrl": res.consoleUrl,
            "jobDir": res.outputDir,
        }
        for spec, res in jobs
    })
