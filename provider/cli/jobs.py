"""``trainjobs run``, ``jobs list``, ``status``, ``logs`` and ``cancel``: jobs on the local backend."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from provider.errors import UserError


def register(sub: argparse._SubParsersAction) -> None:
    r = sub.add_parser("run", help="run a spec on this machine (the local backend) and follow it")
    r.add_argument("spec", metavar="SPEC", help="a spec file")
    r.add_argument("--detach", action="store_true", help="submit and return at once")
    r.add_argument("--cpu", action="store_true",
                   help="run a GPU spec on the CPU (smoke test): no GPU is reserved and replicas see none")
    r.add_argument("--stack", help="label and check the job as part of this stack (its labels and quotas)")
    r.set_defaults(_target="provider.cli.jobs:run")

    j = sub.add_parser("jobs", help="local jobs")
    jsub = j.add_subparsers(dest="jobs_command", metavar="COMMAND")
    ls = jsub.add_parser("list", help="list local jobs, newest first")
    ls.add_argument("--limit", type=int, default=50)
    ls.add_argument("--format", choices=["text", "json"], default="text")
    ls.set_defaults(_target="provider.cli.jobs:list_jobs")
    j.set_defaults(_target="provider.cli.jobs:list_jobs", limit=50, format="text")

    s = sub.add_parser("status", help="the state, replicas and trials of a local job")
    s.add_argument("job", metavar="JOB", help="a job id (or a unique prefix), or a job name for its newest run")
    s.add_argument("--format", choices=["text", "json"], default="text")
    s.set_defaults(_target="provider.cli.jobs:status")

    lg = sub.add_parser("logs", help="the logs of a local job, prefixed by replica")
    lg.add_argument("job", metavar="JOB")
    lg.add_argument("--follow", "-f", action="store_true", help="keep printing until the job ends")
    lg.add_argument("--replica", metavar="R", help="only this replica (workerpool1-0, or trial-2/workerpool0-0)")
    lg.set_defaults(_target="provider.cli.jobs:logs")

    c = sub.add_parser("cancel", help="cancel a local job (its replicas stop within 10 s)")
    c.add_argument("job", metavar="JOB")
    c.set_defaults(_target="provider.cli.jobs:cancel")


def _backend() -> Any:
    from provider.backends.local.backend import LocalBackend

    return LocalBackend()


def _guard(fn: Any) -> Any:
    """Backend errors are user errors: one line, no traceback."""
    from provider.backends.base import BackendError

    def wrapped(args: argparse.Namespace) -> int:
        try:
            result: int = fn(args)
            return result
        except BackendError as exc:
            raise UserError(exc.message) from exc

    return wrapped


@_guard
def run(args: argparse.Namespace) -> int:
    from provider import launch
    from provider.cli.live import follow
    from provider.packaging.stage import LocalStager
    from provider.validation.report import reporter
    from provider.validation.rules import Context, Target
    from provider.validation.validator import read_file, validate_bytes

    path = Path(args.spec)
    raw, problem = read_file(path, args.spec)
    if problem is not None:
        raise UserError(f"{problem.where}: {problem.message}")
    assert raw is not None
    ctx = Context(target=Target.LOCAL, spec_dir=path.parent)
    stack = None
    if args.stack:
        from provider.stack.membership import StackIndex

        index = StackIndex.load(Path("stacks"))
        stack = index.stack(args.stack)
        if stack is None:
            raise UserError(f"no stack {args.stack!r} in stacks/", exit_code=2)
        ctx = Context(target=Target.LOCAL, spec_dir=path.parent, staging_bucket=f"gs://{stack.bucket}",
                      bucket_regions=tuple(stack.bucket_regions.items()))
    result = validate_bytes(raw, args.spec, ctx)
    problems = list(result.problems)
    if stack is not None and result.job is not None:
        from provider.policy import check_job

        problems += [_violation(v, args.spec) for v in check_job(result.job, stack)]
    if any(p.is_error for p in problems) or result.job is None:
        reporter("text", sys.stderr).report(problems, 1, 1, sys.stderr)
        print("nothing was started", file=sys.stderr)
        return 1
    job = result.job
    backend = _backend()
    labels = launch.labels_for(job, stack=stack.name if stack else None,
                               extra={**(stack.labels_dict if stack else {})})
    try:
        request = launch.prepare(job, path.parent, project=stack.project_id if stack else "local",
                                 stager=LocalStager(backend.storage),
                                 default_bucket=f"gs://{stack.bucket}" if stack else None, labels=labels)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    status = backend.submit(launch.submission(job, request, cpu_only=args.cpu))
    print(f"submitted {job.name} as local job {status.id}", file=sys.stderr)
    if args.detach:
        print(status.id)
        return 0
    final = follow(backend, status.id, sys.stdout)
    return 0 if final.state.value == "SUCCEEDED" else 1


def _violation(v: Any, file: str) -> Any:
    from provider.validation.problem import Problem

    return Problem(file=file, message=v.message, allowed=f"{v.rule}: {v.limit}", rule=v.rule)


@_guard
def list_jobs(args: argparse.Namespace) -> int:
    jobs, broken = _backend().scan()
    jobs = jobs[: args.limit]
    if args.format == "json":
        print(json.dumps([_as_json(j) for j in jobs] + [
            {"id": b.id, "state": "UNREADABLE", "path": str(b.path), "reason": b.reason} for b in broken], indent=2))
        return 0
    if not jobs and not broken:
        print("no local jobs yet: trainjobs run SPEC")
        return 0
    rows = [("ID", "NAME", "STATE", "CREATED", "KIND")]
    for j in jobs:
        kind = "tuning" if j.kind == "HyperparameterTuningJob" else "custom"
        rows.append((j.id, j.display_name, j.state.value, (j.create_time or "")[:19].replace("T", " "), kind))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    if broken:
        print(f"\n{len(broken)} job(s) could not be read (nothing was changed; remove a job's directory to forget it):")
        for b in broken:
            print(f"  {b.id}  UNREADABLE  {b.path}: {b.reason}")
    return 0


@_guard
def status(args: argparse.Namespace) -> int:
    from provider.cli.live import describe

    backend = _backend()
    job = backend.get(backend.resolve(args.job))
    if args.format == "json":
        print(json.dumps(_as_json(job), indent=2))
    else:
        print(describe(job))
    return 0


@_guard
def logs(args: argparse.Namespace) -> int:
    backend = _backend()
    job_id = backend.resolve(args.job)
    for line in backend.logs(job_id, replica=args.replica, follow=args.follow):
        print(line, flush=args.follow)
    return 0


@_guard
def cancel(args: argparse.Namespace) -> int:
    backend = _backend()
    job_id = backend.resolve(args.job)
    job = backend.cancel(job_id, wait=15)
    print(f"{job.display_name} ({job.id}): {job.state.value}" + (f" - {job.error}" if job.error else ""))
    return 0 if job.state.terminal else 1


def _as_json(job: Any) -> dict[str, Any]:
    from dataclasses import asdict

    data = asdict(job)
    data["state"] = job.state.value
    data.pop("extra", None)
    data["labels"] = dict(job.labels)
    data["trials"] = [{**asdict(t), "parameters": dict(t.parameters)} for t in job.trials]
    return data
