"""``trainjobs validate`` and ``trainjobs schema``."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from provider.core.errors import UserError
from provider.core.problem import Problem
from provider.stack.check import context_for as stack_context
from provider.stack.membership import StackIndex, spec_files
from provider.validation.report import reporter
from provider.validation.rules import Context, Target

if TYPE_CHECKING:
    from provider.stack.config import StackConfig

STACK_FILE = re.compile(r"Pulumi\.[^.]+\.ya?ml")


def _given(args: argparse.Namespace) -> tuple[list[str], list[Path]]:
    """The PATHs of the command line: (spec files and directories, stack files); usage errors raise."""
    given = list(args.paths or [])
    stack_paths = [Path(p) for p in given if STACK_FILE.fullmatch(Path(p).name)]
    paths = [p for p in given if not STACK_FILE.fullmatch(Path(p).name)]
    if not given:
        if not Path("specs").is_dir():
            raise UserError("no PATH given and there is no specs/ directory here", exit_code=2)
        paths = ["specs"]
    for raw in paths:  # the README: a path that does not exist is a usage error
        if not Path(raw).exists() and not Path(raw).is_symlink():
            raise UserError(f"{raw}: no such file or directory", exit_code=2)
    return paths, stack_paths


def _contexts(index: StackIndex, target: Target | None) -> Callable[[Path], Context]:
    """Each spec's context: its stack's, judged for ``--target`` when one is given."""

    def context_for(path: Path) -> Context:
        return stack_context(index.stacks_of(path, resolved=True), target=target)  # validate gives real paths

    return context_for


def _in_a_stack(index: StackIndex) -> Callable[[Path], bool]:
    """Whose model a run keeps past its check: the specs a stack's quotas count (--summary: all)."""

    def in_a_stack(path: Path) -> bool:
        return bool(index.stacks_of(path, resolved=True))

    return in_a_stack


def run(args: argparse.Namespace) -> int:
    from provider.stack.membership import policy_problems
    from provider.validation.validator import validate_paths

    paths, stack_paths = _given(args)
    index = StackIndex.load(Path(args.stacks))
    extra_stack_problems, extra_stacks = _stack_files(index, stack_paths)
    if stack_paths and not paths:  # only stack files: check them, and the specs they hold
        paths = sorted({str(f) for s in extra_stacks for f in spec_files(s, index.root)})
    context_for = _contexts(index, Target(args.target) if args.target else None)
    report = validate_paths(paths, context_for, partial(index.groups_for, resolved=True), index.names_elsewhere,
                            None if args.summary else _in_a_stack(index), lean=True)
    report.problems.extend(index.problems)
    report.problems.extend(extra_stack_problems)
    report.problems.extend(policy_problems(index, report.results))
    problems = report.all_problems
    failed_files = {p.file for p in problems if p.is_error}
    failed_stacks = {f for f in failed_files if STACK_FILE.fullmatch(Path(f).name)}
    stack_files = index.files_checked + sum(1 for p in stack_paths if not _in_index(index, p))
    reporter(args.format, sys.stdout, args.color).report(
        problems, report.checked, len(failed_files - failed_stacks), sys.stdout,
        stacks=(stack_files, len(failed_stacks)))
    if args.summary and args.format == "text":
        from provider.cli.summary import print_summary

        print_summary([r.job for r in report.results if r.ok and r.job is not None], sys.stdout)
    return 0 if not failed_files else 1


def _in_index(index: StackIndex, path: Path) -> bool:
    return path.resolve().parent == (index.root / "stacks").resolve()


def _stack_files(index: StackIndex, paths: list[Path]) -> tuple[list[Problem], list[StackConfig]]:
    """Stack files named on the command line: those in stacks/ are already checked by the index."""
    problems: list[Problem] = []
    stacks: list[StackConfig] = []
    for path in paths:
        from provider.stack.config import load_stack, stack_name

        if not path.is_file():
            raise UserError(f"{path}: no such file", exit_code=2)
        if _in_index(index, path):
            stacks.extend(s for s in index.stacks if s.name == stack_name(path))
            continue
        loaded = load_stack(path, str(path))
        problems.extend(loaded.problems)
        if loaded.config is not None:
            stacks.append(loaded.config)
    return problems, stacks


def schema(args: argparse.Namespace) -> int:
    from provider.spec.schema import render, spec_schema
    from provider.stack.schema import stack_schema

    print(render(stack_schema() if args.stack else spec_schema()), end="")
    return 0
