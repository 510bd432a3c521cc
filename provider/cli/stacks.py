"""``trainjobs up|preview|refresh|destroy --stack S``: thin wrappers over Pulumi's Automation API.

They need the pulumi CLI on PATH (the Automation API drives it); without it they say how to
install it. Everything else trainjobs does (validate, run, plan) works without the CLI.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import Any

from provider.core.errors import UserError

INSTALL = (
    "the pulumi CLI is not on PATH, and `trainjobs {cmd}` drives it through Pulumi's Automation API.\n"
    "Install it with:  curl -fsSL https://get.pulumi.com | sh   (or see https://www.pulumi.com/docs/install/)\n"
    "then log in:      pulumi login --local   (state on this machine)  or  pulumi login  (Pulumi Cloud)\n"
    "Everything else (trainjobs validate, run, plan) works without it."
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    for cmd, text in (
        ("up", "create or update the stack's infrastructure and jobs (pulumi up)"),
        ("preview", "show what up would do (pulumi preview)"),
        ("refresh", "read the state of the stack's jobs (pulumi refresh)"),
        ("destroy", "cancel the stack's jobs and remove its infrastructure (pulumi destroy)"),
    ):
        p = sub.add_parser(cmd, help=text)
        p.add_argument("--stack", required=True, metavar="S", help="the stack: stacks/Pulumi.S.yaml")
        p.add_argument("--cwd", default=".", help="the project directory (where Pulumi.yaml is)")
        if cmd in ("up", "destroy"):
            p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
        if cmd == "preview":
            p.add_argument("--policy-pack", help="run a policy pack (e.g. policy/) during the preview")
        p.set_defaults(_target="provider.cli.stacks:run", _pulumi=cmd)


def run(args: argparse.Namespace) -> int:
    cmd = args._pulumi
    root = Path(args.cwd).resolve()
    if not (root / "Pulumi.yaml").is_file():
        raise UserError(f"no Pulumi.yaml in {root}: run this from the project root, or pass --cwd", exit_code=2)
    stack_file = root / "stacks" / f"Pulumi.{args.stack}.yaml"
    if not stack_file.is_file():
        known = sorted(p.name[len("Pulumi."):-len(".yaml")] for p in (root / "stacks").glob("Pulumi.*.yaml"))
        raise UserError(f"no stack {args.stack!r}: {stack_file} does not exist (stacks: {', '.join(known)})",
                        exit_code=2)
    if shutil.which("pulumi") is None:
        raise UserError(INSTALL.format(cmd=cmd), exit_code=2)
    if cmd in ("up", "destroy") and not args.yes and sys.stdin.isatty():
        answer = input(f"{cmd} stack {args.stack}? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("cancelled")
            return 1
    from pulumi import automation as auto

    try:
        return _drive(auto, cmd, args, root)
    except auto.errors.InvalidVersionError as exc:
        raise UserError(f"the pulumi CLI on PATH is too old for the Automation API: {exc}. Update it: "
                        "curl -fsSL https://get.pulumi.com | sh", exit_code=2) from None
    except auto.errors.CommandError as exc:
        # What pulumi printed on stdout has been streamed already; its stderr says why it failed.
        text = str(exc)
        detail = text.split("\n stderr: ", 1)[1].strip() if "\n stderr: " in text else text.strip()
        raise UserError(f"pulumi {cmd} --stack {args.stack} failed:\n{detail}", exit_code=1) from None


def _drive(auto: Any, cmd: str, args: argparse.Namespace, root: Path) -> int:
    stack = auto.create_or_select_stack(stack_name=args.stack, work_dir=str(root))
    out = sys.stdout.write
    if cmd == "up":
        result = stack.up(on_output=out)
        return 0 if result.summary.result == "succeeded" else 1
    if cmd == "preview":
        policy = [str(Path(args.policy_pack).resolve())] if args.policy_pack else None
        stack.preview(on_output=out, policy_packs=policy)
        return 0
    if cmd == "refresh":
        stack.refresh(on_output=out)
        return 0
    stack.destroy(on_output=out)
    return 0
