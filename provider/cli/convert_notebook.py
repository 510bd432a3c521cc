"""``trainjobs convert NOTEBOOK.ipynb [--cell N]``: the notebook's gcloud training command, converted as
``trainjobs convert --gcloud`` converts that command (provider/gcloud/notebook_file.py says how the
command is found and its Python values read)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

# The convert options this reader takes of those that go only with some inputs (convert_sources.refuse_options).
TAKES: tuple[str, ...] = ("cell", "staging_bucket", "stack")

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

