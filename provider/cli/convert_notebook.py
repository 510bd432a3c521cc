"""``trainjobs convert NOTEBOOK.ipynb [--cell N]``: the notebook's gcloud training command, converted as
``trainjobs convert --gcloud`` converts that command (provider/gcloud/notebook_file.py says how the
command is found and its Python values read); or, in a notebook that runs no such command, the job its
code cells launch with the Vertex AI SDK, read as ``trainjobs convert train.py`` reads a script
(provider.cli.convert_python.convert_sdk, provider/pysdk). A notebook that does both is refused naming
each cell; ``--cell N`` picks one."""

from __future__ import annotations

import argparse
import ast
import os
from pathlib import Path
from typing import TYPE_CHECKING

from provider.core.errors import UserError

if TYPE_CHECKING:
    from provider.gcloud.notebook_file import Cell

# The convert options this reader takes of those that go only with some inputs (convert_sources.refuse_options):
# a gcloud command's, or an SDK job's; each is refused where the notebook's job does not use it.
_GCLOUD_TAKES = ("cell", "staging_bucket", "stack")
_SDK_TAKES = ("cell", "name")
TAKES: tuple[str, ...] = tuple(dict.fromkeys(_GCLOUD_TAKES + _SDK_TAKES))


def run(raw: bytes, shown: str, path: Path, args: argparse.Namespace) -> int:
    from provider.cli.convert_sources import refuse_options
    from provider.gcloud.notebook_file import commands, read_cells
    from provider.pysdk.program import builders

    cells = read_cells(raw, shown)
    code = [(f"cell {c.number}", c.text) for c in cells if c.kind == "code"]
    gcloud = sorted({c.cell.number for cell in cells for c in commands(cell)})
    sdk = builders(code)
    pick = getattr(args, "cell", None)
    if sdk and ((pick is None and not gcloud) or (pick is not None and pick not in gcloud and 1 <= pick <= len(cells))):
        refuse_options(args, _SDK_TAKES)
        return _sdk(code, shown, path, args, pick)
    if sdk and gcloud and pick is None:
        raise UserError(f"{shown}: the notebook submits a training job with gcloud (cell "
                        f"{', cell '.join(map(str, gcloud))}) and builds one with the Vertex AI SDK ("
                        + "; ".join(f"{label}: {what}" for label, what in sdk.items())
                        + "); give the cell to convert with --cell N", exit_code=1)
    refuse_options(args, _GCLOUD_TAKES)
    return _gcloud(cells, shown, args)


def _sdk(code: list[tuple[str, str]], shown: str, path: Path, args: argparse.Namespace, pick: int | None) -> int:
    from provider.cli.convert_python import convert_sdk
    from provider.document.python_values import statements

    module = ast.Module([stmt for _, stmt, _ in statements(code)], [])
    return convert_sdk(code, shown, path, args, [module], cells=True, pick=None if pick is None else f"cell {pick}")


def _gcloud(cells: list[Cell], shown: str, args: argparse.Namespace) -> int:
    from provider.cli.convert_gcloud import run_gcloud
    from provider.gcloud.notebook_expand import expand, keep_secrets_out, notebook_environment
    from provider.gcloud.notebook_file import chosen, scope_at

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

