"""provider.document.python_cells finds a cell's IPython lines (``!cmd``, ``%magic``, ``x = !cmd``) where IPython does:
at the start of a logical line only, never inside brackets or a string, the cell read again after each one.

The oracle is IPython itself (TransformerManager().transform_cell, run by a python that has IPython: the one running
these tests does not ship it): the commands and magics it makes of each cell must be the ones trainjobs reads, and
the notebook reader takes a training command only from such a line.
"""

from __future__ import annotations

import ast
import json
import random
import subprocess
from pathlib import Path

import pytest

from provider.document.python_cells import MAGIC, SHELL, escape_rows, python_text
from tests.conftest import ipython_python, run_cli

CELLS = [
    # Model Garden notebooks: a `% (...)` continuing a raise's message inside brackets is Python's modulo
    'if region != REGION:\n    raise ValueError(\n        "Bucket region %s is different from %s"\n'
    '        % (region, REGION)\n    )\n! gsutil ls\n',
    'if a:\n    out = ! gsutil ls -Lb {B} | grep "Location constraint:" | sed "s/Location constraint://"\n% (3)\n',
    "HELP = '''\n!gcloud ai custom-jobs create --region=r\n'''\n!echo {HELP}\n",  # a string's line runs nothing
    "!echo (\n!echo b\n%env A=1\n",  # once a line is a command, its bracket is part of a string
    "a, b = !ls\nc = %pwd\nif c:\n    %time x = 1\n",
    "d = {\n  'k': 1,\n}\n!!uname\n# !not a command\n",
    "if a:\n    if b:\n        !echo 1\n        x = 1\n    !echo 2\n\t\n!echo 3",  # a dedent after a ! line
    "    !echo 1\n    x = (1\n%2\n)\n    !ls \\\n",  # a block pasted: IPython takes its indentation off
]


def _ipython() -> str | None:
    return ipython_python("IPython.core.inputtransformer2")


_PROGRAM = """import ast, json, sys
from IPython.core.inputtransformer2 import TransformerManager
out = []
for cell in json.loads(sys.stdin.read()):
    found = []
    for node in ast.walk(ast.parse(TransformerManager().transform_cell(cell))):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") in ("system", "getoutput"):
            found.append(["!", node.args[0].value, node.lineno])
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "run_line_magic":
            found.append(["%", (node.args[0].value + " " + node.args[1].value).strip(), node.lineno])
    out.append([f[:2] for f in sorted(found, key=lambda f: f[2])])
print(json.dumps(out))
"""


def _ours(cell: str) -> list[list[str]]:
    found: list[tuple[int, list[str]]] = []
    text = python_text(cell)
    assert text is not None
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (SHELL, MAGIC):
            parts = str(node.args[0].value).split("\n")  # type: ignore[attr-defined]
            written = " ".join([p.rstrip()[:-1] for p in parts[:-1]] + [parts[-1].rstrip()])  # as IPython joins them
            kind = "!" if node.func.id == SHELL else "%"
            found.append((node.lineno, [kind, written.lstrip("!%").strip() if kind == "%" else written.lstrip("!")]))
    return [f for _, f in sorted(found, key=lambda f: f[0])]


def test_ipython_lines_are_the_ones_ipython_finds() -> None:
    python = _ipython()
    if python is None:
        pytest.skip("no python with IPython installed: the oracle needs IPython's input transformer")
    proc = subprocess.run([python, "-c", _PROGRAM], input=json.dumps(CELLS), capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    for cell, theirs in zip(CELLS, json.loads(proc.stdout), strict=True):
        ours = [[kind, text.strip()] for kind, text in _ours(cell)]
        assert ours == [[kind, text.strip()] for kind, text in theirs], cell


def test_rows_are_where_the_lines_are() -> None:
    assert escape_rows(CELLS[0]) == [5]
    assert escape_rows(CELLS[2]) == [3]
    assert escape_rows("x = (\n!echo (\n)\n") == []  # inside a bracket: IPython reads no command either
    assert escape_rows(CELLS[3]) == [0, 1, 2]
    # the reading after `!echo 1` goes on inside both blocks: the dedent to the outer one is not an error
    assert escape_rows(CELLS[6]) == [2, 4, 6]
    assert escape_rows(CELLS[7]) == [0, 4]  # `%2` is Python's modulo inside the bracket


def test_a_command_in_a_string_is_not_the_notebooks(tmp_path: Path) -> None:
    """A training command quoted in a cell's string (help text) runs nothing: the notebook submits no job."""
    cell = ("HELP = '''\n!gcloud ai custom-jobs create --region=us-central1 --display-name=j "
            "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i:1\n'''\nprint(HELP)\n")
    notebook = tmp_path / "nb.ipynb"
    notebook.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": cell}]}))
    proc = run_cli("convert", str(notebook))
    assert proc.returncode == 1 and "no cell submits a training job with gcloud" in proc.stderr, proc.stderr


_PIECES = ["if a:", "for i in x:", "else:", "pass", "!echo (", "!ls -l \\", "  --long", "x = !ls", "a, b = %pwd",
           "%env A=1", "y = (", ")", "d = {", "}", "s = '''", "'''", "!echo b", "% (3)", "!gcloud ai custom-jobs list",
           "# !comment", "", "z = 1 + \\", "2", "print(s)"]


def _drawn_cells(count: int) -> list[str]:
    """Cells drawn from the pieces notebooks are made of, each line at an indentation of 0, 4 or 8 spaces (or a tab):
    blocks, brackets and strings opened and closed across IPython lines."""
    draw = random.Random(29)
    cells = []
    for _ in range(count):
        lines = [draw.choice(["", "    ", "        ", "\t"]) + draw.choice(_PIECES) for _ in range(draw.randint(2, 9))]
        cells.append("\n".join(lines) + "\n")
    return cells


def test_drawn_cells_read_as_ipython_reads_them() -> None:
    """Indented IPython lines, dedents after them, brackets and strings across them: IPython's reading of each drawn
    cell it can read (its output parses), compared with ours. The reading goes on after each IPython line with the
    indentation open there, so the levels set up again must be IPython's."""
    python = _ipython()
    if python is None:
        pytest.skip("no python with IPython installed: the oracle needs IPython's input transformer")
    program = _PROGRAM.replace("for node in ast.walk(ast.parse(TransformerManager().transform_cell(cell))):",
                               "try:\n        tree = ast.parse(TransformerManager().transform_cell(cell))\n"
                               "    except SyntaxError:\n        out.append(None)\n        continue\n"
                               "    for node in ast.walk(tree):")
    cells = _drawn_cells(2000)
    proc = subprocess.run([python, "-c", program], input=json.dumps(cells), capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    compared = 0
    for cell, theirs in zip(cells, json.loads(proc.stdout), strict=True):
        if theirs is None:
            continue
        compared += 1
        ours = [[kind, text.strip()] for kind, text in _ours(cell)]
        assert ours == [[kind, text.strip()] for kind, text in theirs], cell
    assert compared >= 100, compared  # the drawing must give cells IPython reads, or this compares nothing


def test_escape_rows_costs_about_one_reading_per_line() -> None:
    """Each reading goes on after the IPython line it placed (it used to read the whole cell again): a cell of 3,000
    `!` lines, indented in a block, has every row found, the last one too."""
    cell = "if True:\n" + "".join(f"    !echo {i}\n" for i in range(3000)) + "x = 1\n!ls\n"
    rows = escape_rows(cell)
    assert rows == [*range(1, 3001), 3002]
