"""``trainjobs plan``, ``trainjobs affected-stacks`` and ``trainjobs codeowners``: the pull-request workflow.

They read git and the files of the project directory only: no cloud access, no Pulumi CLI.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from provider.core.backend_registry import kinds
from provider.core.errors import UserError
from provider.core.exit_code import ExitCode


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("plan", help="what a change to specs/ and stacks/ does to each stack (jobs, GPUs, cost, policy)")
    p.add_argument("--base", metavar="REF", help="the git ref to compare with (default: origin/main, else main, else HEAD)")
    p.add_argument("--stack", metavar="S", help="plan only this stack (default: every stack the change affects)")
    p.add_argument("--format", choices=["text", "markdown", "json"], default="text",
                   help="text, markdown (a pull-request comment) or json")
    p.add_argument("--show-requests", action="store_true", help="show the Vertex AI request of each job to start")
    p.set_defaults(_target="provider.cli.gitops:plan")

    a = sub.add_parser("affected-stacks", help="the stacks a change touches (for CI: which stacks to preview or deploy)")
    a.add_argument("--base", metavar="REF", help="the git ref to compare with (default: origin/main, else main, else HEAD)")
    a.add_argument("--format", choices=["text", "json", "github"], default="text",
                   help="one name a line, a JSON list, or for $GITHUB_OUTPUT: stacks=<JSON list> and "
                        "timeouts=<JSON object: stack -> minutes a deploy job may take>")
    a.add_argument("--backend", choices=[str(k) for k in kinds()], help="only stacks with this backend")
    a.set_defaults(_target="provider.cli.gitops:affected_stacks")

    c = sub.add_parser("codeowners", help="print .github/CODEOWNERS generated from the stacks' owners")
    c.add_argument("--stacks", default="stacks", metavar="DIR", help="the stack files (default: stacks)")
    c.add_argument("--check", metavar="FILE", help="exit 1 if FILE differs from what would be generated")
    c.set_defaults(_target="provider.cli.gitops:codeowners")


def _project() -> Path:
    """The project a plan is of: the workspace holding the current directory (provider.workspace), so
    ``plan`` run in a subfolder plans the whole project, as from its root."""
    from provider.workspace import find_root

    return find_root(Path.cwd()) or Path.cwd()


def plan(args: argparse.Namespace) -> int:
    from provider.gitops import report_json, report_markdown, report_text
    from provider.gitops.load import sides
    from provider.gitops.plan import make_plan

    with sides(_project(), args.base) as (base, head):
        known = sorted(set(base.stacks) | set(head.stacks))
        if args.stack is not None and args.stack not in known:
            raise UserError(f"--stack {args.stack!r}: no such stack in {base.tree.label} or the working tree; "
                            f"allowed: {', '.join(known) or 'none (no stacks/Pulumi.*.yaml)'}", exit_code=2)
        result = make_plan(base, head, args.stack)
    render = {"text": report_text, "markdown": report_markdown, "json": report_json}[args.format].render
    render(result, sys.stdout, show_requests=args.show_requests)
    return 0 if result.ok else 1


def affected_stacks(args: argparse.Namespace) -> int:
    from provider.document.excerpt import printable  # stack names are file names: escaped for a terminal
    from provider.gitops.load import sides
    from provider.gitops.plan import make_plan

    with sides(_project(), args.base) as (base, head):
        result = make_plan(base, head)
    stacks = [s for s in result.stacks if args.backend is None or s.backend == args.backend]
    names = [s.name for s in stacks if s.status != "removed"]
    removed = [s.name for s in stacks if s.status == "removed"]
    if removed:
        print(printable(f"trainjobs: stack file removed, not listed (run trainjobs destroy --stack S first): "
                        f"{', '.join(removed)}"), file=sys.stderr)
    if args.format == "json":
        print(json.dumps(names))
    elif args.format == "github":
        print(f"stacks={json.dumps(names)}")
        print(f"timeouts={json.dumps(deploy_timeouts(names))}")
    elif names:
        print("\n".join(printable(n) for n in names))
    return 0


# A deploy job waits for each job as the stack's wait policy says (in parallel); beside that it
# installs tools, builds images and cancels replaced jobs. GitHub allows at most 360 minutes.
DEPLOY_SETUP_MINUTES = 30
GITHUB_MAX_MINUTES = 360


def deploy_timeouts(names: list[str]) -> dict[str, int]:
    """Minutes a workflow job that deploys each stack may run: its wait timeout plus the setup time."""
    from provider.stack.membership import StackIndex

    index = StackIndex.load(Path("stacks"))
    waits = {s.name: s.wait for s in index.stacks}
    out = {}
    for name in names:
        wait = waits.get(name)
        minutes = 0 if wait is None or wait.until == "none" else math.ceil(wait.timeout_seconds / 60)
        out[name] = min(GITHUB_MAX_MINUTES, minutes + DEPLOY_SETUP_MINUTES)
    return out


def codeowners(args: argparse.Namespace) -> int:
    from provider.gitops.codeowners import render
    from provider.stack.membership import StackIndex

    index = StackIndex.load(Path(args.stacks))
    if index.problems and any(p.is_error for p in index.problems):
        first = next(p for p in index.problems if p.is_error)
        raise UserError(f"the stack files are invalid ({first.where}: {first.message}); run trainjobs validate")
    files = {s.name: Path(s.source).resolve().relative_to(index.root).as_posix() for s in index.stacks}
    text = render(index.stacks, files)
    if args.check is None:
        sys.stdout.write(text)
        return 0
    try:
        current = Path(args.check).read_text(encoding="utf-8")
    except OSError as exc:
        missing = isinstance(exc, FileNotFoundError)  # not found (4), as every command's missing file; else usage (2)
        raise UserError(f"--check {args.check}: cannot read it ({exc.strerror})",
                        exit_code=ExitCode.NOT_FOUND if missing else ExitCode.USAGE) from exc
    if current != text:
        print(f"{args.check} is stale: run  trainjobs codeowners > {args.check}", file=sys.stderr)
        return 1
    return 0
