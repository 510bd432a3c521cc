"""``trainjobs convert NOTEBOOK.ipynb [--cell N]``: the notebook's gcloud training command, converted as
``trainjobs convert --gcloud`` converts that command (provider/gcloud/notebook_file.py says how the
command is found and its Python values read)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from provider.core.errors import UserError
from provider.core.exit_code import ExitCode


def run(raw: bytes, shown: str, path: Path, args: argparse.Namespace) -> int:
    from provider.cli.convert_gcloud import run_gcloud
    from provider.gcloud.notebook_expand import expand, keep_secrets_out, notebook_environment
    from provider.gcloud.notebook_file import chosen, read_cells, scope_at

    cells = read_cells(raw, shown)
    command = chosen(cells, shown, getattr(args, "cell", None))
    origin = f"{shown} cell {command.cell.number}, line {command.line}"
    scope = scope_at(cells, command)
    args.gcloud_notes = []
    if command.bash:
        args.gcloud = command.text
    else:
        text, replaced = expand(command.text, scope, lambda i: f"{shown} {command.place(i)}")
        keep_secrets_out(text, scope, origin)
        args.gcloud = " " * (command.starts[0][2] - 1) + text  # columns of the first line stay the cell's
        if replaced:
            args.gcloud_notes.append("the ! line as IPython expands it with the notebook's Python values (read, never "
                                     f"run): {', '.join(replaced)}")
    environment = notebook_environment(args.gcloud, scope, origin)
    if environment:
        from provider.gcloud.secrets import looks_secret

        args.gcloud_notes.append("set by the notebook (%env, os.environ) before this line, and read by the shell: "
                                 + ", ".join(f"${k}" if looks_secret(k) else f"${k}={v!r}"
                                             for k, v in environment.items()))
    args.gcloud_origin = origin
    saved = {name: os.environ.get(name) for name in environment}
    os.environ.update(environment)
    try:
        return run_gcloud(args)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def convert(args: argparse.Namespace) -> int:
    """``trainjobs convert``: a notebook FILE is converted here, as its gcloud command would be with --gcloud (so
    it takes --staging-bucket and --stack, as --gcloud does); --cell goes only with a notebook; anything else is
    provider.cli.convert.run's."""
    from provider.cli.convert import run as run_convert

    notebook = str(getattr(args, "file", None) or "").lower().endswith(".ipynb")
    if getattr(args, "cell", None) is not None and not notebook:
        raise UserError("--cell N goes with a notebook FILE (.ipynb): it picks the cell whose gcloud command is "
                        "converted", exit_code=ExitCode.USAGE)
    if notebook and getattr(args, "gcloud", None) is None:
        from provider.cli.convert_sources import read_input

        path, shown, raw = read_input(args.file)
        return run(raw, shown, path, args)
    return run_convert(args)
