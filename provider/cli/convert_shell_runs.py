"""Python that runs one gcloud training command (``subprocess.run([...])``, ``os.system(f"gcloud ...")``), in a
.py file or a notebook's code cells: the command's line, read by provider.pysdk.shell_runs, converted as
``trainjobs convert --gcloud`` converts that line (convert_gcloud.run_gcloud), with the environment the code
sets before it (``os.environ[...] =``, ``%env``) as the shell would read it."""

from __future__ import annotations

import argparse
import re
from collections import Counter
from typing import TYPE_CHECKING

from provider.core.errors import UserError

if TYPE_CHECKING:
    from provider.document.python_values import Scope
    from provider.pysdk.shell_runs import ShellRun

_GCLOUD = re.compile(r"(?:^|[\s;&|(`'\"\[,])gcloud\b")


def training(runs: list[ShellRun], skipped: bool = False) -> list[ShellRun]:
    """The calls that run a gcloud training command: by their line, or by their source where the line is not
    known; ``skipped``: those in a branch not taken instead (shell_runs.ShellRun.skipped), which do not run."""
    from provider.gcloud.cloud_build import TRAINING

    def words(run: ShellRun) -> str:  # a line not known: the call's source, and what its command's variable holds
        return run.line if run.line is not None else re.sub(r"[\[\]'\"(),]", " ", f"{run.source} {run.assigned}")

    return [run for run in runs if (run.skipped is not None) == skipped and TRAINING.search(words(run))
            and _GCLOUD.search(" " + words(run))]


def convert_run(runs: list[ShellRun], shown: str, args: argparse.Namespace, passed: list[ShellRun] | None = None) -> int:
    """The one training command of ``runs`` (those ``training`` gave) converted; UserError naming each of several,
    or why the one cannot be read. ``passed``: training commands in a branch not taken, each named in a note."""
    if len(runs) > 1:
        places = Counter(run.where for run in runs)  # a loop over known items runs the call once per turn
        raise UserError(f"{shown}: {len(runs)} calls run a gcloud training command: " + "; ".join(
            f"{where}" + (f" ({n} times: the code runs it more than once)" if n > 1 else "") for where, n in places.items())
            + "; allowed: one (convert each command with trainjobs convert --gcloud)", exit_code=1)
    run = runs[0]
    if run.line is None:
        raise UserError(f"{run.where}: {_short(run.source)} runs a gcloud training command, and {run.why}; allowed: "
                        "subprocess.run([...words...]) or os.system('...') at top level, its command built from "
                        "values the code gives before it (under an if whose test is known, or in a function called "
                        "at top level, too)", exit_code=1)
    from provider.gcloud.notebook_expand import keep_secrets_out

    keep_secrets_out(run.line, run.scope, run.where)
    args.gcloud, args.gcloud_origin = run.line, run.where
    args.gcloud_notes = [f"the command {_short(run.source)} runs, read from the Python (never run)"]
    args.gcloud_notes += [f"not converted: {_short(other.source)} at {other.where} is not read: {other.skipped}"
                          for other in passed or []]
    return run_with_environment(args, run.scope, run.where, "the notebook" if " cell " in run.where else "the script")


def refuse_passed(passed: list[ShellRun], shown: str, noun: str) -> None:
    """UserError where the code's only gcloud training commands are in branches not taken (or after a return or
    exit that may happen)."""
    if passed:
        raise UserError(f"{shown}: the {noun} runs no gcloud training command: " + "; ".join(
            f"{_short(run.source)} at {run.where} is not read: {run.skipped}" for run in passed)
            + "; allowed: a training command the code runs (in the branch an if takes, before any return or exit "
            "whose test is not known)", exit_code=1)


def _short(source: str) -> str:
    return source if len(source) <= 80 else source[:77] + "..."


def run_with_environment(args: argparse.Namespace, scope: Scope, origin: str, who: str) -> int:
    """run_gcloud on args.gcloud, in this process's environment with what the code sets before the line (%env,
    ``os.environ[...] =``) and the line reads, each named in a note."""
    from provider.cli.convert_gcloud import run_gcloud
    from provider.cli.convert_sources import environment as overlaid
    from provider.core.secret_names import looks_secret
    from provider.gcloud.notebook_expand import notebook_environment

    environment = notebook_environment(args.gcloud, scope, origin)
    if environment:
        args.gcloud_notes.append(f"set by {who} (%env, os.environ) before this line, and read by the shell: "
                                 + ", ".join(f"${k}" if looks_secret(k) else f"${k}={v!r}"
                                             for k, v in environment.items()))
    with overlaid(environment):
        return run_gcloud(args)
