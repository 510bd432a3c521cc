"""A notebook that launches its job with the Vertex AI SDK, converted through ``python -m provider convert NB.ipynb
[--cell N] --output request``, sends what the SDK itself sends when the notebook's code cells run
(tests/pysdk/sdk_oracle.py: the real SDK, its request recorded, never sent).

The oracle runs the code cells each case names, in order, as one Python file: IPython's lines become calls of
stand-ins that do nothing (``!cmd`` gives an empty list), as the notebooks' SDK jobs read no shell output; a
``%%bash`` or ``%%writefile`` cell is left out, as IPython runs none of it as Python. The cells named leave out
the notebook's other job (the SDK would send that one first). convert runs where the ``%%writefile`` cells' files
are written, as the notebook writes them (a CustomTrainingJob's script, which trainjobs packages)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from provider.document.python_cells import MAGIC, SHELL, python_text

from .sdk_oracle import comparable, sdk_request
from .test_corpus import ROOT, convert

HERE = Path(__file__).parent / "notebooks"
NOTEBOOKS = sorted(HERE.glob("*.ipynb"))
# (notebook, --cell or None, the code cells the oracle runs)
CASES = [("taxifare_sdk_known.ipynb", 4, (1, 2, 4)),
         ("taxifare_sdk_known.ipynb", 6, (1, 2, 5, 6)),
         ("container_registry_sdk.ipynb", None, tuple(range(1, 17))),
         ("hpt_xgboost_sdk.ipynb", None, tuple(range(1, 17))),
         ("pytorch_gcs_script_training.ipynb", None, (2, 3, 4, 5, 6, 7, 8, 11))]
# A notebook whose job packages a script (CustomTrainingJob): the module trainjobs runs, its package set aside
_SCRIPTS = {"pytorch_gcs_script_training.ipynb": "task"}


def _cells(path: Path) -> list[dict[str, Any]]:
    cells: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return cells


def _program(path: Path, numbers: tuple[int, ...], into: Path) -> Path:
    """The notebook's code cells ``numbers`` as one Python file, IPython's lines as calls of do-nothing stand-ins."""
    parts = [f"def {SHELL}(line):\n    return []\n\n\ndef {MAGIC}(line):\n    return None\n"]
    for number, cell in enumerate(_cells(path), 1):
        if number in numbers and cell["cell_type"] == "code":
            text = python_text("".join(cell["source"]))
            if text is not None:
                ast.parse(text)  # the cell is Python once its IPython lines are stand-ins
                parts.append(text)
    program = into / f"{path.stem}.py"
    program.write_text("\n\n".join(parts) + "\n", encoding="utf-8")
    return program


def _written(path: Path, into: Path) -> None:
    """What the notebook's ``%%writefile FILE`` cells write when it runs (the script its job packages), into ``into``,
    where convert runs."""
    for cell in _cells(path):
        text = "".join(cell["source"])
        if cell["cell_type"] == "code" and text.startswith("%%writefile "):
            first, _, body = text.partition("\n")
            target = into / first.split(maxsplit=1)[1].strip()
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(body, encoding="utf-8")


def _wire(request: dict[str, Any]) -> dict[str, Any]:
    """The request as the SDK's JSON prints it: through the proto type, which leaves out a zero without presence
    (``"acceleratorCount": 0``, which trainjobs writes as the notebook gave it, is the same message on the wire)."""
    from google.cloud import aiplatform_v1

    kind = getattr(aiplatform_v1, request["kind"])
    message = kind.from_json(json.dumps(request["body"]))
    body = json.loads(kind.to_json(message, use_integers_for_enums=False, always_print_fields_with_no_presence=False))
    return {**request, "body": body}


@pytest.mark.parametrize(("name", "cell", "numbers"), CASES, ids=[f"{n}-{c}" for n, c, _ in CASES])
def test_request_equals_the_sdks(name: str, cell: int | None, numbers: tuple[int, ...], tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from .test_corpus import _packages_set_aside

    path = HERE / name
    theirs = comparable(sdk_request(_program(path, numbers, tmp_path), monkeypatch))
    runs_in = tmp_path / "notebook"
    runs_in.mkdir()
    _written(path, runs_in)
    done = convert(path, "--output", "request", *(("--cell", str(cell)) if cell else ()), cwd=runs_in)
    assert done.returncode == 0, done.stderr
    mine = comparable(_wire(json.loads(done.stdout)))
    if name in _SCRIPTS:
        _packages_set_aside(theirs, "aiplatform_custom_trainer_script.task")
        _packages_set_aside(mine, _SCRIPTS[name])
    assert mine["kind"] == theirs["kind"]
    assert mine["parent"] == theirs["parent"]
    assert set(mine["body"]) == set(theirs["body"])
    for field in theirs["body"]:
        assert mine["body"][field] == theirs["body"][field], field


def test_every_notebook_is_a_case() -> None:
    assert {name for name, _, _ in CASES} == {p.name for p in NOTEBOOKS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_source_is_named(path: Path) -> None:
    source = json.loads(path.read_text(encoding="utf-8"))["metadata"]["trainjobs_source"]
    assert source["repo"] and len(source["commit"]) == 40 and source["path"].endswith(".ipynb") and source["adapted"]


def test_several_jobs_are_named_and_cell_picks() -> None:
    done = convert(HERE / "taxifare_sdk_known.ipynb", "--output", "request")
    assert done.returncode == 1
    assert ("the notebook launches several jobs: aiplatform.CustomJob at tests/pysdk/notebooks/taxifare_sdk_known.ipynb "
            "cell 4, line 49, column 16; aiplatform.CustomJob at tests/pysdk/notebooks/taxifare_sdk_known.ipynb cell 6, "
            "line 48, column 16; allowed: the cell to convert with --cell N") in done.stderr
    done = convert(HERE / "taxifare_sdk_known.ipynb", "--cell", "3")
    assert done.returncode == 1
    assert "cell 3 builds or runs no Vertex AI training job; cells that do: cell 4, cell 6" in done.stderr


def test_an_unknown_value_is_named_by_cell_line_and_column() -> None:
    """The notebook as published: its project is a shell command's output (its timestamp, the time it runs, is the
    time of the conversion: tests/test_python_clock.py)."""
    done = convert(Path(__file__).parents[1] / "gcloud" / "notebooks" / "taxifare_sdk.ipynb", "--cell", "6")
    assert done.returncode == 1
    assert ("taxifare_sdk.ipynb cell 6, line 50, column 23: aiplatform.CustomJob(worker_pool_specs=...) cannot be "
            "known without running the notebook: worker_pool_specs is set from IMAGE_URI at cell 6, line 32; IMAGE_URI "
            "is set from PROJECT at cell 5, line 3; PROJECT is set from a shell command's output: gcloud config get-value "
            "project prints the core/project property"
            ) in done.stderr
    assert "Traceback" not in done.stderr


def _notebook(tmp: Path, *cells: str) -> Path:
    path = tmp / "nb.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": text}
        for text in cells]}), encoding="utf-8")
    return path


_SDK = ("from google.cloud import aiplatform\naiplatform.init(project='p', location='us-east1', staging_bucket='gs://bkt')\n"
        "job = aiplatform.CustomJob(display_name='j', worker_pool_specs=[{'machine_spec': {'machine_type': "
        "'n1-standard-4'}, 'replica_count': 1, 'container_spec': {'image_uri': 'gcr.io/p/i:1'}}])\njob.run()")
_GCLOUD = ("!gcloud ai custom-jobs create --region=us-central1 --display-name=g "
           "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i:1")


def test_gcloud_and_sdk_in_one_notebook(tmp_path: Path) -> None:
    path = _notebook(tmp_path, _SDK, _GCLOUD)
    done = convert(path, "--output", "request")
    assert done.returncode == 1
    assert ("the notebook submits a training job with gcloud (cell 2) and builds one with the Vertex AI SDK (cell 1: "
            "aiplatform.CustomJob at line 3); give the cell to convert with --cell N") in done.stderr
    sdk = convert(path, "--output", "request", "--cell", "1")
    assert sdk.returncode == 0, sdk.stderr
    assert json.loads(sdk.stdout)["parent"].endswith("/locations/us-east1")
    gcloud = convert(path, "--output", "request", "--cell", "2")
    assert gcloud.returncode == 0, gcloud.stderr
    assert json.loads(gcloud.stdout)["body"]["displayName"] == "g"


def test_options_are_taken_only_where_used(tmp_path: Path) -> None:
    path = _notebook(tmp_path, _SDK, _GCLOUD)
    done = convert(path, "--cell", "1", "--staging-bucket", "gs://b")
    assert done.returncode == 2
    assert "--staging-bucket goes with" in done.stderr
    done = convert(path, "--cell", "2", "--name", "n")
    assert done.returncode == 2
    assert "--name goes with" in done.stderr
    done = convert(path, "--cell", "1", "--name", "named", "--output", "yaml")
    assert done.returncode == 0, done.stderr
    assert "name: named" in done.stdout


def test_a_secret_from_the_environment_is_named_by_its_cell(tmp_path: Path) -> None:
    import os

    run = _SDK.replace("'gcr.io/p/i:1'}", "'gcr.io/p/i:1', 'args': [T]}")
    path = _notebook(tmp_path, "import os\nT = os.environ['TJ_TEST_HF_TOKEN']", run)
    done = subprocess.run([sys.executable, "-m", "provider", "convert", str(path)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "TJ_TEST_HF_TOKEN": "hf-123456"}, timeout=120)
    assert done.returncode == 1
    assert "nb.ipynb cell 1, line 2, column 5: $TJ_TEST_HF_TOKEN looks secret" in done.stderr
    assert "hf-123456" not in done.stdout + done.stderr


def test_an_unreadable_job_is_refused_only_when_picked(tmp_path: Path) -> None:
    local = ("import uuid\njob = aiplatform.CustomJob.from_local_script(display_name=f'j{uuid.uuid4()}', "
             "script_path='t.py', container_uri='us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest')\n"
             "job.run()")
    path = _notebook(tmp_path, _SDK.rsplit("\n", 2)[0], local, _SDK.split("\n", 2)[2])
    both = convert(path)
    assert both.returncode == 1
    assert ("launches several jobs: aiplatform.CustomJob.from_local_script at " in both.stderr
            and "nb.ipynb cell 2, line 2, column 7; aiplatform.CustomJob at " in both.stderr)
    picked = convert(path, "--cell", "2")
    assert picked.returncode == 1
    assert "nb.ipynb cell 2, line 2, column 59: aiplatform.CustomJob.from_local_script(display_name=...) cannot be " \
           "known without running the notebook: a random value" in picked.stderr
    other = convert(path, "--cell", "3", "--output", "request")
    assert other.returncode == 0, other.stderr
    assert json.loads(other.stdout)["body"]["displayName"] == "j"


def test_messages_name_the_notebook_and_follow_its_ifs(tmp_path: Path) -> None:
    """A notebook's notes and refusals say "notebook", never "script"; a cell's if whose test is known runs its
    branch, a function a cell defines runs where a later cell calls it, and the branch not taken is named."""
    run = _SDK.replace("job.run()", "RUN = True\nif not RUN:\n    other = aiplatform.CustomJob(display_name='o', "
                                    "worker_pool_specs=[])\nelse:\n    job.run(sync=True)")
    run = run.replace("aiplatform.init(", "aiplatform.init(credentials=None, ")
    define, call = "def launch():\n" + "\n".join("    " + line for line in run.splitlines()), "launch()"
    path = _notebook(tmp_path, define, call)
    done = convert(path, "--output", "request")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["body"]["displayName"] == "j"
    assert "nb.ipynb cell 1, line 9, column 22 is how the notebook waits" \
        in done.stderr
    assert "nb.ipynb cell 1, line 3, column 33 sets how the notebook reaches" \
        in done.stderr
    assert "nb.ipynb cell 1, line 7, column 17 is not read: the if at line 6 is false " \
           "(not RUN: False), so its body does not run" in done.stderr
    assert "script" not in done.stderr
    tuning = _notebook(tmp_path, _SDK.replace("job.run()", ""), "hpt = aiplatform.HyperparameterTuningJob("
                       "display_name='h', custom_job=aiplatform.CustomJob, metric_spec={'a': 'maximize'}, "
                       "parameter_spec={}, max_trial_count=1, parallel_trial_count=1)")
    done = convert(tuning, "--cell", "2")
    assert done.returncode == 1
    assert "is not an aiplatform.CustomJob the notebook builds at top level before it" in done.stderr
    assert "script" not in done.stderr.replace("a script that", "")


def test_a_script_training_job_sends_what_the_sdk_sends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CustomTrainingJob in a notebook, as Google's tutorials write it: ``%%writefile task.py``, the job built in one
    cell and run in a later one; its script (read from the directory convert runs in) packaged by trainjobs."""
    from .test_corpus import _packages_set_aside

    (tmp_path / "task.py").write_text("print('train')\n", encoding="utf-8")
    build = ("from google.cloud import aiplatform\n"
             "aiplatform.init(project='p', location='us-east1', staging_bucket='gs://bkt')\n"
             "job = aiplatform.CustomTrainingJob(display_name='nb-train', script_path='task.py', "
             "container_uri='us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest', requirements=['gcsfs'],"
             " model_serving_container_image_uri='us-docker.pkg.dev/vertex-ai/prediction/sklearn-cpu.1-0:latest')")
    run = ("model = job.run(args=['--epochs=3'], replica_count=1, machine_type='n1-standard-8', "
           "environment_variables={'MODE': 'full'}, base_output_dir='gs://b/nb-train')")
    path = _notebook(tmp_path, "%%writefile task.py\nprint('train')\n", build, run)
    program = tmp_path / "program.py"
    program.write_text(build + "\n" + run + "\n", encoding="utf-8")
    theirs = comparable(sdk_request(program, monkeypatch))
    done = convert(Path(path.name), "--output", "request", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    note = "aiplatform.CustomTrainingJob(model_serving_container_image_uri=...) at nb.ipynb cell 2, line 3"
    assert note in done.stderr, done.stderr
    mine = comparable(_wire(json.loads(done.stdout)))
    _packages_set_aside(theirs, "aiplatform_custom_trainer_script.task")
    _packages_set_aside(mine, "task")
    assert mine == theirs


def test_a_field_problem_names_the_cell_line_and_column(tmp_path: Path) -> None:
    """A problem the spec's check finds in a field is at the cell, line and column of the argument that gave it (as
    a script's is at its line and column); the JSON report carries the cell."""
    from provider.core.problem import Problem

    path = _notebook(tmp_path, "from google.cloud import aiplatform",
                     "aiplatform.init(project='p', location='us-central1', staging_bucket='gs://bkt')",
                     "job = aiplatform.CustomContainerTrainingJob(display_name='j', "
                     "container_uri='us-docker.pkg.dev/p/r/i:1')",
                     "x = 1\njob.run(machine_type='n1-standard-5', replica_count=1)")
    done = convert(path, cwd=tmp_path)
    assert done.returncode == 1
    assert "nb.ipynb cell 4, line 2, column 1: error: 'n1-standard-5' is not allowed for machine_type" in done.stderr
    script = tmp_path / "nb.py"
    script.write_text("\n".join(json.loads(path.read_text())["cells"][i]["source"] for i in range(4)) + "\n")
    done = convert(script, cwd=tmp_path)  # the same code as a script: its line and column, as before
    assert "nb.py:5:1: error: 'n1-standard-5' is not allowed for machine_type" in done.stderr
    shown = Problem(file="nb.ipynb", message="m", line=2, column=3, cell=4)
    assert shown.where == "nb.ipynb cell 4, line 2, column 3" and shown.as_dict()["cell"] == 4
    from io import StringIO

    from provider.validation.report import GithubReporter

    out = StringIO()
    GithubReporter().report([shown], 1, 1, out)  # a cell's line is not the .ipynb file's: said in the text
    assert out.getvalue().startswith("::error file=nb.ipynb,title=schema::cell 4, line 2, column 3: m\n")


def test_a_gcloud_call_in_a_branch_not_taken_is_named(tmp_path: Path) -> None:
    """The notebook's only gcloud training call is under an if whose test is false: the refusal names the call, its
    cell, line and column, and the test's value (as a script's does), not only that no cell submits a job."""
    run = ("import subprocess\nif DEPLOY:\n    subprocess.run(['gcloud', 'ai', 'custom-jobs', 'create', "
           "'--region=us-central1', '--display-name=j', '--worker-pool-spec=machine-type=n1-standard-4,"
           "container-image-uri=gcr.io/p/i:1'])")
    done = convert(_notebook(tmp_path, "DEPLOY = False", run), cwd=tmp_path)
    assert done.returncode == 1
    assert "nb.ipynb: the notebook runs no gcloud training command: subprocess.run(['gcloud', 'ai'," in done.stderr
    assert ("at nb.ipynb cell 2, line 3, column 5 is not read: the if at line 2 is false (DEPLOY: False), so its body "
            "does not run") in done.stderr
    done = convert(_notebook(tmp_path, "DEPLOY = True", run), "--output", "request", cwd=tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout)["body"]["displayName"] == "j", done.stderr


def test_an_sdk_job_in_a_branch_not_taken_is_named(tmp_path: Path) -> None:
    """The notebook's only SDK job is under an if whose test is false: the SDK reader's refusal names it, its place and
    the test's value, not the gcloud reader's "no cell submits a training job"."""
    imported, rest = _SDK.split("\n", 1)
    job = "if TRAIN:\n" + "\n".join("    " + line for line in rest.splitlines())
    done = convert(_notebook(tmp_path, imported + "\nTRAIN = False", job), cwd=tmp_path)
    assert done.returncode == 1
    assert ("nb.ipynb: the notebook launches no Vertex AI training job where it can be read: CustomJob at "
            "nb.ipynb cell 2, line 3, column 11 is not read: the if at line 1 is false (TRAIN: False)") in done.stderr
    assert "no cell submits" not in done.stderr


def test_a_script_the_notebook_writes_is_named_with_its_cell(tmp_path: Path) -> None:
    """CustomTrainingJob(script_path=...) of a script the notebook itself writes (%%writefile): converted before the
    notebook runs, the file is not there yet; the refusal names the cell that writes it."""
    path = _notebook(tmp_path, "from google.cloud import aiplatform",
                     "aiplatform.init(project='p', location='us-central1', staging_bucket='gs://bkt')",
                     "%%writefile trainer/task.py\nprint('train')\n",
                     "job = aiplatform.CustomTrainingJob(display_name='j', script_path='trainer/task.py', "
                     "container_uri='us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest')\n"
                     "job.run(machine_type='n1-standard-4', replica_count=1)")
    done = convert(path, cwd=tmp_path)
    assert done.returncode == 1
    assert ("script_path 'trainer/task.py' is not a file (read from the current directory, " in done.stderr
            and "(the notebook writes it in cell 3, %%writefile: run that cell first, or write the file)"
            in done.stderr), done.stderr


def test_a_secret_read_but_not_set_is_named_not_left_out(tmp_path: Path) -> None:
    """``os.getenv('TJ_TEST_API_KEY', '')`` with the variable unset where convert runs: the job would get '' and run
    without its key; a note names the variable and where its value belongs."""
    import os

    run = _SDK.replace("'gcr.io/p/i:1'}", "'gcr.io/p/i:1', 'env': [{'name': 'API_KEY', 'value': KEY}]}")
    path = _notebook(tmp_path, "import os\nKEY = os.getenv('TJ_TEST_API_KEY', '')", run)
    env = {k: v for k, v in os.environ.items() if k != "TJ_TEST_API_KEY"}
    done = subprocess.run([sys.executable, "-m", "provider", "convert", str(path)], capture_output=True, text=True,
                          env={**env, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert ("$TJ_TEST_API_KEY looks secret and is not set where convert ran: the spec has what the code gives without "
            "it; give the job its value through the stack (trainjobs:secretEnv.TJ_TEST_API_KEY)") in done.stdout
