"""``trainjobs logs``: a job's lines, in the order they were written, each with its time.

* Text: ``2026-11-25T22:48:05.123456Z [workerpool0-0] message``: the RFC 3339 time in UTC first
  (as ``kubectl logs --timestamps`` and ``docker logs -t`` print it; ``--no-timestamps`` leaves it
  out), then the replica, or ``setup`` for the environment build (pip). JSON (``--format json``):
  one object a line, ``{"timestamp", "source", "replica", "message", "severity"}``.
* ``--source trainer`` shows the trainer's lines alone (``setup``: the build's alone).
* ``--tail N``: the last N lines written so far (then, with ``--follow``, every new one).
  ``--since``: lines written since a time: a duration back from now (``90s``, ``10m``, ``1h30m``,
  ``2d``, as ``kubectl logs --since``) or an RFC 3339 time (``2026-11-25T22:00:00Z``, as
  ``--since-time``).
* An unknown ``--replica`` is a usage error that lists the job's replicas.
* ``--follow`` ends with the job's final state and exits as ``trainjobs run`` does: 0 when it
  succeeded, 6 when it failed, 7 when it was cancelled (provider.core.exit_code).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
from typing import TYPE_CHECKING

from provider.cli.guard import guard
from provider.cli.job_target import add_stack_option, resolve, target
from provider.core.errors import UserError
from provider.core.exit_code import ExitCode, of_job_state

if TYPE_CHECKING:
    from provider.backends.log_line import LogLine, LogQuery

_DURATION = re.compile(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?")
_SECONDS = (86400, 3600, 60, 1)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lg = sub.add_parser("logs", help="a job's log lines in time order, each with its time and replica (Cloud "
                        "Logging for Vertex AI jobs)")
    lg.add_argument("job", metavar="JOB", help="a job id (or a unique prefix), a resource name, or a job name (its newest run)")
    lg.add_argument("--follow", "-f", action="store_true",
                    help="keep printing until the job ends; exit as `run` does (0 succeeded, 6 failed, 7 cancelled)")
    lg.add_argument("--replica", metavar="R", help="only this replica (workerpool1-0, or trial-2/workerpool0-0); an "
                    "unknown one is an error that lists the job's replicas")
    lg.add_argument("--source", choices=["all", "trainer", "setup"], default="all",
                    help="trainer: only what the replicas wrote; setup: only the environment build (pip); "
                    "all (default): both, in time order")
    lg.add_argument("--tail", type=int, metavar="N", help="only the last N lines written so far (then, with "
                    "--follow, every new one)")
    lg.add_argument("--since", metavar="WHEN", help="only lines written since WHEN: a duration back from now (90s, "
                    "10m, 1h30m, 2d) or an RFC 3339 time (2026-11-25T22:00:00Z)")
    lg.add_argument("--timestamps", action=argparse.BooleanOptionalAction, default=True,
                    help="text: each line starts with the RFC 3339 UTC time it was written (default); "
                    "--no-timestamps leaves it out")
    lg.add_argument("--format", choices=["text", "json"], default="text",
                    help="json: one JSON object per line (timestamp, source, replica, message, severity)")
    add_stack_option(lg)
    lg.set_defaults(_target="provider.cli.logs:logs")


def parse_since(text: str, now: dt.datetime | None = None) -> dt.datetime:
    """``10m``, ``1h30m``, ``90s``, ``2d`` back from ``now``, or an RFC 3339 time; UserError (usage) otherwise."""
    m = _DURATION.fullmatch(text.strip())
    if m is not None and any(m.groups()):
        seconds = sum(int(g or 0) * unit for g, unit in zip(m.groups(), _SECONDS))
        return (now or dt.datetime.now(dt.UTC)) - dt.timedelta(seconds=seconds)
    try:
        moment = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise UserError(f"--since {text!r}: not a duration or a time; allowed: a duration back from now (90s, 10m, "
                        "1h30m, 2d) or an RFC 3339 time (2026-11-25T22:00:00Z)", exit_code=ExitCode.USAGE) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)


def _query(args: argparse.Namespace) -> LogQuery:
    from provider.backends.log_line import LogQuery, LogSource

    if args.tail is not None and args.tail < 0:
        raise UserError(f"--tail {args.tail}: a number of lines, 0 or more", exit_code=ExitCode.USAGE)
    source = None if args.source == "all" else LogSource(args.source)
    since = parse_since(args.since) if args.since else None
    return LogQuery(replica=args.replica, source=source, since=since, tail=args.tail)


def _print(line: LogLine, args: argparse.Namespace) -> None:
    text = json.dumps(line.json()) if args.format == "json" else line.text(timestamps=args.timestamps)
    print(text, flush=args.follow)


@guard
def logs(args: argparse.Namespace) -> int:
    from provider.backends.log_line import UnknownReplica, stream

    query = _query(args)  # a bad --since or --tail is refused before any backend is opened
    t = target(args)
    job_id = resolve(t, args.job)
    try:
        for line in stream(t.backend, job_id, query, follow=args.follow):
            _print(line, args)
    except UnknownReplica as exc:
        raise UserError(exc.message, exit_code=ExitCode.USAGE) from None
    if not args.follow:
        return ExitCode.SUCCESS
    final = t.backend.get(job_id)  # the job's final state closes the stream, and is the exit code
    if args.format == "json":
        print(json.dumps({"state": final.state.value, "error": final.error}), flush=True)
    else:
        print(f"{final.display_name} ({final.id}): {final.state.value}" + (f" - {final.error}" if final.error else ""))
    return of_job_state(final.state.value)
