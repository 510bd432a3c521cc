"""A gcloud training command run from Python (subprocess.run) inside a function the code never calls: refused with
that cause, as the SDK reader refuses a job built in such a function (provider.pysdk.shell_runs), also where the
command is a variable the function assigns (``cmd = [...]; subprocess.run(cmd)``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_corpus import convert

_WORDS = ("['gcloud', 'ai', 'custom-jobs', 'create', '--region=us-central1', '--display-name=x', "
          "'--worker-pool-spec=machine-type=n1-standard-4,replica-count=1,container-image-uri=gcr.io/p/i:1']")
UNCALLED = "def submit at line 4, not called where it can be read (at top level: alone, x = submit(...)"


@pytest.mark.parametrize(("body", "call"), [
    (f"    cmd = {_WORDS}\n    subprocess.run(cmd, check=True)\n", "train.py:6:5: subprocess.run(cmd, check=True)"),
    (f"    subprocess.run({_WORDS})\n", "train.py:5:5: subprocess.run(['gcloud', 'ai', 'custom-jobs'"),
    (f"    cmd = ' '.join({_WORDS})\n    os.system(cmd)\n", "train.py:6:5: os.system(cmd)"),
])
def test_a_command_in_a_function_never_called_is_refused_as_such(body: str, call: str, tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(f"import os\nimport subprocess\n\ndef submit():\n{body}\n\nif __name__ == '__main__':\n    pass\n")
    done = convert(script, cwd=tmp_path)
    assert done.returncode == 1
    assert call in done.stderr and "runs a gcloud training command, and it is inside " + UNCALLED in done.stderr, \
        done.stderr
    assert "known only when it runs" not in done.stderr  # not the cause: nothing calls it
    assert "Traceback" not in done.stderr


def test_a_function_called_with_its_variable_command_converts(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(f"import subprocess\n\ndef submit():\n    cmd = {_WORDS}\n    subprocess.run(cmd)\n\nsubmit()\n")
    done = convert(script, "--output", "request", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
