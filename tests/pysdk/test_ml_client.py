"""Python that creates an AI Platform job with ``discovery.build('ml', 'v1').projects().jobs().create(...)``.

The discovery client sends ``body`` as the JSON of the request, unchanged. The oracle runs each script with
Python, ``googleapiclient.discovery.build`` replaced by a recorder of the ``parent`` and ``body`` the script
hands it (the package is not installed here, and nothing is sent either way); the body is written as a Job
file, and ``trainjobs convert`` of that file (AI Platform's conversion, checked against gcloud elsewhere) must
equal ``trainjobs convert`` of the script, which reads it without running it.
"""

from __future__ import annotations

import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from ..conftest import no_traceback, run_cli

HERE = Path(__file__).parent / "ml_client"
CORPUS = sorted(HERE.glob("*.py"))


def _recorded(path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """{parent, body} the script hands the client, run by Python."""
    sent: list[dict[str, Any]] = []

    class _Call:
        def __init__(self, **kwargs: Any) -> None:
            sent.append(kwargs)

        def execute(self) -> dict[str, Any]:
            return {}

    class _Jobs:
        create = _Call

    class _Projects:
        def jobs(self) -> _Jobs:
            return _Jobs()

    class _Client:
        def projects(self) -> _Projects:
            return _Projects()

    def build(service: str, version: str, **kwargs: Any) -> _Client:
        assert (service, version) == ("ml", "v1")
        return _Client()

    package = types.ModuleType("googleapiclient")
    discovery = types.ModuleType("googleapiclient.discovery")
    discovery.build = build  # type: ignore[attr-defined]
    package.discovery = discovery  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "googleapiclient", package)
    monkeypatch.setitem(sys.modules, "googleapiclient.discovery", discovery)
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), {"__name__": "__main__"})
    assert len(sent) == 1, f"{path.name} created {len(sent)} jobs"
    return sent[0]


def _convert(path: Path) -> tuple[Any, str]:
    proc = run_cli("convert", str(path), "--format", "request")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_the_body_a_script_sends_converts_as_the_same_body_in_a_file(path: Path, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    sent = _recorded(path, monkeypatch)
    job = tmp_path / "job.json"
    job.write_text(json.dumps(sent["body"]))
    ours, said = _convert(path)
    assert ours == _convert(job)[0]
    project = sent["parent"].removeprefix("projects/")
    assert f"the project {project} is where the request would be sent, not part of the job" in said


def test_a_create_inside_a_method_is_named(tmp_path: Path) -> None:
    path = tmp_path / "wrapper.py"
    path.write_text("from googleapiclient import discovery\n\n\nclass Wrapper:\n    def submit(self):\n"
                    "        ml = discovery.build('ml', 'v1')\n"
                    "        ml.projects().jobs().create(body=self.job_spec, parent=self.project).execute()\n")
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode == 1
    assert "ml.projects().jobs().create at " in proc.stderr and "wrapper.py:7:9 (inside class Wrapper at line 4, " \
        "whose methods are not read" in proc.stderr, proc.stderr


def test_a_batch_prediction_body_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "predict.py"
    path.write_text("from googleapiclient import discovery\nml = discovery.build('ml', 'v1')\n"
                    "ml.projects().jobs().create(parent='projects/p', body={'jobId': 'p1', 'predictionInput': "
                    "{'dataFormat': 'JSON', 'region': 'us-central1'}}).execute()\n")
    proc = run_cli("convert", str(path))
    no_traceback(proc)
    assert proc.returncode == 1
    assert "an AI Platform batch prediction job (predictionInput), not a training job" in proc.stderr, proc.stderr
