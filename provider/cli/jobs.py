"""``jobs list``, ``status`` and ``cancel`` (and the parsers of ``run``, in provider.cli.run, and of ``logs``, in
provider.cli.logs)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from provider.cli.guard import guard as _guard
from provider.cli.job_target import Target, add_stack_option, resolve, target
from provider.core.errors import UserError
from provider.core.exit_code import ExitCode
from provider.core.job_kinds import TUNING_JOB

if TYPE_CHECKING:
    from provider.backends.base import JobStatus
    from provider.backends.settings import LocalOpened


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    r = sub.add_parser("run", help="run a spec where its stack runs (--stack; this machine without one) and follow it")
    r.add_argument("spec", metavar="SPEC", help="a spec file")
    r.add_argument("--detach", action="store_true", help="submit and return at once")
    r.add_argument("--cpu", action="store_true",
                   help="run a GPU spec on the CPU (smoke test): no GPU is reserved and replicas see none")
    r.add_argument("--stack", help="run it where this stack runs (its backend: this machine, Vertex AI or the emulator), "
                   "as the stack's job: its labels, quotas, policy and the identity `pulumi up` adopts")
    r.add_argument("--fresh", action="store_true",
                   help="give this run an output directory of its own (OUTPUT/runs/TIMESTAMP/) instead of the spec's, "
                   "so it does not resume the previous run's checkpoints")
    r.add_argument("--dry-run", action="store_true",
                   help="say where it would run and the verdict, print the request and (on this machine) the local "
                   "plan (replicas, ports, GPUs, env); start nothing")
    r.set_defaults(_target="provider.cli.run:run")

    r.add_argument("--format", choices=["text", "json"], default="text",
                   help="json: one JSON line per state change and log line, then the final status")

    j = sub.add_parser("jobs", help="list jobs: local ones, or a stack's (--stack) on its backend")
    jsub = j.add_subparsers(dest="jobs_command", metavar="COMMAND")
    ls = jsub.add_parser("list", help="list jobs, newest first: state, hardware, start and duration")
    shown = ls.add_mutually_exclusive_group()
    shown.add_argument("--limit", type=int, default=50, metavar="N",
                       help="the newest N jobs (default: 50; only they are read, however long the history)")
    shown.add_argument("--all", action="store_true", help="every job, newest first (reads the whole history)")
    ls.add_argument("--format", choices=["text", "json"], default="text", help="a table (default) or JSON")
    add_stack_option(ls)
    ls.set_defaults(_target="provider.cli.jobs:list_jobs")
    pr = jsub.add_parser("prune", help="remove finished local jobs' records and logs, and environments no job used "
                         "lately; say how much it freed (outputs in storage are kept)")
    pr.add_argument("--older-than", default="7d", metavar="AGE",
                    help="what ended (or was last used) longer ago than this goes: 30m, 12h, 7d, 2w (default 7d)")
    pr.add_argument("--keep", type=int, default=20, metavar="N", help="always keep the newest N finished jobs (20)")
    pr.add_argument("--dry-run", action="store_true", help="say what would go; remove nothing")
    pr.set_defaults(_target="provider.cli.jobs:prune")
    j.set_defaults(_target="provider.cli.jobs:list_jobs", limit=50, all=False, format="text", stack=None, stacks_dir="stacks")

    s = sub.add_parser("status", help="the state, replicas and trials of a job")
    s.add_argument("job", metavar="JOB", help="a job id (or a unique prefix), a resource name, or a job name for "
                   "its newest run")
    s.add_argument("--format", choices=["text", "json"], default="text", help="text (default) or one JSON object")
    add_stack_option(s)
    s.set_defaults(_target="provider.cli.jobs:status")

    from provider.cli.logs import register as register_logs

    register_logs(sub)  # `trainjobs logs`: provider/cli/logs.py

    c = sub.add_parser("cancel", help="cancel a job (a local job's replicas stop within 10 s)")
    c.add_argument("job", metavar="JOB", help="a job id (or a unique prefix), a resource name, or a job name (its newest run)")
    c.add_argument("--format", choices=["text", "json"], default="text", help="text (default) or one JSON object")
    add_stack_option(c)
    c.set_defaults(_target="provider.cli.jobs:cancel")


def _backend() -> LocalOpened:
    from provider.backends.settings import open_local

    return open_local()


@_guard
def list_jobs(args: argparse.Namespace) -> int:
    from provider.backends import summary
    from provider.cli.live import job_json

    limit = _limit(args)
    t = target(args)
    jobs, broken = t.backend.scan(t.labels, limit=limit)  # the unreadable records apart
    jobs = jobs[:limit]
    if args.format == "json":
        print(json.dumps([job_json(j) for j in jobs] + [
            {"id": b.id, "state": "UNREADABLE", "path": str(b.path), "reason": b.reason} for b in broken], indent=2))
        return 0
    if not jobs and not broken:
        print(f"no jobs of {t.where} yet: trainjobs up --stack {t.stack.name}" if t.stack
              else "no local jobs yet: trainjobs run SPEC")
        return 0
    rows = [("ID", "NAME", "STATE", "HARDWARE", "STARTED", "DURATION")]
    for j in jobs:
        started = (j.start_time or j.create_time or "")[:19].replace("T", " ")
        name = j.display_name + (" (tuning)" if j.kind == TUNING_JOB.name else "")
        rows.append((j.id, name, j.state.value, summary.hardware(j), started, _duration(j)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    if broken:
        print(f"\n{len(broken)} job(s) could not be read (nothing was changed; remove a job's directory to forget it):")
        for b in broken:
            print(f"  {b.id}  UNREADABLE  {b.path}: {b.reason}")
    if limit is not None and len(jobs) == limit:
        print(f"\n(the newest {limit} shown: --limit N for more, --all for every job)")
    return 0


def _limit(args: argparse.Namespace) -> int | None:
    """How many jobs ``jobs list`` reads and shows: --limit N (the newest N), None for --all."""
    if args.limit < 1:
        raise UserError(f"--limit {args.limit}: a number of jobs, 1 or more (or --all for every job)", exit_code=2)
    return None if args.all else int(args.limit)


def _duration(job: JobStatus) -> str:
    from provider.cli.live import elapsed

    return elapsed(job)


@_guard
def prune(args: argparse.Namespace) -> int:
    import os

    from provider.backends.local import prune as pruning

    try:
        older = pruning.parse_age(args.older_than)
    except ValueError as exc:
        raise UserError(f"--older-than: {exc}", exit_code=2) from exc
    if args.keep < 0:
        raise UserError(f"--keep {args.keep}: a number of jobs, 0 or more", exit_code=2)
    backend = _backend().backend
    cache = Path(os.environ.get("TRAINJOBS_ENV_CACHE") or backend.home / "envs")
    done = pruning.prune(backend, cache, older, args.keep, args.dry_run)
    verb = "would free" if args.dry_run else "freed"
    print(f"{'would remove' if args.dry_run else 'removed'} {len(done.jobs)} finished job(s) and "
          f"{len(done.environments)} environment(s); {verb} {done.freed / 1e6:.1f} MB "
          f"(kept {done.kept} finished job(s); outputs in storage are kept)")
    return 0


@_guard
def status(args: argparse.Namespace) -> int:
    from provider.cli.live import describe, job_json

    t = target(args)
    job = t.backend.get(resolve(t, args.job))
    if args.format == "json":
        print(json.dumps(job_json(job), indent=2))
    else:
        print(describe(job, local_outputs=_local_outputs(t, job)))
    return 0


def _local_outputs(t: Target, job: JobStatus) -> str | None:
    """Where a local job's gs:// output directory lies on this machine."""
    if not job.output_dir or not job.output_dir.startswith("gs://"):
        return None
    path = t.backend.local_path(job.output_dir)
    return str(path) if path is not None else None


@_guard
def cancel(args: argparse.Namespace) -> int:
    from provider.cli.live import job_json

    t = target(args)
    job_id = resolve(t, args.job)
    job = t.backend.cancel(job_id, wait=15)
    if args.format == "json":
        print(json.dumps(job_json(job), indent=2))
    else:
        print(f"{job.display_name} ({job.id}): {job.state.value}" + (f" - {job.error}" if job.error else ""))
    return ExitCode.SUCCESS if job.state.terminal else ExitCode.UNAVAILABLE  # it did not stop within 15 s
