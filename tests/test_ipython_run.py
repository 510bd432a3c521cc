"""A notebook's ``%%writefile`` cells and ``%run`` lines (provider/document/ipython_run.py), read as IPython runs them.

The oracle is IPython itself: each notebook's cells run in a real InteractiveShell (a python that has IPython; the
one running these tests does not ship it), in a folder holding the files the case puts beside the notebook. Every
value trainjobs says it knows after the cells must be the one IPython's namespace holds; a name IPython's %run may
set, where trainjobs cannot read what it sets, must be Unknown, never the value before the line.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from provider.document.python_modules import beside
from provider.document.python_unknown import Unknown
from provider.document.python_values import scope_after
from tests.conftest import ipython_python, run_cli

_PROGRAM = """import json, sys
from IPython.core.interactiveshell import InteractiveShell
cells, names = json.loads(sys.stdin.read())
shell = InteractiveShell.instance()
for cell in cells:
    shell.run_cell(cell, store_history=False)
print("\\n" + json.dumps({n: shell.user_ns[n] for n in names if n in shell.user_ns}))
"""

# name -> (files beside the notebook, cells, {name: value trainjobs must know (IPython's), or None: Unknown})
CASES: dict[str, tuple[dict[str, str], list[str], dict[str, object]]] = {
    "run_a_file_beside": ({"config.py": 'REGION = "europe-west4"\nARGS = ["--epochs", "3"]\n'
                                        'if __name__ == "__main__":\n    MAIN = True\n'},
                          ['REGION = "us-central1"\nKEEP = 1', "%run config.py"],
                          {"REGION": "europe-west4", "ARGS": ["--epochs", "3"], "MAIN": True, "KEEP": 1}),
    "run_without_its_suffix_and_n": ({"setup_vars.py": 'NAME_IS = __name__\nBUCKET = "gs://b"\n'},
                                     ["%run -n setup_vars"], {"NAME_IS": "setup_vars", "BUCKET": "gs://b"}),
    "run_i_sees_the_notebook": ({"derive.py": 'IMAGE = f"gcr.io/{PROJECT}/train:1"\n'},
                                ['PROJECT = "p1"', "%run -i derive.py"], {"IMAGE": "gcr.io/p1/train:1"}),
    "writefile_then_run_with_arguments": (
        {}, ['APP = "trainer"\nimport os\nos.makedirs(APP, exist_ok=True)', "%%writefile {APP}/task.py\nimport sys\nEPOCHS = int(sys.argv[2])\nREGION = 'x'\n",
             'REGION = "us-central1"\nOTHER = 2', "%run trainer/task.py --epochs 5"],
        {"EPOCHS": None, "REGION": None, "OTHER": 2}),
    "writefile_then_import": ({}, ["%%writefile settings.py\nMACHINE = 'n1-standard-8'\n",
                                  "from settings import MACHINE\nimport settings\nM2 = settings.MACHINE"],
                              {"MACHINE": "n1-standard-8", "M2": "n1-standard-8"}),
    "run_module_m": ({"pkg/__init__.py": "", "pkg/cfg.py": "ZONE = 'us-central1-a'\nNAME_IS = __name__\n"},
                     ["%run -m pkg.cfg"], {"ZONE": "us-central1-a", "NAME_IS": "__main__"}),
    # the path the cell writes is not known here (the oracle knows it: src): the older file on disk is not what the
    # import reads, so the value is not known, never the stale one
    "writefile_to_an_unknown_path_then_import": (
        {"src/config.py": "MACHINE = 'n1-standard-4'\n"},
        ["import random\nSRC = 'src' if random.random() < 2 else 'other'",
         "%%writefile {SRC}/config.py\nMACHINE = 'a2-highgpu-1g'\n", "from src.config import MACHINE\nKEEP = 3"],
        {"MACHINE": None, "KEEP": 3}),
    "writefile_append": ({}, ["%%writefile -a cfg.py\nA = 1\n", "%%writefile -a cfg.py\nB = A + 1\n", "%run cfg.py"],
                         {"A": 1, "B": 2}),
}


def _ipython() -> str | None:
    return ipython_python("IPython.core.interactiveshell")


def _files(folder: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text, encoding="utf-8")


def _ours(folder: Path, cells: list[str]) -> dict[str, object]:
    with beside(folder):
        scope = scope_after([(f"cell {n}", c) for n, c in enumerate(cells, 1)])
    return {name: scope.get(name) for name in scope._values}


@pytest.mark.parametrize("name", sorted(CASES))
def test_names_after_the_cells_are_ipythons(name: str, tmp_path: Path) -> None:
    python = _ipython()
    if python is None:
        pytest.skip("no python with IPython installed: the oracle is IPython's own %run")
    files, cells, expected = CASES[name]
    ours_dir, theirs_dir = tmp_path / "ours", tmp_path / "theirs"
    for folder in (ours_dir, theirs_dir):
        folder.mkdir()
        _files(folder, files)
    proc = subprocess.run([python, "-c", _PROGRAM], input=json.dumps([cells, sorted(expected)]), cwd=theirs_dir,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])  # after what the cells print ("Writing task.py")
    ours = _ours(ours_dir, cells)
    for variable, value in expected.items():
        if value is None:  # the oracle ran it; trainjobs cannot know it, and must say so
            assert isinstance(ours.get(variable), Unknown), (variable, ours.get(variable))
            assert variable in theirs
        else:
            assert theirs[variable] == value, (variable, theirs)
            assert ours.get(variable) == value, (variable, ours.get(variable))


def test_a_run_whose_file_is_not_there_leaves_every_variable_unknown(tmp_path: Path) -> None:
    ours = _ours(tmp_path, ['REGION = "us-central1"\nimport os', "%run common/settings.py"])
    region = ours["REGION"]
    assert isinstance(region, Unknown) and "%run common/settings.py" in region.why and "not read" in region.why
    ours = _ours(tmp_path, ['REGION = "us-central1"', "if os.environ.get('X'):\n    %run settings.py\n"])
    assert isinstance(ours["REGION"], Unknown) and "may not run" in ours["REGION"].why


def test_a_notebook_whose_run_file_is_missing_is_refused_by_that_line(tmp_path: Path) -> None:
    """The job's region was the notebook's own literal, but the %run before the job may set it again: refused,
    naming the %run line and its file, never converted with the value before it."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "notebooks").mkdir()
    cells = ['REGION = "us-central1"', "%run ../shared/overrides.py",
             '!gcloud ai custom-jobs create --region={REGION} --display-name=nb '
             '--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i:1']
    notebook = repo / "notebooks" / "nb.ipynb"
    notebook.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": c} for c in cells]}))
    proc = run_cli("convert", str(notebook), "--output", "request")
    assert proc.returncode != 0 and "%run ../shared/overrides.py" in proc.stderr, proc.stderr
    assert "No such file" in proc.stderr, proc.stderr
    (repo / "shared").mkdir()
    (repo / "shared" / "overrides.py").write_text('REGION = "asia-east1"\n', encoding="utf-8")
    proc = run_cli("convert", str(notebook), "--output", "request")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["parent"].endswith("/locations/asia-east1")
