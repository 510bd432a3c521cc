"""gcloud itself as the oracle of ``trainjobs convert NOTEBOOK.ipynb``.

The line the notebook reader makes of a notebook's training command (IPython's expansion with the notebook's
Python values, and the environment its ``%env`` lines set) runs through the real installed gcloud against the
stand-in of standin.py, as test_gcloud_oracle.py runs the corpus; what gcloud sends must equal what trainjobs
reads from that line (that test's own check), and the request ``trainjobs convert NOTEBOOK.ipynb --output request``
prints must carry every field gcloud sent, with the same value.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from provider.gcloud.notebook_expand import expand, notebook_environment
from provider.gcloud.notebook_file import chosen, read_cells, scope_at

from ..conftest import ROOT
from .test_gcloud_oracle import _carries, _int64, _request, _run_all, json_names, oracle_base
from .test_gcloud_oracle import test_trainjobs_reads_the_command_as_gcloud_does as reads_as_gcloud_does

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(900),
    pytest.mark.skipif(shutil.which("gcloud") is None,
                       reason="gcloud is not installed: the gcloud-oracle tests need the Google Cloud CLI"),
]

HERE = Path(__file__).parent / "notebooks"
TIME_SERIES_EDITS = {"'caip_training_' + str(int(time.time()))": "'caip_training_7'",
                     "os.getcwd() + '/' + trainer_dir": "trainer_dir"}
CASES = [  # (id, notebook, --cell, edits to its cells, files beside it)
    ("xgboost_dask", "xgboost_dask_custom_job.ipynb", 6, {}, ["config.yaml"]),  # cell 4 runs an SDK job
    ("persistent_resource", "persistent_resource_cli.ipynb", 10, {}, ["custom_job_spec.yaml"]),
    ("persistent_resource_loop", "persistent_resource_cli.ipynb", 11, {}, ["custom_job_spec.yaml"]),
    ("time_series", "time_series_ai_platform.ipynb", None, TIME_SERIES_EDITS, []),
]


def _notebook(name: str, edits: dict[str, str]) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((HERE / name).read_text())
    for cell in doc["cells"]:
        text = "".join(cell["source"])
        for old, new in edits.items():
            text = text.replace(old, new)
        cell["source"] = text
    return doc


def _line(doc: dict[str, Any], pick: int | None) -> tuple[str, dict[str, str]]:
    """The line the shell gets and the environment the notebook sets for it, as the notebook reader makes them."""
    cells = read_cells(json.dumps(doc).encode(), "nb.ipynb")
    command = chosen(cells, "nb.ipynb", pick)
    scope = scope_at(cells, command)
    line, _ = expand(command.text, scope, command.place)
    return line, notebook_environment(line, scope, "nb.ipynb")


@pytest.mark.parametrize(("case", "name", "pick", "edits", "files"), CASES, ids=[c[0] for c in CASES])
def test_gcloud_sends_what_convert_reads(case: str, name: str, pick: int | None, edits: dict[str, str],
                                         files: list[str]) -> None:
    doc = _notebook(name, edits)
    line, environment = _line(doc, pick)
    # a config's image holding Google's [your-project-id] is refused (a placeholder left): filled, as a user runs it
    sources = {f: (HERE / f).read_text().replace("[your-project-id]", "my-project") for f in files}
    sources["trainer/model.py"] = "print('hello')\n"
    entry = {"id": case, "command": line, "env": environment, "sources": sources}
    with oracle_base("trainjobs-notebook-oracle-") as (base, shims):
        results = _run_all([entry], base, shims)
        outcome = results[case]
        assert outcome.sent is not None, f"gcloud sent no job for {line!r}: {outcome.stderr[-2000:]}"
        reads_as_gcloud_does(entry, (results, base))  # the corpus's own check, on the expanded line
        work = base / case
        (work / "nb.ipynb").write_text(json.dumps(doc))
        proc = subprocess.run([sys.executable, "-m", "provider", "convert", "nb.ipynb", "--output", "request",
                               *([] if pick is None else ["--cell", str(pick)])], cwd=work,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        request = json.loads(proc.stdout)
    if "trainingInput" in outcome.sent:  # AI Platform: the Vertex AI job trainjobs makes of what gcloud sent
        ti = dict(outcome.sent["trainingInput"])
        ti.pop("packageUris", None)  # gcloud's upload; convert names its own package (compared below without it)
        theirs, errors = _request({"apiVersion": "trainjobs/v1", "kind": "TrainingJob",
                                   "metadata": {"name": outcome.sent["jobId"]},
                                   "spec": {"trainingInput": {**ti, "packageUris": ["gs://x/p.tar.gz"]}}}, None)
        assert theirs is not None, errors
        ours = request["body"]
        for pool in [*ours["jobSpec"]["workerPoolSpecs"], *theirs["jobSpec"]["workerPoolSpecs"]]:
            pool["pythonPackageSpec"].pop("packageUris")
        assert _int64(ours) == _int64(theirs)
        assert request["parent"].endswith(f"/locations/{ti['region']}")
    else:
        assert f"/locations/{request['parent'].rsplit('/', 1)[-1]}/" in outcome.path
        _carries(_int64(json_names("custom", outcome.sent)), _int64(request["body"]), "CustomJob")
