"""``trainjobs validate`` and ``trainjobs schema``.

Each spec is checked in its workspace (provider.workspace): the repository found from where the
file really is, and the stacks there that hold it, so the verdict is the same from any folder and
by any path.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from provider.core.errors import UserError
from provider.core.exit_code import ExitCode
from provider.validation.report import reporter
from provider.validation.rules import Target
from provider.workspace import STACK_FOLDER, Workspaces, check, find_root, is_stack_file

if TYPE_CHECKING:
    from provider.core.problem import Problem
    from provider.stack.config import StackConfig
    from provider.workspace import Workspace


def _default_specs() -> str:
    """``specs/`` here, else that of the workspace holding the current directory (a usage error if none)."""
    if Path("specs").is_dir():
        return "specs"
    root = find_root(Path.cwd())
    if root is None or not (root / "specs").is_dir():
        raise UserError("no PATH given and there is no specs/ directory here: name the spec files or folders to check",
                        exit_code=ExitCode.USAGE)
    return str(root / "specs")


def _given(args: argparse.Namespace) -> tuple[list[str], list[Path]]:
    """The PATHs of the command line: (spec files and directories, stack files); usage errors raise."""
    given = list(args.paths or [])
    stack_paths = [Path(p) for p in given if is_stack_file(p)]
    paths = [p for p in given if not is_stack_file(p)]
    if not given:
        paths = [_default_specs()]
    for raw in paths:  # a path that does not exist: not found (README, "Exit codes"), as in `run`
        if not Path(raw).exists() and not Path(raw).is_symlink():
            raise UserError(f"{raw}: no such file or directory", exit_code=ExitCode.NOT_FOUND)
    return paths, stack_paths


def run(args: argparse.Namespace) -> int:
    from provider.workspace import members

    paths, stack_paths = _given(args)
    spaces = Workspaces(Path(args.stacks) if args.stacks else None)
    extra_problems, extra_stacks, extra_files = _stack_files(spaces, stack_paths)
    if stack_paths and not paths:  # only stack files: check them, and the specs they hold
        paths = sorted({f for stack, ws in extra_stacks for f in members([stack], ws)})
    verdict = check(paths, target=Target(args.target) if args.target else None, keep_all=args.summary,
                    found=spaces, extra=extra_problems)
    problems = verdict.problems
    failed_stacks = verdict.failed_stack_files
    reporter(args.format, sys.stdout, args.color).report(
        problems, verdict.specs, len(verdict.failed_files - failed_stacks), sys.stdout,
        stacks=(verdict.stack_files + extra_files, len(failed_stacks)))
    if args.summary and args.format == "text":
        from provider.cli.summary import print_summary

        print_summary([r.job for r in verdict.results if r.ok and r.job is not None], sys.stdout)
    return verdict.exit_code


def _stack_files(spaces: Workspaces, paths: list[Path]
                 ) -> tuple[list[Problem], list[tuple[StackConfig, Workspace]], int]:
    """Stack files named on the command line: those in their workspace's stacks/ are checked with it;
    another is read on its own. Returns (its problems, (stack, workspace) of each, how many were read apart)."""
    problems: list[Problem] = []
    stacks: list[tuple[StackConfig, Workspace]] = []
    apart = 0
    for path in paths:
        from provider.stack.config import load_stack, stack_name  # only where stack files are named

        if not path.is_file():
            raise UserError(f"{path}: no such file", exit_code=ExitCode.NOT_FOUND)
        ws = spaces.of(path)
        if ws.root is not None and path.resolve().parent == (ws.index.root / STACK_FOLDER).resolve():
            stacks.extend((s, ws) for s in ws.stacks if s.name == stack_name(path))
            continue
        loaded = load_stack(path, str(path))
        apart += 1
        problems.extend(loaded.problems)
        if loaded.config is not None:
            stacks.append((loaded.config, ws))
    return problems, stacks, apart


def schema(args: argparse.Namespace) -> int:
    from provider.spec.schema import render, spec_schema
    from provider.stack.schema import stack_schema

    print(render(stack_schema() if args.stack else spec_schema()), end="")
    return 0
