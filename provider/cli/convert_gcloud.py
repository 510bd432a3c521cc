"""``trainjobs convert --gcloud "COMMAND"``: the spec of one gcloud training command, never run.

The line is read as bash reads it (provider/gcloud/words.py, variables from this process's
environment), then as gcloud reads it (provider/gcloud/command.py), then becomes a
TrainingJob with the flags beside the config (provider/gcloud/build.py), which is validated
and printed like any other conversion. Paths are made relative to where the spec goes
(the --write FILE's folder, or the current directory).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from provider.core.errors import UserError

if TYPE_CHECKING:
    from provider.gcloud.build import Built

SHOWN = "<gcloud command>"


def _relocate(spec: dict[str, object], cwd: Path, base: Path) -> None:
    """Local paths, read from ``cwd`` as gcloud reads them, made relative to where the spec goes."""
    path = spec.get("packagePath")
    if isinstance(path, str):
        spec["packagePath"] = os.path.relpath(cwd / path, base)
    app = spec.get("application")
    package = app.get("pythonPackage") if isinstance(app, dict) else None
    if isinstance(package, dict) and isinstance(package.get("path"), str):
        package["path"] = os.path.relpath(cwd / package["path"], base)
    if isinstance(package, dict) and isinstance(package.get("extraPackages"), list):
        package["extraPackages"] = [os.path.relpath(cwd / p, base) for p in package["extraPackages"]]


def _built(args: argparse.Namespace, cwd: Path) -> Built:
    """The command read as bash and gcloud read it; UserError for what either refuses."""
    from provider.gcloud.build import build
    from provider.gcloud.command import GcloudError, parse
    from provider.gcloud.config_doc import ConfigProblems
    from provider.gcloud.words import ShellError, split_words

    try:
        return build(parse(split_words(args.gcloud, os.environ)), cwd)
    except ConfigProblems:
        raise  # reported as a spec's problems are, by the caller
    except ShellError as exc:
        raise UserError(f"{SHOWN}: {exc}; allowed: quotes, \\-newline, $VAR and ${{VAR}} "
                        "from the environment", exit_code=1) from exc
    except GcloudError as exc:
        raise UserError(f"{SHOWN}: {exc}", exit_code=1) from exc


def run_gcloud(args: argparse.Namespace) -> int:
    from provider.cli.convert import emit
    from provider.gcloud import config_doc
    from provider.validation.report import reporter
    from provider.validation.rules import Context
    from provider.validation.validator import check_document

    cwd = Path.cwd()
    try:
        built = _built(args, cwd)
    except config_doc.ConfigProblems as exc:  # the --config file's own problems, at its lines
        reporter("text", sys.stderr).report(exc.problems, 1, 1, sys.stderr)
        return 1
    base = Path(args.write).resolve().parent if getattr(args, "write", None) else cwd
    spec = built.document["spec"]
    assert isinstance(spec, dict)
    _relocate(spec, cwd, base)
    if built.config is None:
        return emit(check_document(built.document, SHOWN, Context()), SHOWN, base, args, built.notes)
    shown = f"{SHOWN} --config {built.config.shown}"
    result = check_document(built.document, shown, Context(), config_doc.around(built.config, built.document))
    result.problems[:] = config_doc.attribute(built.config.doc.problems + result.problems, built.config, shown)
    return emit(result, shown, base, args, built.notes)
