"""``--stack`` on the job commands: a vertex stack whose ``trainjobs:apiEndpoint`` is the emulator.

The jobs are started as ``pulumi up`` starts them (the stack's labels, staged through the
emulator's Cloud Storage API) and then followed with ``trainjobs jobs list|status|cancel|artifacts
--stack S``, run as a user runs them, from a project directory holding the stack file. Everything
goes through the real google-cloud-aiplatform and google-cloud-storage clients.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from provider.backends.base import JobState
from provider.backends.vertex import VertexBackend
from provider.emulator.server import Emulator
from provider.packaging.gcs import GcsStager, gcs_client
from provider.submission.launch import labels_for, prepare, submission
from tests.conftest import no_traceback, port_closes, stop_process
from tests.vertex.conftest import LOCATION, PROJECT, ROOT, emulator_stack, probe_spec, vertex_job

pytestmark = pytest.mark.slow

STACK = "team-emu"


@pytest.fixture
def project(tmp_path: Path, emulator: Emulator) -> Path:
    proj = tmp_path / "project"
    emulator_stack(proj, STACK, emulator.endpoint)
    return proj


def start(backend: VertexBackend, emulator: Emulator, name: str, stack: str | None = STACK, **kw: object) -> str:
    # each job its own output directory: two jobs running at once must not share checkpoint files
    job = vertex_job(probe_spec(name, output=f"gs://test-bucket/{name}", **kw))  # type: ignore[arg-type]
    stager = GcsStager(gcs_client(PROJECT, emulator.endpoint))
    request = prepare(job, ROOT, project=PROJECT, stager=stager, labels=labels_for(job, stack=stack))
    return backend.submit(submission(job, request)).id


def cli(project: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    env.pop("TRAINJOBS_DEBUG", None)
    proc = subprocess.run([sys.executable, "-m", "provider", *args], cwd=project, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)
    no_traceback(proc)
    return proc


def test_list_status_and_artifacts_of_a_stacks_jobs(project: Path, backend: VertexBackend,
                                                    emulator: Emulator) -> None:
    mine = start(backend, emulator, "probe_mine", args=["--steps", "2"])
    other = start(backend, emulator, "probe_other", stack=None)
    backend.wait(mine, timeout=240)
    listed = cli(project, "jobs", "list", "--stack", STACK, "--format", "json")
    assert listed.returncode == 0, listed.stderr
    jobs = json.loads(listed.stdout)
    assert [j["id"] for j in jobs] == [mine]  # the stack's jobs only, not the one without its label
    assert jobs[0]["state"] == "SUCCEEDED" and jobs[0]["hardware"] == "n1-standard-8"
    text = cli(project, "jobs", "list", "--stack", STACK).stdout.splitlines()
    assert text[0].split() == ["ID", "NAME", "STATE", "HARDWARE", "STARTED", "DURATION"]
    assert text[1].split()[:3] == [mine, "probe_mine", "SUCCEEDED"]
    for ref in ("probe_mine", mine, f"projects/{PROJECT}/locations/{LOCATION}/customJobs/{mine}"):
        status = cli(project, "status", ref, "--stack", STACK, "--format", "json")
        assert status.returncode == 0, status.stderr
        assert json.loads(status.stdout)["id"] == mine
    described = cli(project, "status", "probe_mine", "--stack", STACK).stdout
    assert f"resource: projects/{PROJECT}/locations/{LOCATION}/customJobs/{mine}" in described
    assert "console: https://console.cloud.google.com/" in described
    arts = cli(project, "artifacts", "probe_mine", "--stack", STACK, "--format", "json")
    assert arts.returncode == 0, arts.stderr
    rows = [json.loads(line) for line in arts.stdout.splitlines()]
    assert any(r["kind"] == "checkpoints" for r in rows), rows
    assert all(r["uri"].startswith("gs://test-bucket/probe_mine/") for r in rows)
    dest = project / "dl"
    assert cli(project, "artifacts", "probe_mine", "--stack", STACK, "--download", str(dest)).returncode == 0
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()) == \
        sorted(r["path"] for r in rows)
    assert other != mine


def test_cancel_a_running_job_of_a_stack(project: Path, backend: VertexBackend, emulator: Emulator) -> None:
    job_id = start(backend, emulator, "probe_long", args=["--steps", "600", "--step-seconds", "0.5"])
    backend.wait(job_id, until=(JobState.RUNNING,), timeout=240)
    proc = cli(project, "cancel", "probe_long", "--stack", STACK, "--format", "json", timeout=240)
    assert json.loads(proc.stdout)["state"] in ("CANCELLING", "CANCELLED")
    assert backend.wait(job_id, timeout=240).state is JobState.CANCELLED


def test_unknown_stack_and_unknown_job_are_one_message_each(project: Path, emulator: Emulator) -> None:
    proc = cli(project, "jobs", "list", "--stack", "nope")
    assert proc.returncode == 2
    assert "--stack 'nope': no stacks/Pulumi.nope.yaml here" in proc.stderr and STACK in proc.stderr
    proc = cli(project, "status", "no_such_job", "--stack", STACK)
    assert proc.returncode == 4  # not found (README, "Exit codes")
    assert "no Vertex AI job 'no_such_job'" in proc.stderr


def test_logs_of_a_stacks_job_from_cloud_logging(project: Path, backend: VertexBackend, emulator: Emulator,
                                                 tmp_path: Path) -> None:
    """The real google-cloud-logging client reads the emulator's entries.list, as for a Vertex AI job."""
    # the job ends with its chief: the chief waits for the worker's last line, which the test reads
    job_id = start(backend, emulator, "probe_logs", workers=1,
                   args=["--steps", "2", "--dump", str(tmp_path / "dump"), "--chief-last", "2"])
    backend.wait(job_id, timeout=240)
    logs = cli(project, "logs", "probe_logs", "--stack", STACK, "--no-timestamps")
    assert logs.returncode == 0, logs.stderr
    lines = logs.stdout.splitlines()
    assert "[workerpool0-0] workerpool0-0: step 1" in lines and "[workerpool1-0] workerpool1-0: done" in lines
    one = cli(project, "logs", job_id, "--stack", STACK, "--replica", "workerpool1-0", "--format", "json")
    rows = [json.loads(line) for line in one.stdout.splitlines()]
    assert rows and {r["replica"] for r in rows} == {"workerpool1-0"}
    followed = cli(project, "logs", "probe_logs", "--stack", STACK, "--follow")
    assert followed.stdout.splitlines()[-1] == f"probe_logs ({job_id}): SUCCEEDED"
    bad = cli(project, "logs", "probe_logs", "--stack", STACK, "--replica", "workerpool3-0")
    assert bad.returncode == 2  # a usage error (README, "Exit codes")
    assert f"--replica 'workerpool3-0': job {job_id} has no such replica; its replicas: workerpool0-0, workerpool1-0" \
        in bad.stderr


def test_tensorboard_of_a_stacks_job_reads_its_logs_from_cloud_storage(project: Path, backend: VertexBackend,
                                                                         emulator: Emulator, tmp_path: Path) -> None:
    pytest.importorskip("tensorboard", reason="the tensorboard extra is not installed")
    import socket
    import time
    import urllib.request

    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    job_id = start(backend, emulator, "probe_tb")
    backend.wait(job_id, timeout=240)
    events = tmp_path / "events"
    EventFileWriter(str(events)).close()  # what a trainer's SummaryWriter leaves in AIP_TENSORBOARD_LOG_DIR
    written = next(events.iterdir())
    gcs_client(PROJECT, emulator.endpoint).bucket("test-bucket").blob(f"probe_tb/logs/{written.name}") \
        .upload_from_filename(str(written))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "provider", "tensorboard", "probe_tb", "--stack", STACK, "--port",
                             str(port)], cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        runs = None
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and not runs:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/data/runs", timeout=5) as answer:
                    runs = json.loads(answer.read())
            except OSError:
                time.sleep(0.5)
        assert runs == ["logs"], runs  # downloaded from the job's output directory in Cloud Storage
        proc.terminate()  # as a service manager or `kill` stops it: TensorBoard must go with it
        assert proc.wait(timeout=60) == 0
        assert port_closes(port), "TensorBoard still serves after trainjobs tensorboard was stopped"
        assert not list(Path(tempfile.gettempdir()).glob(f"trainjobs-tensorboard-{job_id}-*")), \
            "the downloaded copy of the logs is left behind"
    finally:
        stop_process(proc)
