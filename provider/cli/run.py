"""``trainjobs run``: a spec runs where its stack runs, after the check ``trainjobs validate`` makes.

* **The verdict.** The spec is checked in its workspace (provider.workspace.check_one): the same
  problems, in the same order, with the same exit code as ``trainjobs validate SPEC`` gives from
  any folder. With an error nothing is staged or started, and every problem is shown; a dry run
  shows the whole verdict, warnings and notes too.
* **Where it runs.** ``--stack S`` runs it where S runs: the local backend for a local stack; Vertex
  AI in S's project and region for a vertex stack, through S's ``trainjobs:apiEndpoint`` when it
  has one (the emulator). The backend is built by provider.backends.settings.open_backend, as for
  every job command and the provider. Without ``--stack`` the spec runs on this machine (the local
  backend), and ``run`` says so when a stack that holds the spec runs it elsewhere: never a silent
  change of place.
* **In a stack** the request is the one ``pulumi up`` builds (provider.submission.stack_request):
  the stack's labels, its service account, and the identity label, so the backend adopts a job
  that already carries it (one that has not failed or been cancelled) instead of starting a
  second one, and a later ``pulumi up`` adopts the job ``run`` started. ``run`` says which it did.
* ``--dry-run`` says where it would run and shows the verdict, then the request (and, on this
  machine, the local plan); nothing is staged or started.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from provider.cli.guard import guard
from provider.core.backend_registry import THIS_MACHINE, backend_type, capabilities
from provider.core.backend_types import BackendKind
from provider.core.errors import UserError
from provider.core.exit_code import ExitCode, of_job_state
from provider.core.record import Record

if TYPE_CHECKING:
    from collections.abc import Callable

    from provider.backends.base import Backend, JobStatus
    from provider.core.problem import Problem
    from provider.core.vertex_request import VertexRequest
    from provider.packaging.stage import Stager
    from provider.spec.model import TrainingJob
    from provider.stack.config import StackConfig
    from provider.workspace import Verdict, Workspace


class Place(Record):
    """Where a run goes: the stack (None: this machine, in no stack) and, in words, its backend."""

    stack: StackConfig | None
    backend_kind: BackendKind  # a registered kind: callers ask its capabilities
    where: str  # "this machine (the local backend)", "Vertex AI, project P, region R, at ENDPOINT"


def place_of(stack: StackConfig | None) -> Place:
    """Where ``stack``'s jobs run (this machine without a stack)."""
    from provider.backends.settings import settings_of_stack

    if stack is None:
        return Place(stack, THIS_MACHINE, "this machine (the local backend)")
    return Place(stack, stack.backend, settings_of_stack(stack).where())


def _stack(ws: Workspace, name: str | None) -> StackConfig | None:
    if not name:
        return None
    stack = ws.stack(name)
    if stack is None:
        known = ", ".join(sorted(s.name for s in ws.stacks)) or "none"
        raise UserError(f"--stack {name!r}: no valid stacks/Pulumi.{name}.yaml in the spec's repository "
                        f"({ws.where()}); stacks there: {known}", exit_code=2)
    return stack


def _in_named_stack(spec: Path, shown: str, ws: Workspace, stack: StackConfig) -> list[Problem]:
    """The spec checked in ``stack`` when that stack's trainjobs:specs does not hold it (a run there is
    still the stack's: its quotas and policy apply), and a warning that ``pulumi up`` will not see it."""
    from provider.core.problem import Problem, Severity
    from provider.stack.check import check_in_stack

    if stack in ws.stacks_of(spec):
        return []
    found = [p for p in check_in_stack(spec, stack, shown).problems if p.is_error]
    found.append(Problem(file=shown, severity=Severity.WARNING, rule="stack.membership",
                         message=f"stack {stack.name} does not hold this spec (its trainjobs:specs do not match it): "
                                 f"it runs there as the stack's, but `pulumi up --stack {stack.name}` will not manage it",
                         allowed=f"a spec that {stack.source} lists in trainjobs:specs"))
    return found


def _verdict(args: argparse.Namespace) -> tuple[Verdict, Workspace, StackConfig | None, list[Problem]]:
    """The spec's verdict, its workspace, the stack it runs in, and every problem to show."""
    from provider.document.files import read_file
    from provider.workspace import check_one

    path = Path(args.spec)
    if not path.exists() and not path.is_symlink():  # as `validate` says it (README, "Exit codes")
        raise UserError(f"{args.spec}: no such file or directory", exit_code=ExitCode.NOT_FOUND)
    _, unreadable = read_file(path, args.spec)
    if unreadable is not None:
        raise UserError(f"{unreadable.where}: {unreadable.message}")
    verdict = check_one(path)
    ws = verdict.workspaces[0]
    stack = _stack(ws, args.stack)
    shown = ws.shown(path.resolve()) or args.spec
    problems = list(verdict.problems)
    if stack is not None:
        from provider.validation.validator import in_order

        seen = {(p.file, p.line, p.column, p.message) for p in problems}
        problems = in_order(problems + [p for p in _in_named_stack(path, shown, ws, stack)
                                        if (p.file, p.line, p.column, p.message) not in seen])
    return verdict, ws, stack, problems


def _show(problems: list[Problem], specs: int, failed: bool, stacks: tuple[int, int]) -> None:
    """The verdict on stderr: every problem as ``validate`` words it; with an error, its summary too."""
    from provider.validation.report import TextReporter, use_colour
    from provider.workspace import is_stack_file

    text = TextReporter(use_colour(sys.stderr))
    if failed:
        invalid = len({p.file for p in problems if p.is_error and not is_stack_file(p.file)})
        text.report(problems, specs, min(invalid, specs), sys.stderr, stacks=stacks)
        print("nothing was started", file=sys.stderr)
        return
    for p in problems:
        print(text.format(p), file=sys.stderr)


def _elsewhere(ws: Workspace, spec: Path, place: Place) -> str | None:
    """What a run on this machine of a spec that stacks run elsewhere must say."""
    if place.stack is not None:
        return None
    others = [s for s in ws.stacks_of(spec) if capabilities(s.backend).remote]
    if not others:
        return None
    names = ", ".join(f"{s.name} ({place_of(s).where})" for s in others)
    return (f"note: {spec} is held by stack{'s' if len(others) > 1 else ''} {names}; without --stack it runs on "
            f"this machine. `trainjobs run {spec} --stack {others[0].name}` runs it there.")


@guard
def run(args: argparse.Namespace) -> int:
    verdict, ws, stack, problems = _verdict(args)
    job = _job(verdict)
    failed = any(p.is_error for p in problems)
    place = place_of(stack)
    spec = Path(args.spec)
    if args.dry_run and failed:
        print(f"refused; it would run on {place.where}" + (f" (stack {stack.name})" if stack else ""), file=sys.stderr)
    if failed or args.dry_run:  # a run that goes ahead says only what it does (the dry run shows the whole verdict)
        _show(problems, verdict.specs, failed, (verdict.stack_files, len(verdict.failed_stack_files)))
    if failed or job is None:
        return ExitCode.INVALID
    note = _elsewhere(ws, spec, place)
    if note:
        print(note, file=sys.stderr)
    if args.cpu and capabilities(place.backend_kind).remote:
        raise UserError(f"--cpu runs a GPU spec on this machine's CPU; stack {place.stack.name if place.stack else ''} "
                        f"runs on {place.where}. Leave out --cpu, or run it here without --stack", exit_code=2)
    return _launch(args, job, ws, place, problems)


def _job(verdict: Verdict) -> TrainingJob | None:
    return next((r.job for r in verdict.results if r.job is not None), None)


def _launch(args: argparse.Namespace, job: TrainingJob, ws: Workspace, place: Place, problems: list[Problem]) -> int:
    from provider.backends.settings import open_backend, open_local, settings_of_stack
    from provider.submission import launch

    if place.stack is not None:
        _secret_env_warning(place.stack)
        backend, stager = open_backend(settings_of_stack(place.stack))
    else:
        backend, stager = open_local()
    job = _fresh_or_warn(job, backend, args.fresh)
    spec_dir = Path(args.spec).parent
    check = None if args.dry_run else (lambda r: backend.check(launch.submission(job, r, cpu_only=args.cpu)))
    request = _request(job, spec_dir, ws, place, None if args.dry_run else stager, Path(args.spec), check)
    if args.dry_run:
        _dry_run(args, request, place, problems)
        return 0
    adopted = _adoptable(backend, request)
    status = backend.submit(launch.submission(job, request, cpu_only=args.cpu))
    verb = "adopted" if adopted is not None and adopted.id == status.id else "submitted"
    print(_said(verb, job.name, status, place), file=sys.stderr)
    if args.detach:
        print(json.dumps({"id": status.id, "name": job.name, **({"adopted": True} if verb == "adopted" else {})})
              if args.format == "json" else status.id)
        return 0
    final = _follow(backend, status.id, args.format == "json", place)
    return of_job_state(final.state.value)


def _secret_env_warning(stack: StackConfig) -> None:
    """A stack's secretEnv holds Pulumi secrets, which only ``pulumi up`` can read: say they are not passed."""
    if "trainjobs:secretEnv" in stack.at:
        print(f"warning: stack {stack.name}'s trainjobs:secretEnv is not passed to this run: its values are Pulumi "
              "secrets, which only `pulumi up` decrypts; the job runs without them, and `pulumi up` starts its own "
              "job with them (a different request)", file=sys.stderr)


def _said(verb: str, name: str, status: JobStatus, place: Place) -> str:
    where = f"stack {place.stack.name}'s" if place.stack else "a"
    kind = backend_type(place.backend_kind).job_word
    if verb == "adopted":
        return (f"adopted {where} {kind} job {status.id} ({status.state.value}): it carries the identity label of this "
                f"spec as the stack runs it, so nothing new was started (as `pulumi up` adopts it). --fresh starts a "
                "new run")
    if place.stack is None:
        return f"submitted {name} as local job {status.id}"
    return f"submitted {name} as {where} {kind} job {status.id} on {place.where}"


def _request(job: TrainingJob, spec_dir: Path, ws: Workspace, place: Place, stager: Stager | None,
             spec: Path, check: Callable[[VertexRequest], None] | None) -> VertexRequest:
    """The stack's exact request (as ``pulumi up`` builds it), or, in no stack, the spec's own; the
    staging bucket is the one ``validate`` counted on: the stack's. ``check`` (the backend's
    refusals) comes before anything is staged."""
    from provider.submission import launch
    from provider.submission.stack_request import stack_request, team_account

    try:
        if place.stack is not None:
            return stack_request(job, spec_dir, place.stack, stager=stager, account=team_account(place.stack),
                                 check=check)
        held = ws.stacks_of(spec)
        return launch.prepare(job, spec_dir, project="local", stager=stager,
                              default_bucket=f"gs://{held[0].bucket}" if held else None, labels=launch.labels_for(job),
                              check=check)
    except ValueError as exc:
        raise UserError(str(exc)) from exc


def _adoptable(backend: Backend, request: VertexRequest) -> JobStatus | None:
    """The job a submission of ``request`` adopts (the backends' rule), if there is one."""
    from provider.core.labels import IDENTITY_LABEL

    identity = (request.body.get("labels") or {}).get(IDENTITY_LABEL)
    if not identity:
        return None
    found = backend.find({IDENTITY_LABEL: identity})
    return found if found is not None and found.state.adoptable else None


def _dry_run(args: argparse.Namespace, request: VertexRequest, place: Place, problems: list[Problem]) -> None:
    from provider.cli import dry_run

    replicas = None if capabilities(place.backend_kind).remote else dry_run.plan(request, args.cpu)
    dry_run.render(request, replicas, sys.stdout, as_json=args.format == "json",
                   where=dry_run.Where(place.backend_kind, place.where, place.stack.name if place.stack else None),
                   problems=problems)


def _follow(backend: Backend, job_id: str, as_json: bool, place: Place) -> JobStatus:
    """Follow the job to its end, where it runs (provider.cli.live: its state, replicas and timed log lines)."""
    from provider.cli.live import follow

    return follow(backend, job_id, sys.stdout, as_json=as_json)


def _fresh_or_warn(job: TrainingJob, backend: Backend, fresh: bool) -> TrainingJob:
    """With --fresh, a new output directory under the spec's; otherwise, on this machine, a warning
    when the spec's already holds files of an earlier run (the trainer would resume its checkpoints)."""
    import datetime as dt

    from provider.core.record import replace

    if job.output is None:
        return job
    if fresh:
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S-%f")
        uri = f"{job.output.uri.rstrip('/')}/runs/{stamp}"
        print(f"--fresh: this run writes to {uri}", file=sys.stderr)
        return replace(job, output=replace(job.output, uri=uri))
    local = backend.local_path(job.output.uri)  # outputs on this machine (None: the backend keeps them elsewhere)
    if local is not None and local.is_dir() and any(p.is_file() for p in local.rglob("*")):
        earlier = next((j for j in backend.list() if (j.output_dir or "").rstrip("/") == job.output.uri.rstrip("/")),
                       None)
        who = f"local job {earlier.id} ({earlier.display_name}, {earlier.state.value})" if earlier else "an earlier run"
        print(f"warning: {job.output.uri} already holds the files of {who}; the trainer may resume its checkpoints "
              "instead of training. Run with --fresh to give this run its own directory.", file=sys.stderr)
    return job
