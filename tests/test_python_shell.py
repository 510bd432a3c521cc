"""provider.document.python_shell: a notebook's ``x = !gcloud config get-value project`` (Google's notebooks:
``shell_output = ! gcloud config list --format 'value(core.project)' 2>/dev/null``) binds what gcloud prints, read as a
script's ``$(gcloud config get-value project)`` is: from the variable of the environment gcloud reads first.

The oracle is IPython itself running each cell with the real installed gcloud (its own empty configuration), and
the value each name gets must equal the reader's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from provider.document.python_values import Unknown, scope_after

from .conftest import ipython_python

CELLS = [
    "shell_output = ! gcloud config list --format 'value(core.project)' 2>/dev/null\nPROJECT_ID = shell_output[0]",
    "P = !gcloud config get-value project\nQ = !gcloud config get project\nPROJECT = P[0]",
    '%env CLOUDSDK_AI_REGION=nb-region\nR = %sx gcloud config get-value ai/region\nREGION = R[0]',
    'import os\nos.environ["CLOUDSDK_CORE_PROJECT"] = "set-here"\nS = !gcloud config list project --format="value(core.project)"',
    "C = !gcloud config get-value compute/region 2>/dev/null\nB = f'gs://{C[0]}-bucket'",
]
ENVIRONMENT = {"CLOUDSDK_CORE_PROJECT": "env-project", "CLOUDSDK_COMPUTE_REGION": "europe-west4"}


def _ipython(cell: str, tmp_path: Path) -> dict[str, object]:
    python, gcloud = ipython_python(), shutil.which("gcloud")
    if python is None or gcloud is None:
        pytest.skip("no python with IPython, or no gcloud: the oracle is IPython running the real gcloud")
    (tmp_path / "config").mkdir(exist_ok=True)
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "CLOUDSDK_CONFIG": str(tmp_path / "config"),
           "CLOUDSDK_CORE_DISABLE_PROMPTS": "1", **ENVIRONMENT}
    program = ("import json, sys\nfrom IPython.core.interactiveshell import InteractiveShell\n"
               "shell = InteractiveShell.instance()\nshell.run_cell(sys.argv[1])\n"
               "print(json.dumps({k: (list(v) if isinstance(v, list) else v) for k, v in shell.user_ns.items() "
               "if (k[:1].isupper() and k not in ('In', 'Out')) or k == 'shell_output'}))\n")
    done = subprocess.run([python, "-c", program, cell], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=180)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


@pytest.mark.parametrize("cell", CELLS)
def test_agrees_with_ipython_running_gcloud(cell: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    theirs = _ipython(cell, tmp_path)
    for name, value in ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("CLOUDSDK_AI_REGION", raising=False)
    scope = scope_after([("cell 1", cell)])
    ours = {name: scope.get(name) for name in theirs}
    assert ours == theirs


def test_without_the_variable_the_machine_configuration_is_not_known(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLOUDSDK_CORE_PROJECT", raising=False)
    value = scope_after([("cell 2", CELLS[0])]).get("PROJECT_ID")
    assert isinstance(value, Unknown)
    assert value.why == (
        "PROJECT_ID is set from shell_output at cell 2, line 2; shell_output is set from a shell command's output: "
        "gcloud config list --format 'value(core.project)' prints the core/project property of the gcloud "
        "configuration of the machine that runs the notebook, which is not known here; give it: "
        "CLOUDSDK_CORE_PROJECT=VALUE in the environment of trainjobs convert (gcloud reads the property from it "
        "first) at cell 2, line 1")
    monkeypatch.setenv("CLOUDSDK_CORE_PROJECT", "")
    empty = scope_after([("cell 2", CELLS[0])]).get("PROJECT_ID")
    assert isinstance(empty, Unknown) and "$CLOUDSDK_CORE_PROJECT is empty" in empty.why


@pytest.mark.parametrize("line", [
    "X = !gcloud config get-value account", "X = !gcloud config get-value project | tr a-z A-Z",
    "X = !gcloud config get-value $WHAT", "X = !gcloud config get-value {what}", "X = !echo p",
    "X = !gcloud config get-value 'project", "X = !gcloud config list --format json",
])
def test_any_other_output_is_not_known(line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLOUDSDK_CORE_PROJECT", "env-project")
    value = scope_after([("cell 1", line)]).get("X")
    assert isinstance(value, Unknown) and value.why.startswith("X is set from a shell command's output at"), value


def test_a_notebook_converts_with_the_project_noted(tmp_path: Path) -> None:
    import sys

    from .conftest import ROOT

    cells = ['PROJECT_ID = "[your-project-id]"  # @param {type:"string"}',
             'if PROJECT_ID == "[your-project-id]":\n    shell_output = ! gcloud config list --format '
             "'value(core.project)' 2>/dev/null\n    PROJECT_ID = shell_output[0]",
             "from google.cloud import aiplatform\naiplatform.init(project=PROJECT_ID, location='us-central1', "
             "staging_bucket=f'gs://{PROJECT_ID}-b')\njob = aiplatform.CustomJob(display_name='j', worker_pool_specs=["
             "{'machine_spec': {'machine_type': 'n1-standard-4'}, 'replica_count': 1, 'container_spec': {'image_uri': "
             "f'gcr.io/{PROJECT_ID}/t:1'}}])\njob.run()"]
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None} for c in cells]}
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook))
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT), "CLOUDSDK_CORE_PROJECT": "env-project"}
    done = subprocess.run([sys.executable, "-m", "provider", "convert", "nb.ipynb"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "image: gcr.io/env-project/t:1" in done.stdout
    assert ("# note: ! gcloud config list --format 'value(core.project)' 2>/dev/null at nb.ipynb cell 2, line 2: the "
            "core/project property of gcloud's configuration, written as 'env-project', from $CLOUDSDK_CORE_PROJECT "
            "(gcloud reads it first)") in done.stdout
    del env["CLOUDSDK_CORE_PROJECT"]
    refused = subprocess.run([sys.executable, "-m", "provider", "convert", "nb.ipynb"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1 and "give it: CLOUDSDK_CORE_PROJECT=VALUE in the environment" in refused.stderr


SCRIPTS = [
    'import subprocess\nPROJECT = subprocess.check_output(["gcloud", "config", "get-value", "project"], text=True).strip()',
    'import subprocess\nR = subprocess.check_output("gcloud config get-value compute/region 2>/dev/null", shell=True)\n'
    'REGION = R.decode("utf-8").strip()',
    'from subprocess import getoutput\nP = getoutput("gcloud config get-value project")\nB = f"gs://{P}-bucket"',
    'import subprocess\nP = subprocess.check_output(args=["gcloud", "config", "list", "--format", "value(core.project)"],'
    ' stderr=subprocess.DEVNULL, encoding="utf-8")',
]


@pytest.mark.parametrize("code", SCRIPTS)
def test_agrees_with_python_running_gcloud(code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The script run by Python with the real gcloud (its own empty configuration), every name's value compared."""
    import sys

    if shutil.which("gcloud") is None:
        pytest.skip("no gcloud: the oracle runs it")
    (tmp_path / "config").mkdir()
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "CLOUDSDK_CONFIG": str(tmp_path / "config"),
           "CLOUDSDK_CORE_DISABLE_PROMPTS": "1", **ENVIRONMENT}
    program = (code + "\nimport json\nprint(json.dumps({k: (v.decode() + ' (bytes)' if isinstance(v, bytes) else v) "
               "for k, v in dict(globals()).items() if k[:1].isupper()}))\n")
    done = subprocess.run([sys.executable, "-c", program], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=180)
    assert done.returncode == 0, done.stderr
    theirs = json.loads(done.stdout.splitlines()[-1])
    for name, value in ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    scope = scope_after([("train.py", code)])
    ours = {name: scope.get(name) for name in theirs}
    assert {k: (v.decode() + " (bytes)" if isinstance(v, bytes) else v) for k, v in ours.items()} == theirs


@pytest.mark.parametrize(("code", "why"), [
    ('import subprocess\nX = subprocess.check_output("gcloud config get-value project")', "a command's output"),
    ('import subprocess\nX = subprocess.check_output(["gcloud", "config", "get-value", "project"], cwd="/")',
     "a command's output (subprocess.check_output() with cwd)"),
    ('import subprocess\nX = subprocess.check_output(["gcloud", "config", "get-value", "account"])', "a command's output"),
    ('import subprocess\nX = subprocess.run(["gcloud", "config", "get-value", "project"]).stdout', "a command's output"),
])
def test_any_other_subprocess_output_is_not_known(code: str, why: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLOUDSDK_CORE_PROJECT", "env-project")
    value = scope_after([("train.py", code)]).get("X")
    assert isinstance(value, Unknown) and f"X is set from {why}" in value.why, value
