"""``trainjobs convert NOTEBOOK.ipynb [--cell N]``: the notebook's gcloud training command, converted as
``trainjobs convert --gcloud`` converts that command (provider/gcloud/notebook_file.py says how the
command is found and its Python values read); or, in a notebook that runs no such command, the job its
code cells launch with the Vertex AI SDK, read as ``trainjobs convert train.py`` reads a script
(provider.cli.convert_python.convert_sdk, provider/pysdk). A notebook that does both is refused naming
each cell; ``--cell N`` picks one."""

from __future__ import annotations

import argparse
import ast
from pathlib import Path
from typing import TYPE_CHECKING

from provider.core.errors import UserError
from provider.spec.formats.vertex import api_enums

if TYPE_CHECKING:
    from provider.gcloud.notebook_file import Cell
    from provider.pysdk.shell_runs import ShellRun

# The convert options this reader takes of those that go only with some inputs (convert_sources.refuse_options):
# a gcloud command's, or an SDK job's; each is refused where the notebook's job does not use it.
_GCLOUD_TAKES = ("cell", "staging_bucket", "stack")
_SDK_TAKES = ("cell", "name", "staging_bucket")
TAKES: tuple[str, ...] = tuple(dict.fromkeys(_GCLOUD_TAKES + _SDK_TAKES))


def run(raw: bytes, shown: str, path: Path, args: argparse.Namespace) -> int:
    from provider.cli.convert_shell_runs import convert_run, training
    from provider.cli.convert_sources import refuse_options
    from provider.gcloud.notebook_file import commands, read_cells
    from provider.pysdk.builders import builders
    from provider.pysdk.shell_runs import shell_runs

    cells = read_cells(raw, shown)
    code = [(f"cell {c.number}", c.text) for c in cells if c.kind == "code"]
    bang = {c.cell.number for cell in cells for c in commands(cell)}
    found = shell_runs(code, shown, cells=True)  # subprocess.run([...gcloud...]) in a code cell
    runs, passed = training(found), training(found, skipped=True)  # passed: in a branch not taken
    gcloud = sorted(bang | {int(run.label.removeprefix("cell ")) for run in runs})
    sdk = builders(code)
    pick = getattr(args, "cell", None)
    if sdk and (not gcloud if pick is None else pick not in gcloud and 1 <= pick <= len(cells)):
        refuse_options(args, _SDK_TAKES)
        return _sdk(code, shown, path, args, pick)
    if sdk and gcloud and pick is None:
        raise UserError(f"{shown}: the notebook submits a training job with gcloud (cell "
                        f"{', cell '.join(map(str, gcloud))}) and builds one with the Vertex AI SDK ("
                        + "; ".join(f"{label}: {what}" for label, what in sdk.items())
                        + "); give the cell to convert with --cell N", exit_code=1)
    refuse_options(args, _GCLOUD_TAKES)
    picked = [run for run in runs if pick is None or run.label == f"cell {pick}"]
    if picked:
        _only_python(picked, bang, shown, pick)
        return convert_run(picked, shown, args, passed)
    return _bang(cells, code, passed, bang, shown, path, args)


def _bang(cells: list[Cell], code: list[tuple[str, str]], passed: list[ShellRun], bang: set[int], shown: str,
          path: Path, args: argparse.Namespace) -> int:
    """The ! line or %%bash cell's command (_gcloud); in a notebook with none, that runs no training command and
    builds no SDK job where it can be read: UserError naming each gcloud call in a branch not taken, with why, or
    an SDK job there read by the SDK reader, which names it (else the gcloud reader says what the notebook holds)."""
    from provider.cli.convert_shell_runs import refuse_passed
    from provider.pysdk.builders import builders
    from provider.pysdk.kfp import steps_in

    if not bang and getattr(args, "cell", None) is None:
        refuse_passed(passed, shown, "notebook")
        if builders(code, skipped=True) or steps_in(code):  # the SDK reader names them (or Kubeflow's steps)
            return _sdk(code, shown, path, args, None)
    return _gcloud(cells, shown, args)


def _only_python(picked: list[ShellRun], bang: set[int], shown: str, pick: int | None) -> None:
    """UserError where a ! line or %%bash cell also runs a training command (in the cell picked, or anywhere)."""
    if bang if pick is None else pick in bang:
        raise UserError(f"{shown}: gcloud training commands in ! lines or %%bash cells (cell "
                        f"{', cell '.join(map(str, sorted(bang)))}) and in Python calls ("
                        + "; ".join(run.where for run in picked) + "); allowed: "
                        + ("one per cell" if pick else "give the cell to convert with --cell N"), exit_code=1)


def _sdk(code: list[tuple[str, str]], shown: str, path: Path, args: argparse.Namespace, pick: int | None) -> int:
    from provider.cli.convert_python import convert_sdk
    from provider.document.python_values import statements

    trees: dict[str, ast.Module] = {}
    for where, stmt, _ in statements(code, api_enums.member):
        trees.setdefault(f"{shown} {where.label}", ast.Module([], [])).body.append(stmt)
    return convert_sdk(code, shown, path, args, list(trees.items()), cells=True,
                       pick=None if pick is None else f"cell {pick}")


def _gcloud(cells: list[Cell], shown: str, args: argparse.Namespace) -> int:
    from provider.cli.convert_shell_runs import run_with_environment
    from provider.document import python_taken
    from provider.gcloud.notebook_expand import expand, expand_placed, keep_secrets_out
    from provider.gcloud.notebook_file import blocks, chosen

    command = chosen(cells, shown, getattr(args, "cell", None))
    origin = f"{shown} cell {command.cell.number}, line {command.line}"
    scope, args.gcloud_notes = blocks(cells, command, shown)
    if command.bash:  # the magic's words as IPython expands and splits them, $1... as bash expands them
        from provider.gcloud.notebook_magic import read

        def words(line: str, at: int) -> str:
            lines = command.text[:at].split("\n")
            expanded, replaced = expand(line, scope, lambda i: f"{shown} cell {command.cell.number}, line "
                                                               f"{len(lines)}, column {len(lines[-1]) + i + 1}")
            keep_secrets_out(expanded, scope, origin)
            if replaced:
                args.gcloud_notes.append("the %%bash line as IPython expands it with the notebook's Python values "
                                         f"(read, never run): {', '.join(replaced)}")
            return expanded

        made, notes = read(command.text, words, f"{shown} cell {command.cell.number}")
        args.gcloud, pad = made.text, 0
        args.gcloud_notes += notes
    else:
        made, replaced = expand_placed(command.text, scope, lambda i: f"{shown} {command.place(i)}")
        keep_secrets_out(made.text, scope, origin)
        pad = command.starts[0][2] - 1
        args.gcloud = " " * pad + made.text  # columns of the first line stay the cell's
        if replaced:
            args.gcloud_notes.append("the ! line as IPython expands it with the notebook's Python values (read, never "
                                     f"run): {', '.join(replaced)}")
    args.gcloud_origin = origin
    written = [made.text, *(v for v in scope.environ_set().values() if isinstance(v, str))]  # $NAME: %env's
    args.gcloud_notes += python_taken.notes(scope.taken(), "\n".join(written), lambda where: f"{shown} {where}")
    # where character i of the line read is in the cell as written (a $1 or {expr} before it, replaced, moves none)
    args.gcloud_at = lambda i: f"{shown} {command.place(made.written(max(i - pad, 0)))}"
    return run_with_environment(args, scope, origin, "the notebook")
