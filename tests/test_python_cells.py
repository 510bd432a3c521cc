"""provider.document.python_cells finds a cell's IPython lines (``!cmd``, ``%magic``, ``x = !cmd``) where IPython does:
at the start of a logical line only, never inside brackets or a string, the cell read again after each one.

The oracle is IPython itself (TransformerManager().transform_cell, run by a python that has IPython: the one running
these tests does not ship it): the commands and magics it makes of each cell must be the ones trainjobs reads, and
the notebook reader takes a training command only from such a line.
"""

from __future__ import annotations

import ast
import json
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
]


def _ipython() -> str | None:
    return ipython_python("IPython.core.inputtransformer2")


_PROGRAM = """import ast, json, sys
from IPython.core.inputtransformer2 import TransformerManager
out = []
for cell in json.loads(sys.argv[1]):
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
            written = str(node.args[0].value)  # type: ignore[attr-defined]
            kind = "!" if node.func.id == SHELL else "%"
            found.append((node.lineno, [kind, written.lstrip("!%").strip() if kind == "%" else written.lstrip("!")]))
    return [f for _, f in sorted(found, key=lambda f: f[0])]


def test_ipython_lines_are_the_ones_ipython_finds() -> None:
    python = _ipython()
    if python is None:
        pytest.skip("no python with IPython installed: the oracle needs IPython's input transformer")
    proc = subprocess.run([python, "-c", _PROGRAM, json.dumps(CELLS)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    for cell, theirs in zip(CELLS, json.loads(proc.stdout), strict=True):
        ours = [[kind, text.strip()] for kind, text in _ours(cell)]
        assert ours == [[kind, text.strip()] for kind, text in theirs], cell


def test_rows_are_where_the_lines_are() -> None:
    assert escape_rows(CELLS[0]) == [5]
    assert escape_rows(CELLS[2]) == [3]
    assert escape_rows("x = (\n!echo (\n)\n") == []  # inside a bracket: IPython reads no command either
    assert escape_rows(CELLS[3]) == [0, 1, 2]


def test_a_command_in_a_string_is_not_the_notebooks(tmp_path: Path) -> None:
    """A training command quoted in a cell's string (help text) runs nothing: the notebook submits no job."""
    cell = ("HELP = '''\n!gcloud ai custom-jobs create --region=us-central1 --display-name=j "
            "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i:1\n'''\nprint(HELP)\n")
    notebook = tmp_path / "nb.ipynb"
    notebook.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": cell}]}))
    proc = run_cli("convert", str(notebook))
    assert proc.returncode == 1 and "no cell submits a training job with gcloud" in proc.stderr, proc.stderr
