"""``trainjobs convert`` of Python that runs a gcloud training command (subprocess, os.system) in a .py file or a
notebook's code cell: the refusals, each naming the call's place and why; the options each kind of job takes.
(tests/gcloud/test_python_gcloud_oracle.py compares the requests with what gcloud itself sends.)"""

from __future__ import annotations

import json
from pathlib import Path

from .test_corpus import convert

_POOL = "machine-type=n1-standard-4,container-image-uri=gcr.io/p/i:1"
_RUN = ("import subprocess\nsubprocess.run(['gcloud', 'ai', 'custom-jobs', 'create', '--region=us-east1', "
        f"'--display-name=j', '--worker-pool-spec={_POOL}'])\n")


def _script(tmp: Path, text: str) -> Path:
    path = tmp / "train.py"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_list_of_words_is_the_line_of_those_words(tmp_path: Path) -> None:
    done = convert(_script(tmp_path, _RUN.replace("'--display-name=j'", "'--display-name=a b'")), "--output", "request",
                   cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["body"]["displayName"] == "a b"  # one word, as the process gets it
    assert "train.py:2:1 (its gcloud command): note: the command subprocess.run([" in done.stderr


def test_refusals_name_the_call_and_why(tmp_path: Path) -> None:
    cases = {
        "import subprocess, uuid\nN = uuid.uuid4()\nsubprocess.run(['gcloud', 'ai', 'custom-jobs', 'create', "
        "f'--display-name={N}'])\n": "train.py:3:1: subprocess.run(['gcloud', 'ai', 'custom-jobs', 'create', "
        "f'--display-name={N}']) runs a gcloud training command, and its command cannot be known without running",
        "import subprocess\nsubprocess.run('gcloud ai custom-jobs create --region=us-east1')\n":
            "a string without shell=True names one program",
        "import subprocess, sys\nfor r in sys.argv:\n    subprocess.run(['gcloud', 'ai', 'custom-jobs', 'create'])\n":
            "train.py:3:5: subprocess.run(['gcloud', 'ai', 'custom-jobs', 'create']) runs a gcloud training command, "
            "and it is inside a for loop at line 2",
        "import subprocess\nfor r in ['a', 'b']:\n    subprocess.run(['gcloud', 'ai', 'custom-jobs', 'create'])\n":
            "train.py: 2 calls run a gcloud training command: train.py:3:5 (2 times: the code runs it more than once)",
        "import os, subprocess\nsubprocess.run(['gcloud', 'ai', 'custom-jobs', 'create'], env={'A': 'b'})\n":
            "env= is not read",
        _RUN + _RUN.split("\n", 1)[1]: "train.py: 2 calls run a gcloud training command: train.py:2:1; train.py:3:1",
    }
    for text, said in cases.items():
        done = convert(_script(tmp_path, text), cwd=tmp_path)
        assert done.returncode == 1, text
        assert said in done.stderr, done.stderr
        assert "Traceback" not in done.stderr


def test_options_go_with_the_job_they_are_used_by(tmp_path: Path) -> None:
    gcloud = _script(tmp_path, _RUN)
    done = convert(gcloud, "--name", "n", cwd=tmp_path)
    assert done.returncode == 2 and "--name goes with" in done.stderr
    done = convert(gcloud, "--stack", "no-such-stack", cwd=tmp_path)
    assert "--stack goes with" not in done.stderr  # taken: the stack is looked for
    sdk = Path(__file__).parent / "corpus" / "bash_command_labels.py"
    done = convert(sdk, "--staging-bucket", "gs://b")
    assert done.returncode == 2 and "--staging-bucket goes with" in done.stderr


def test_a_notebook_cell_that_runs_gcloud(tmp_path: Path) -> None:
    cells = ["import os\nos.environ['R'] = 'europe-west4'",
             "import subprocess\nsubprocess.run('gcloud ai custom-jobs create --region=$R --display-name=nb "
             f"--worker-pool-spec={_POOL}', shell=True)",
             f"!gcloud ai custom-jobs create --region=us-east1 --display-name=bang --worker-pool-spec={_POOL}"]
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c} for c in cells]}))
    both = convert(path, "--output", "request", cwd=tmp_path)
    assert both.returncode == 1
    assert ("gcloud training commands in ! lines or %%bash cells (cell 3) and in Python calls (" in both.stderr
            and "nb.ipynb cell 2, line 2, column 1); allowed: give the cell to convert with --cell N" in both.stderr)
    done = convert(path, "--output", "request", "--cell", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    request = json.loads(done.stdout)
    assert request["body"]["displayName"] == "nb" and request["parent"].endswith("/locations/europe-west4")
    assert "set by the notebook (%env, os.environ) before this line, and read by the shell: $R='europe-west4'" \
        in done.stderr
    done = convert(path, "--output", "request", "--cell", "3", cwd=tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout)["body"]["displayName"] == "bang"


def test_the_branch_that_runs_and_the_function_called(tmp_path: Path) -> None:
    """An if whose test is known runs one branch (the other is named in a note, or in the refusal when it holds the
    only command); a function called at top level runs with its arguments; an unknown test is refused with why."""
    local, cloud = "    subprocess.run(['python', '-m', 'trainer.task'])\n", "    " + _RUN.split("\n", 1)[1]
    branches = f"import subprocess\nLOCAL = {{}}\nif LOCAL:\n{local}else:\n{cloud}"
    done = convert(_script(tmp_path, branches.format(False)), "--output", "request", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["body"]["displayName"] == "j"
    done = convert(_script(tmp_path, branches.format(True)), "--output", "request", cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert "train.py: the script runs no gcloud training command: subprocess.run(['gcloud', 'ai'" in done.stderr
    assert "at train.py:6:5 is not read: the if at line 3 is true (LOCAL: True), so its else does not run" in done.stderr
    both = f"import subprocess\nif __name__ == '__main__':\n{cloud}else:\n{cloud.replace('=j', '=k')}"
    done = convert(_script(tmp_path, both), "--output", "request", cwd=tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout)["body"]["displayName"] == "j", done.stderr
    assert "note: not converted: subprocess.run(" in done.stderr and "at train.py:5:5 is not read: the if at line 2 " \
        "is true (__name__ == '__main__': True), so its else does not run" in done.stderr
    called = ("import subprocess\ndef submit(name, region='us-east1'):\n    subprocess.run(['gcloud', 'ai', "
              "'custom-jobs', 'create', f'--region={region}', f'--display-name={name}', "
              f"'--worker-pool-spec={_POOL}'])\nif __name__ == '__main__':\n    submit('fn', region='europe-west4')\n")
    done = convert(_script(tmp_path, called), "--output", "request", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    request = json.loads(done.stdout)
    assert request["body"]["displayName"] == "fn" and request["parent"].endswith("/locations/europe-west4")
    unknown = "import subprocess, sys\nif len(sys.argv) > 1:\n" + cloud
    done = convert(_script(tmp_path, unknown), cwd=tmp_path)
    assert done.returncode == 1 and "train.py:3:5: subprocess.run(" in done.stderr
    assert "and it is inside the if at line 2, whose test is not known (" in done.stderr
