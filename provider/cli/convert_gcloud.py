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
from pathlib import Path

from provider.errors import UserError

SHOWN = "<gcloud command>"


def _relocate(spec: dict[str, object], cwd: Path, base: Path) -> None:
    path = spec.get("packagePath")
    if isinstance(path, str):
        spec["packagePath"] = os.path.relpath(cwd / path, base)


def run_gcloud(args: argparse.Namespace) -> int:
    from provider.cli.convert import emit
    from provider.gcloud.build import build
    from provider.gcloud.command import GcloudError, parse
    from provider.gcloud.words import ShellError, split_words
    from provider.validation.rules import Context
    from provider.validation.validator import check_document

    cwd = Path.cwd()
    try:
        words = split_words(args.gcloud, os.environ)
        built = build(parse(words), cwd)
    except ShellError as exc:
        raise UserError(f"{SHOWN}: {exc}; allowed: quotes, \\-newline, $VAR and ${{VAR}} "
                        "from the environment", exit_code=1) from exc
    except GcloudError as exc:
        raise UserError(f"{SHOWN}: {exc}", exit_code=1) from exc
    base = Path(args.write).resolve().parent if getattr(args, "write", None) else cwd
    spec = built.document["spec"]
    assert isinstance(spec, dict)
    _relocate(spec, cwd, base)
    shown = SHOWN if built.config_path is None else f"{SHOWN} --config {built.config_path.name}"
    result = check_document(built.document, shown, Context())
    return emit(result, shown, base, args, built.notes)
