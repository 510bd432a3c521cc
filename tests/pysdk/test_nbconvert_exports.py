"""A notebook exported as a .py script (``jupyter nbconvert --to script``): each ``!`` line is written
``get_ipython().system('...')`` (``x = !cmd``: ``getoutput``), and IPython expands the line with the code's values
when it runs it. trainjobs reads such a call as the ``!`` line it was (provider/pysdk/shell_runs.py).

The oracle is IPython itself: the script runs in an InteractiveShell whose ``system`` only records the line IPython
hands the shell, once expanded; the gcloud command trainjobs converts must be that line.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ipython_python, run_cli

_RECORDER = """import json, sys
import IPython.core.interactiveshell as m
from IPython.core.interactiveshell import InteractiveShell
calls = []
m.system = lambda cmd: calls.append(cmd) or 0
m.getoutput = lambda cmd: calls.append(cmd) or ""
shell = InteractiveShell.instance()
shell.run_cell(sys.stdin.read(), store_history=False, silent=True)
print("\\nORACLE" + json.dumps(calls))
"""

EXPORTED = '''#!/usr/bin/env python
# coding: utf-8

# In[1]:


PROJECT_ID = "my-proj"
REGION = "europe-west4"
IMAGE = f"gcr.io/{PROJECT_ID}/train:1"
ARGS = "--epochs=3"


# In[2]:


get_ipython().system('gcloud ai custom-jobs create --region={REGION} --display-name=exported '
                     '--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=$IMAGE --args={ARGS}')
'''


def test_an_exported_bang_line_is_the_line_ipython_runs(tmp_path: Path) -> None:
    python = ipython_python("IPython.core.interactiveshell")
    if python is None:
        pytest.skip("no python with IPython installed: the oracle is IPython's own expansion")
    proc = subprocess.run([python, "-c", _RECORDER], input=EXPORTED, capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    line, = json.loads(proc.stdout.rsplit("\nORACLE", 1)[1])
    words = dict(w.split("=", 1) for w in shlex.split(line)[4:])
    script = tmp_path / "exported.py"
    script.write_text(EXPORTED, encoding="utf-8")
    done = run_cli("convert", str(script), "--output", "request")
    assert done.returncode == 0, done.stderr
    request = json.loads(done.stdout)
    assert request["parent"].endswith(f"/locations/{words['--region']}")
    pool = request["body"]["jobSpec"]["workerPoolSpecs"][0]
    assert f"container-image-uri={pool['containerSpec']['imageUri']}" in words["--worker-pool-spec"]
    assert pool["containerSpec"]["args"] == [words["--args"]]
    assert request["body"]["displayName"] == words["--display-name"]


def test_an_exported_line_with_a_value_known_only_when_it_runs_is_refused(tmp_path: Path) -> None:
    script = tmp_path / "exported.py"
    script.write_text("import uuid\nT = uuid.uuid4().hex\nget_ipython().system('gcloud ai custom-jobs create "
                      "--region=us-central1 --display-name=j{T} --worker-pool-spec=machine-type=n1-standard-4,"
                      "container-image-uri=gcr.io/p/i:1')\n", encoding="utf-8")
    done = run_cli("convert", str(script), "--output", "request")
    assert done.returncode == 1 and "expanded by IPython with a value known only when the code runs" in done.stderr, \
        done.stderr
