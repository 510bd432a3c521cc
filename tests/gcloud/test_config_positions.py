"""Problems in a ``--config`` file read by ``convert --gcloud`` carry that file's name, line and column.

The config is read by the document layer, and the TrainingJob made from the command embeds the
config's own mappings, so a problem in a value from the config is reported at
``config.yaml:LINE:COLUMN`` as a problem in a spec is; a problem in a flag's value names the command.
"""

from __future__ import annotations

from pathlib import Path

from ..conftest import no_traceback, run_cli

AIP = ("gcloud ai-platform jobs submit training j1 --region us-central1 --config config.yaml --package-path trainer "
       "--module-name trainer.task --job-dir gs://my-bucket/j1 --runtime-version 2.11 --python-version 3.7")
VERTEX = "gcloud ai custom-jobs create --region us-central1 --display-name d --config config.yaml"


def _trainer(where: Path) -> None:
    (where / "trainer").mkdir()
    (where / "trainer" / "__init__.py").write_text("")
    (where / "trainer" / "task.py").write_text("print('hello')\n")


def _convert(tmp_path: Path, line: str, config: str) -> str:
    _trainer(tmp_path)
    (tmp_path / "config.yaml").write_text(config)
    proc = run_cli("convert", "--gcloud", line, cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    return proc.stderr


def test_an_ai_platform_config_problem_is_at_its_line(tmp_path: Path) -> None:
    out = _convert(tmp_path, AIP + " --master-machine-type n1-standard-4x",
                   "trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-4\n  workerCount: 2\n")
    assert "config.yaml:4:16: error: workerCount is 2 but workerType is not set" in out
    assert "at spec.trainingInput.workerCount" in out
    # the flag's value has no line: it is the command's
    assert "<gcloud command> --config config.yaml: error: 'n1-standard-4x' is not allowed" in out


def test_a_vertex_config_problem_is_at_its_line(tmp_path: Path) -> None:
    out = _convert(tmp_path, VERTEX, "workerPoolSpecs:\n  - machineSpec:\n      machineType: n1-standard-4\n"
                   "      acceleratorType: NVIDIA_TESLA_T4\n      acceleratorCount: 3\n    replicaCount: 1\n"
                   "    containerSpec: {imageUri: gcr.io/p/i}\n")
    assert "config.yaml:5:25: error: 3 x NVIDIA_TESLA_T4 is not a valid count on n1-standard-4" in out


def test_a_config_that_is_not_yaml_is_reported_at_its_line(tmp_path: Path) -> None:
    out = _convert(tmp_path, VERTEX, "workerPoolSpecs:\n\t- x\n")
    assert "config.yaml:2:1: error: a tab character is used for indentation" in out
    (tmp_path / "dup").mkdir()
    out = _convert(tmp_path / "dup", AIP, "trainingInput:\n  scaleTier: CUSTOM\n  scaleTier: BASIC\n")
    assert "config.yaml:3:3: error: duplicate key 'scaleTier' (first defined at line 2)" in out


_MACHINE = ("workerPoolSpecs:\n  - replicaCount: 1\n    machineSpec: {machineType: n1-standard-5}\n"
            "    containerSpec: {imageUri: gcr.io/p/i}\n")
_CELL = "gcloud ai custom-jobs create --region=us-central1 --display-name=j --config=config.yaml"


def _reached(tmp_path: Path, name: str, text: str) -> str:
    (tmp_path / "config.yaml").write_text(_MACHINE)
    (tmp_path / name).write_text(text)
    proc = run_cli("convert", name, cwd=tmp_path)
    no_traceback(proc)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    return proc.stderr


def test_a_config_problem_says_where_the_config_was_named(tmp_path: Path) -> None:
    """A problem of a --config file read through a notebook, a script or a Makefile is at the config's line and
    column, and names, on the next line, where the command names the config (the cell, line and column; the
    script's or Makefile's line and column); a command given with --gcloud says nothing more."""
    import json

    error = "config.yaml:3:32: error: 'n1-standard-5' is not allowed for machineType\n"
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": s}
             for s in ("R = 'us-central1'", "x = 1\n!" + _CELL.replace("=us-central1", "={R}"))]
    notebook = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells})
    column = cells[1]["source"].split("\n")[1].index("--config") + 1  # after {R}, which the value is longer than
    assert f"{error}    read by --config at nb.ipynb cell 2, line 2, column {column}\n" in _reached(
        tmp_path, "nb.ipynb", notebook)
    script = f"#!/bin/bash\nset -e\n\n{_CELL}\n"
    assert f"{error}    read by --config at run.sh:4:{_CELL.index('--config') + 1}\n" in _reached(
        tmp_path, "run.sh", script)
    recipe = "train:\n\tgcloud ai custom-jobs create --region=us-central1 \\\n\t  --display-name=j --config=config.yaml\n"
    assert f"{error}    read by --config at Makefile:3:21\n" in _reached(tmp_path, "Makefile", recipe)
    (tmp_path / "bad.yaml").write_text("workerPoolSpecs: [\n")
    bash = '%%bash -s "us-central1"\ngcloud ai custom-jobs create --region=$1 --display-name=j \\\n  --config bad.yaml'
    cells[1]["source"] = bash
    out = _reached(tmp_path, "nb.ipynb", json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}))
    assert "bad.yaml:2:1: error: YAML syntax error" in out and "read by --config at nb.ipynb cell 2, line 3, column 3\n" in out
    proc = run_cli("convert", "--gcloud", _CELL, cwd=tmp_path)
    assert proc.returncode == 1 and error in proc.stderr and "read by" not in proc.stderr
