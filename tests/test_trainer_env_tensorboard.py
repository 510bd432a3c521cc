"""``trainjobs tensorboard JOB --stack S`` on a job the emulator ran with ``tensorboard`` set.

The job is created through the real gapic JobServiceClient (as ``CustomJob.run(tensorboard=...)``
sends it), its trainer (tests/fixtures/trainers/curves) writes event files to
``AIP_TENSORBOARD_LOG_DIR``, which is ``baseOutputDirectory/logs/`` in the emulated storage, as on
Vertex AI; then ``trainjobs tensorboard`` runs as a user runs it, from a project holding a vertex
stack whose ``trainjobs:apiEndpoint`` is the emulator, and the curves are read from the TensorBoard
it starts, over HTTP.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from provider.emulator.server import Emulator
from tests.conftest import port_closes, stop_process
from tests.vertex import conftest as vertex
from tests.vertex.conftest import PARENT, ROOT, emulator_stack, run_curves_job

# the emulator's fixtures (tests/vertex/conftest.py): an emulator per test, the jobs' environment, a client
job_env, emulators, emulator, client = vertex.job_env, vertex.emulators, vertex.emulator, vertex.client

pytestmark = pytest.mark.slow

STACK = "emu"


def _project(tmp_path: Path, emulator: Emulator) -> Path:
    proj = tmp_path / "project"
    emulator_stack(proj, STACK, emulator.endpoint)
    return proj


def _job_with_a_tensorboard(emulator: Emulator, client: Any) -> Any:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1 as v1

    boards = v1.TensorboardServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                         client_options={"api_endpoint": emulator.endpoint})
    board = boards.create_tensorboard(parent=PARENT, tensorboard=v1.Tensorboard(display_name="curves"))
    return run_curves_job(emulator, client, "curves_tb", {"tensorboard": board.result(timeout=60).name},
                          output="gs://test-bucket/curves-tb")


def _get(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as answer:
        return json.loads(answer.read())


def test_tensorboard_shows_the_curves_a_trainer_wrote_under_the_emulator(emulator: Emulator, client: Any,
                                                                          tmp_path: Path) -> None:
    pytest.importorskip("tensorboard", reason="the tensorboard extra is not installed")
    job = _job_with_a_tensorboard(emulator, client)
    job_id = job.name.rsplit("/", 1)[1]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "provider", "tensorboard", job_id, "--stack", STACK, "--port",
                             str(port)], cwd=_project(tmp_path, emulator), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        runs = None
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and not runs and proc.poll() is None:
            try:
                runs = _get(port, "/data/runs")
            except OSError:
                time.sleep(0.5)
        assert proc.poll() is None, proc.communicate()[0]
        assert sorted(runs or []) == ["logs/eval", "logs/train"], runs  # the trainer's log folders
        query = urllib.parse.urlencode({"run": "logs/train", "tag": "loss"})
        loss = _get(port, f"/data/plugin/scalars/scalars?{query}")
        assert [(step, round(value, 4)) for _, step, value in loss] == [(0, 1.0), (1, 0.5), (2, 0.3333)]
        proc.terminate()
        output = proc.communicate(timeout=60)[0]
        assert proc.returncode == 0, output
        assert output.startswith(f"TensorBoard for curves_tb ({job_id}) on "), output
        assert port_closes(port), "TensorBoard still serves after trainjobs tensorboard was stopped"
        assert not list(Path(tempfile.gettempdir()).glob(f"trainjobs-tensorboard-{job_id}-*"))
    finally:
        stop_process(proc)
