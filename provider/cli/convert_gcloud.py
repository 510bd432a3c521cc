"""``trainjobs convert --gcloud "COMMAND"``: the spec of one gcloud training command, never run.

The line is read as bash reads it (provider/gcloud/words.py, variables from this process's
environment), then as gcloud reads it (provider/gcloud/command.py), then becomes a
TrainingJob with the flags beside the config (provider/gcloud/build.py), which is validated
and printed like any other conversion. Paths are made relative to where the spec goes
(the --write FILE's folder, or the current directory). What the spec must not hold is kept out
before anything is written: a secret-looking variable's value (provider/gcloud/secrets.py: the
trainer's args that held one are left out with a note, elsewhere the command is refused), and
files or folders outside the repository (provider/gcloud/paths.py); every other variable read
is listed in a note.

Where trainjobs uploads a package gcloud never uploads (``local-package-path``: gcloud builds and
pushes an image), ``--staging-bucket gs://BUCKET`` writes the bucket into the spec, and ``--stack
NAME`` checks the spec with that stack of the workspace where the spec goes (provider.workspace),
whose team bucket takes the package when the stack runs it. With neither, the error that a
bucket is missing names both options.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from provider.core.errors import UserError

if TYPE_CHECKING:
    from provider.core.problem import Problem
    from provider.gcloud.build import Built
    from provider.gcloud.heredoc import Here
    from provider.gcloud.words import Line
    from provider.validation.rules import Context

SHOWN = "<gcloud command>"
_BUCKET_HINT = ("trainjobs convert --gcloud takes --staging-bucket gs://BUCKET (written into the spec as stagingBucket) "
                "or --stack NAME (the spec is run by that stack, whose team bucket takes the package)")


def _relocate(spec: dict[str, object], cwd: Path, base: Path) -> None:
    """Local paths, read from ``cwd`` as gcloud reads them, made relative to where the spec goes."""
    path = spec.get("packagePath")
    if isinstance(path, str):
        spec["packagePath"] = os.path.relpath(cwd / path, base)
    packages = spec.get("packages")
    if isinstance(packages, list):  # gcloud --packages: its local files, not its gs:// URIs
        spec["packages"] = [p if not isinstance(p, str) or p.startswith("gs://") else os.path.relpath(cwd / p, base)
                            for p in packages]
    app = spec.get("application")
    package = app.get("pythonPackage") if isinstance(app, dict) else None
    if isinstance(package, dict) and isinstance(package.get("path"), str):
        package["path"] = os.path.relpath(cwd / package["path"], base)
    if isinstance(package, dict) and isinstance(package.get("extraPackages"), list):
        package["extraPackages"] = [os.path.relpath(cwd / p, base) for p in package["extraPackages"]]


def _shown(args: argparse.Namespace) -> str:
    """How messages name the command: <gcloud command>, or the file and step it was read from (a cloudbuild.yaml, a
    GitHub Actions workflow)."""
    origin = getattr(args, "gcloud_origin", None)
    return f"{origin} (its gcloud command)" if origin else SHOWN


def _environment_note(plain: dict[str, str]) -> str:
    shown = ", ".join(f"${name}={value!r}" for name, value in sorted(plain.items()))
    return (f"read from the environment and written into the spec where the command uses them: {shown}; a spec is "
            "committed, so check that none is a secret (a variable named like one, with KEY, TOKEN, SECRET, "
            "PASSWORD... in its name, is never written)")


def _offset(text: str, line: int, column: int) -> int:
    """The index in ``text`` of its 1-based ``line`` and ``column`` (as the shell reader counts them)."""
    lines = text.replace("\r\n", "\n").split("\n")
    return sum(len(k) + 1 for k in lines[:line - 1]) + column - 1


def _written_at(args: argparse.Namespace, line: Line, flag: str) -> str | None:
    """Where the command's word ``flag`` (``--config``, ``--config=...``) was written: in a notebook's cell or a
    Makefile (the reader's ``gcloud_at``), or a script's line and column; None where the line has no such word, or
    where no reader said (a step, a Python call, --gcloud)."""
    from provider.gcloud.script import position

    offset = next((start for word, start in zip(line.words, line.starts, strict=False)
                   if word == flag or word.startswith(flag + "=")), None)
    if offset is None or len(line.starts) != len(line.words):
        return None
    at = getattr(args, "gcloud_at", None)
    if at is not None:
        return str(at(offset))
    script = getattr(args, "gcloud_script", None)
    if script:
        row, column = position(args.gcloud.replace("\r\n", "\n"), offset)
        return f"{script}:{row}:{column}"
    return None


def _placed(args: argparse.Namespace, line: Line) -> None:
    """A shell script's command is named by where it starts (``run.sh:4:1``), as each of its flags is."""
    from provider.gcloud.script import position

    script = getattr(args, "gcloud_script", None)
    if script and getattr(args, "gcloud_origin", None) == script and line.starts and getattr(args, "gcloud_at",
                                                                                               None) is None:
        row, column = position(args.gcloud.replace("\r\n", "\n"), line.starts[0])
        args.gcloud_origin = f"{script}:{row}:{column}"


def _config_via(args: argparse.Namespace, line: Line) -> str | None:
    """"read by --config at PLACE": where the command names its --config file (or the place the command came from:
    a step, a Python call), for a problem of that file; None for ``--gcloud`` (the command is the one given)."""
    if not any(word == "--config" or word.startswith("--config=") for word in line.words):
        return None
    at = _written_at(args, line, "--config") or getattr(args, "gcloud_origin", None)
    return f"read by --config at {at}" if at else None


def _heres(args: argparse.Namespace, line: Line) -> tuple[Here, ...]:
    """The files the script's here-documents write, named as messages name them: at the script's own lines (a
    script file), a notebook cell's (the cell and its line), else as the file written (a step, a Makefile's recipe:
    its lines counted from the here-document's); a template envsubst read, at its own lines."""
    from provider.core.record import replace

    script, at = getattr(args, "gcloud_script", None), getattr(args, "gcloud_at", None)
    if script and at is None:
        return tuple(h if h.source else replace(h, shown=script, pad=h.line - 1) for h in line.heres)
    if at is None:
        return tuple(h if h.source else replace(h, shown=f"{h.target} (a here-document)") for h in line.heres)
    heres = []
    for h in line.heres:  # a notebook cell's: at the cell's own lines, as the cell's other messages are
        cell = re.fullmatch(r"(.*) cell ([0-9]+), line ([0-9]+), column [0-9]+", str(at(_offset(args.gcloud, h.line, 1))))
        heres.append(h if h.source else replace(h, shown=f"{h.target} (a here-document)") if cell is None else
                     replace(h, shown=cell[1], cell=int(cell[2]), pad=int(cell[3]) - 1))
    return tuple(heres)


def _built(args: argparse.Namespace, cwd: Path) -> tuple[Built, str | None]:
    """The command read as bash and gcloud read it, and where its --config is named (_config_via); UserError for
    what either refuses.

    A secret-looking variable's value never enters (provider.gcloud.secrets): every message and
    note is shown through ``secrets.shown``, which names such a variable and never holds its value.
    """
    from provider.core.record import replace
    from provider.gcloud import secrets
    from provider.gcloud.build import build
    from provider.gcloud.command import GcloudError, parse
    from provider.gcloud.config_doc import ConfigProblems
    from provider.gcloud.notebook import placeholders
    from provider.gcloud.other_shells import variables
    from provider.gcloud.words import ALLOWED, ShellError, read_line

    line = None
    try:
        line = read_line(args.gcloud, os.environ, cwd)
        _placed(args, line)
        cmd = parse(line.words, line.properties)
        notes = secrets.take_out(cmd)
        built = build(cmd, cwd, getattr(args, "staging_bucket", None), _heres(args, line))
    except ConfigProblems as exc:  # reported as a spec's problems are, by the caller
        via = _config_via(args, line) if line is not None else None
        exc.problems = [replace(p, via=via) for p in exc.problems]
        raise
    except ShellError as exc:  # a script file's or a notebook cell's: at its line and column as written
        script, at = getattr(args, "gcloud_script", None), getattr(args, "gcloud_at", None)
        where = (f"{at(_offset(args.gcloud, exc.line or 1, exc.column))}: {exc.message}" if at
                 else f"{script}:{exc.line or 1}:{exc.column}: {exc.message}" if script else f"{_shown(args)}: {exc}")
        raise UserError(f"{secrets.shown(where)}; allowed: {ALLOWED}", exit_code=1) from None
    except GcloudError as exc:  # at the flag it names, where the line says where that is
        where = (_written_at(args, line, exc.flag) if line and exc.flag else None) or _shown(args)
        raise UserError(f"{where}: {secrets.shown(str(exc), line.secret if line else ())}", exit_code=1) from None
    others = placeholders(line.words) + variables(line.words)
    built.notes[:] = [secrets.shown(n, line.secret) for n in line.notes + built.notes + others] + notes
    if line.plain:
        built.notes.append(_environment_note(line.plain))
    built.notes += getattr(args, "gcloud_notes", [])  # what a workflow's expressions and env: gave the line
    return built, _config_via(args, line)


def _context(name: str | None, base: Path, notes: list[str]) -> Context:
    """The Context the spec is checked in: stack ``name``'s of the workspace at ``base``, or none."""
    from provider.validation.rules import Context

    if name is None:
        return Context()
    from provider.stack.check import context_for
    from provider.workspace import Workspace

    ws = Workspace.of(base)
    stack = ws.stack(name)
    if stack is None:
        known = ", ".join(s.name for s in ws.stacks) or "none"
        broken = "".join(f"; {p.file}: {p.message}" for p in ws.index.problems if p.is_error)
        raise UserError(f"--stack {name}: no such stack in {ws.where()}; allowed: {known}{broken}", exit_code=1)
    notes.append(f"checked as stack {name} runs it: the package goes to its team bucket gs://{stack.bucket}; add the "
                 f"spec to the stack's specs ({stack.source}) for the stack to run it")
    return context_for(stack)


def _hinted(problems: list[Problem]) -> list[Problem]:
    """A missing bucket names the convert options that give one."""
    from provider.core.record import replace

    return [replace(p, hint=_BUCKET_HINT) if p.rule == "package.staging" else p for p in problems]


# The convert options a gcloud command (--gcloud, a script, a Cloud Build or Actions step) takes of those that go
# only with some inputs (provider.cli.convert_sources.refuse_options).
COMMAND_TAKES = ("staging_bucket", "stack")


def run_cloud_build(data: object, shown: str, args: argparse.Namespace) -> int | None:
    """A cloudbuild.yaml: its gcloud training step, converted as that command line; a GitHub Actions workflow:
    run_github_actions; None for any other file."""
    from provider.cli.convert_sources import refuse_options
    from provider.gcloud import cloud_build

    if not isinstance(data, dict) or not cloud_build.is_config(data):
        return run_github_actions(data, shown, args)
    refuse_options(args, COMMAND_TAKES)
    step, args.gcloud = cloud_build.command_line(data, shown)
    args.gcloud_origin = f"{shown} {step}"
    return run_gcloud(args)


def run_github_actions(data: object, shown: str, args: argparse.Namespace) -> int | None:
    """A GitHub Actions workflow: its step whose run: script submits a training job, converted as that command line
    (provider.gcloud.github_actions); None for any other file."""
    from provider.cli.convert_sources import refuse_options
    from provider.gcloud import github_actions

    if not isinstance(data, dict) or not github_actions.is_workflow(data):
        return None
    refuse_options(args, COMMAND_TAKES)
    step, args.gcloud, args.gcloud_notes = github_actions.command_line(data, shown)
    args.gcloud_origin = f"{shown} {step}"
    return run_gcloud(args)


def run_gcloud(args: argparse.Namespace) -> int:
    from provider.cli.convert import emit
    from provider.gcloud import config_doc
    from provider.validation.report import reporter
    from provider.validation.validator import check_document

    cwd = Path.cwd()
    try:
        built, via = _built(args, cwd)
    except config_doc.ConfigProblems as exc:  # the --config file's own problems, at its lines
        reporter("text", sys.stderr).report(exc.problems, 1, 1, sys.stderr)
        return 1
    base = Path(args.write).resolve().parent if getattr(args, "write", None) else cwd
    spec = built.document["spec"]
    assert isinstance(spec, dict)
    _relocate(spec, cwd, base)
    ctx = _context(getattr(args, "stack", None), base, built.notes)
    if built.config is None:
        result = check_document(built.document, _shown(args), ctx)
        result.problems[:] = _hinted(result.problems)
        return emit(result, _shown(args), base, args, built.notes)
    shown = f"{_shown(args)} --config {built.config.named or built.config.shown}"
    result = check_document(built.document, shown, ctx, config_doc.around(built.config, built.document))
    problems = config_doc.attribute(built.config.doc.problems + result.problems, built.config, shown, via,
                                    built.document)
    result.problems[:] = _hinted(problems)
    return emit(result, shown, base, args, built.notes)
