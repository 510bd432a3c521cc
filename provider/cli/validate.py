"""``trainjobs validate`` and ``trainjobs schema``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from provider.errors import UserError
from provider.validation.report import reporter
from provider.validation.rules import Context, Target


def run(args: argparse.Namespace) -> int:
    from provider.stack.membership import StackIndex, policy_problems
    from provider.validation.validator import validate_paths

    paths = args.paths or ["specs"]
    if not args.paths and not Path("specs").is_dir():
        raise UserError("no PATH given and there is no specs/ directory here", exit_code=2)
    index = StackIndex.load(Path(args.stacks))
    target = Target(args.target) if args.target else None

    def context_for(path: Path) -> Context:
        ctx = index.context_for(path)
        if target is None:
            return ctx
        return Context(target=target, bucket_regions=ctx.bucket_regions, staging_bucket=ctx.staging_bucket)

    report = validate_paths(paths, context_for, index.groups_for, index.names_elsewhere)
    report.problems.extend(index.problems)
    report.problems.extend(policy_problems(index, report.results))
    problems = report.all_problems
    failed_files = {p.file for p in problems if p.is_error}
    checked = len(report.results) + index.files_checked
    reporter(args.format, sys.stdout, args.color).report(problems, checked, len(failed_files), sys.stdout)
    if args.summary and args.format == "text":
        from provider.cli.summary import print_summary

        print_summary([r.job for r in report.results if r.ok and r.job is not None], sys.stdout)
    return 0 if not failed_files else 1


def schema(args: argparse.Namespace) -> int:
    from provider import schema as gen

    print(gen.render(gen.stack_schema() if args.stack else gen.spec_schema()), end="")
    return 0
