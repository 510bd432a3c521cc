"""trainjobs artifacts, tensorboard, and the status of a finished local job, as a user runs them."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from provider import cli

from ..conftest import ROOT, no_traceback, port_closes, run_cli, stop_process
from .test_cli_jobs import home  # noqa: F401  (the fixture: a private TRAINJOBS_HOME, cleaned up)

pytestmark = pytest.mark.slow


@pytest.fixture
def finished(home: dict[str, str]) -> str:  # noqa: F811
    proc = run_cli("run", "specs/local/simple.yaml", env=home, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(run_cli("status", "local_simple", "--format", "json", env=home).stdout)["id"]


def test_artifacts_lists_and_downloads_what_the_job_wrote(home: dict[str, str], finished: str,  # noqa: F811
                                                          tmp_path: Path) -> None:
    listed = run_cli("artifacts", "local_simple", "--format", "json", env=home)
    no_traceback(listed)
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    kinds = {r["kind"] for r in rows}
    assert {"model", "checkpoints"} <= kinds, rows
    assert all(r["uri"].startswith("gs://local-bucket/jobs/local_simple/") for r in rows)
    assert all(Path(r["local"]).is_file() for r in rows)
    text = run_cli("artifacts", finished, env=home).stdout
    assert f"local_simple ({finished}): {len(rows)} files under gs://local-bucket/jobs/local_simple" in text
    dest = tmp_path / "download"
    got = run_cli("artifacts", finished[:8], "--download", str(dest), env=home)
    assert got.returncode == 0, got.stderr
    for r in rows:
        assert (dest / r["path"]).read_bytes() == Path(r["local"]).read_bytes()


def test_status_shows_where_the_outputs_are_on_this_machine(home: dict[str, str], finished: str) -> None:  # noqa: F811
    text = run_cli("status", finished, env=home).stdout
    out_line = next(line for line in text.splitlines() if "on this machine:" in line)
    local = Path(out_line.split("on this machine:", 1)[1].strip())
    assert local.is_dir() and (local / "model").is_dir()
    assert "hardware: n1-standard-4" in text


def test_tensorboard_installed_without_its_program_says_so(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """(Without the extra at all: tests/test_optional_parts.py, in a venv that lacks it.)"""
    monkeypatch.setattr("shutil.which", lambda *a, **k: None)
    assert cli.main(["tensorboard", "anything"]) == 2
    assert "its tensorboard program is not on PATH" in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_tensorboard_serves_the_jobs_logs(home: dict[str, str], finished: str) -> None:  # noqa: F811
    pytest.importorskip("tensorboard", reason="the tensorboard extra is not installed")
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    status = json.loads(run_cli("status", finished, "--format", "json", env=home).stdout)
    storage = Path(home["TRAINJOBS_HOME"]) / "storage"
    logs = storage / status["output_dir"][len("gs://"):] / "logs"
    EventFileWriter(str(logs)).close()  # what a trainer's SummaryWriter leaves in AIP_TENSORBOARD_LOG_DIR
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "provider", "tensorboard", finished, "--port", str(port)],
                            cwd=ROOT, env={**os.environ, **home}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    try:
        deadline = time.monotonic() + 120
        runs = None
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/data/runs", timeout=5) as answer:
                    runs = json.loads(answer.read())
                    if runs:
                        break
            except OSError:
                pass
            time.sleep(0.5)
        assert runs == ["logs"], runs
        proc.terminate()  # as a service manager or `kill` stops it: TensorBoard must go with it
        assert proc.wait(timeout=60) == 0
        assert port_closes(port), "TensorBoard still serves after trainjobs tensorboard was stopped"
    finally:
        stop_process(proc)
        if proc.stdout is not None:
            proc.stdout.close()


def test_run_shows_running_and_ends_with_the_final_state_after_the_last_log_line(
        home: dict[str, str]) -> None:  # noqa: F811
    proc = run_cli("run", "specs/local/simple.yaml", env=home, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    states = [i for i, line in enumerate(lines) if line.startswith("[") and ": " in line and " local_simple " in line]
    # a log line as `trainjobs logs` prints it: the time it was written, then the replica
    logs = [i for i, line in enumerate(lines) if re.match(r"\d{4}-\d\d-\d\dT[\d:.]+Z \[workerpool0-0\] ", line)]
    texts = [lines[i].rsplit(": ", 1)[1] for i in states]
    assert "RUNNING" in texts and texts[-1] == "SUCCEEDED", texts
    assert states[-1] > logs[-1]  # the end is reported after the trainer's last line
    assert lines[logs[-1]].endswith("/jobs/local_simple/model/")


def test_run_as_json_lines(home: dict[str, str]) -> None:  # noqa: F811
    proc = run_cli("run", "specs/local/simple.yaml", "--format", "json", env=home, timeout=300)
    assert proc.returncode == 0, proc.stderr
    objects = [json.loads(line) for line in proc.stdout.splitlines()]
    states = [o["state"] for o in objects if "state" in o]
    assert states[0] in ("QUEUED", "PENDING") and "RUNNING" in states and states[-1] == "SUCCEEDED"
    assert any(o.get("replica") == "workerpool0-0" and o["message"].startswith("epoch") for o in objects)
    assert objects[-1]["status"]["state"] == "SUCCEEDED" and objects[-1]["status"]["display_name"] == "local_simple"


def test_a_rerun_warns_about_the_previous_runs_files_and_fresh_gives_its_own_dir(
        home: dict[str, str], finished: str) -> None:  # noqa: F811
    again = run_cli("run", "specs/local/simple.yaml", "--detach", env=home, timeout=300)
    assert again.returncode == 0, again.stderr
    assert (f"warning: gs://local-bucket/jobs/local_simple already holds the files of local job {finished} "
            "(local_simple, SUCCEEDED)") in again.stderr
    assert "--fresh" in again.stderr
    fresh = run_cli("run", "specs/local/simple.yaml", "--fresh", "--format", "json", env=home, timeout=300)
    assert fresh.returncode == 0, fresh.stderr
    assert "warning:" not in fresh.stderr
    status = json.loads(fresh.stdout.splitlines()[-1])["status"]
    assert status["output_dir"].startswith("gs://local-bucket/jobs/local_simple/runs/")
    storage = Path(home["TRAINJOBS_HOME"]) / "storage"
    assert (storage / status["output_dir"][len("gs://"):] / "model").is_dir()


def test_dry_run_prints_the_request_and_the_plan_and_starts_nothing(home: dict[str, str]) -> None:  # noqa: F811
    proc = run_cli("run", "specs/local/ddp_multiworker.yaml", "--dry-run", "--format", "json", env=home)
    assert proc.returncode == 0, proc.stderr
    shown = json.loads(proc.stdout)
    assert shown["request"]["kind"] == "CustomJob"
    pools = shown["request"]["body"]["jobSpec"]["workerPoolSpecs"]
    assert [r["name"] for r in shown["replicas"]] == ["workerpool0-0", "workerpool1-0", "workerpool1-1"]
    assert [r["env"]["RANK"] for r in shown["replicas"]] == ["0", "1", "2"]
    assert all(r["env"]["WORLD_SIZE"] == "3" for r in shown["replicas"]) and len(pools) == 2
    home_dir = Path(home["TRAINJOBS_HOME"])
    assert not (home_dir / "jobs").exists() and not (home_dir / "storage").exists()  # nothing started or staged
    text = run_cli("run", "specs/local/ddp_multiworker.yaml", "--dry-run", env=home).stdout
    assert "local plan: 3 replica(s)" in text and "nothing was started or staged" in text


def test_run_shows_the_environment_being_built(home: dict[str, str], tmp_path: Path) -> None:  # noqa: F811
    """While pip builds a job's environment, the state says what it installs (not a silent PENDING)."""
    wheels = ROOT / ".venv" / "wheelhouse"
    project = tmp_path / "project"
    pkg = project / "trainer" / "needs_pluggy"
    pkg.mkdir(parents=True)
    (project / "Pulumi.yaml").write_text("name: t\nruntime: python\n")  # the repository the spec lives in
    (pkg / "__init__.py").write_text("")
    (pkg / "task.py").write_text("import pluggy\nprint('pluggy', pluggy.__name__)\n")
    (project / "trainer" / "setup.py").write_text(
        "from setuptools import setup\nsetup(name='needs-pluggy', version='1.0', packages=['needs_pluggy'], "
        "install_requires=['pluggy==1.7.0'])\n")
    spec = project / "job.yaml"
    spec.write_text("""\
apiVersion: trainjobs/v1
kind: TrainingJob
metadata: {name: needs_pluggy}
spec:
  region: us-central1
  workerPools: {chief: {machineType: n1-standard-4}}
  application:
    pythonPackage:
      path: trainer/needs_pluggy
      module: needs_pluggy.task
      executorImage: us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-4.py310:latest
  jobDir: gs://local-bucket/jobs/needs_pluggy
""")
    env = {**home, "TRAINJOBS_ENV_CACHE": str(tmp_path / "fresh-envs"), "PIP_NO_INDEX": "1",
           "PIP_FIND_LINKS": str(wheels)}
    proc = run_cli("run", str(spec), "--format", "json", env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    messages = [o.get("message") or "" for o in map(json.loads, proc.stdout.splitlines()) if "state" in o]
    assert "building the environment: installing 1 requirement(s): pluggy==1.7.0" in messages, messages
    assert any(m.startswith("building the environment: ") and "pluggy" in m and "requirement" not in m
               for m in messages), messages  # pip's own line about it
    assert any(o.get("message") == "pluggy needs_pluggy.task" or o.get("message", "").startswith("pluggy")
               for o in map(json.loads, proc.stdout.splitlines()) if "replica" in o)
