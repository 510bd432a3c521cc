"""trainjobs run / jobs list / status / logs / cancel, as a user runs them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..conftest import ROOT, no_traceback, run_cli
from .conftest import local_home


@pytest.fixture
def home(tmp_path: Path, env_cache: Path) -> Iterator[dict[str, str]]:
    yield from local_home(tmp_path, env_cache)


def test_run_the_example_spec_end_to_end(home: dict[str, str]) -> None:
    proc = run_cli("run", "specs/local/simple.yaml", env=home, timeout=180)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "local_simple" in proc.stdout and "SUCCEEDED" in proc.stdout
    assert "[workerpool0-0] epoch 19" in proc.stdout
    storage = Path(home["TRAINJOBS_HOME"]) / "storage" / "local-bucket" / "jobs" / "local_simple"
    assert (storage / "model" / "model.json").is_file()
    listed = run_cli("jobs", "list", env=home)
    assert "local_simple" in listed.stdout and "SUCCEEDED" in listed.stdout
    status = json.loads(run_cli("status", "local_simple", "--format", "json", env=home).stdout)
    assert status["state"] == "SUCCEEDED" and status["replicas"][0]["name"] == "workerpool0-0"
    logs = run_cli("logs", "local_simple", "--replica", "workerpool0-0", "--no-timestamps", env=home)
    assert logs.stdout.splitlines()[0].startswith("[workerpool0-0] ")


def test_detach_then_cancel(home: dict[str, str], tmp_path: Path) -> None:
    spec = tmp_path / "long.yaml"
    text = (ROOT / "specs/local/simple.yaml").read_text()
    text = text.replace('args: [--epochs, "20", --learning_rate, "0.2"]', 'args: [--epochs, "100000", --sleep, "0.05"]')
    text = text.replace("path: ../../examples/trainers/simple/trainer",
                        f"path: {ROOT / 'examples/trainers/simple/trainer'}")
    text = text.replace("jobs/local_simple", "jobs/local_long")
    spec.write_text(text)
    proc = run_cli("run", str(spec), "--detach", env=home, timeout=120)
    assert proc.returncode == 0, proc.stderr
    job_id = proc.stdout.strip()
    assert job_id.isdigit()
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        status = json.loads(run_cli("status", job_id, "--format", "json", env=home).stdout)
        if status["state"] == "RUNNING":
            break
        time.sleep(0.2)
    assert status["state"] == "RUNNING"
    cancel = run_cli("cancel", job_id[:12], env=home)
    assert cancel.returncode == 0 and "CANCELLED" in cancel.stdout


def test_follow_logs_until_the_end(home: dict[str, str]) -> None:
    proc = run_cli("run", "specs/local/simple.yaml", "--detach", env=home, timeout=120)
    job_id = proc.stdout.strip()
    logs = run_cli("logs", job_id, "--follow", env=home, timeout=120)
    assert logs.returncode == 0
    *output, final = logs.stdout.rstrip().splitlines()
    assert output[-1].endswith("/jobs/local_simple/model/")  # the trainer's last line, then the job's end
    assert final == f"local_simple ({job_id}): SUCCEEDED"


def _interruptible() -> None:
    """In the child: SIGINT as a terminal's foreground process gets it. A harness that started the
    suite in the background (a non-interactive shell's ``&``) leaves SIGINT ignored, and Python
    then never raises KeyboardInterrupt: the Ctrl-C this test sends would do nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_detaches_and_the_job_keeps_running(home: dict[str, str], tmp_path: Path) -> None:
    spec = tmp_path / "long.yaml"
    text = (ROOT / "specs/local/simple.yaml").read_text()
    text = text.replace('args: [--epochs, "20", --learning_rate, "0.2"]', 'args: [--epochs, "100000", --sleep, "0.05"]')
    text = text.replace("path: ../../examples/trainers/simple/trainer",
                        f"path: {ROOT / 'examples/trainers/simple/trainer'}").replace("local_simple", "local_ctrl_c")
    spec.write_text(text)
    out_path, err_path = tmp_path / "run.out", tmp_path / "run.err"
    with open(out_path, "w") as out, open(err_path, "w") as err:  # files, not pipes: nothing can block the CLI
        # ResourceWarnings shown: the supervisor left running on purpose must not be reported as leaked
        proc = subprocess.Popen([sys.executable, "-W", "always::ResourceWarning", "-m", "provider", "run", str(spec)],
                                cwd=ROOT,
                                env={**os.environ, **home, "NO_COLOR": "1"}, stdout=out, stderr=err,
                                preexec_fn=_interruptible)
    try:
        # The CLI prints "...: RUNNING" once it follows a running job: only then is Ctrl-C a detach.
        deadline = time.monotonic() + 300
        while ": RUNNING" not in out_path.read_text() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert proc.poll() is None and ": RUNNING" in out_path.read_text(), \
            out_path.read_text() + err_path.read_text()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    out_text = out_path.read_text()
    assert proc.returncode == 130 and "keeps running" in out_text, out_text + err_path.read_text()
    assert "is still running" not in err_path.read_text(), err_path.read_text()
    assert json.loads(run_cli("status", "local_ctrl_c", "--format", "json", env=home).stdout)["state"] == "RUNNING"
    assert run_cli("cancel", "local_ctrl_c", env=home).returncode == 0


def test_user_errors_are_one_clear_message(home: dict[str, str], tmp_path: Path) -> None:
    bad = run_cli("run", "tests/negative/three_t4.yaml", env=home)
    no_traceback(bad)
    assert bad.returncode == 1 and "nothing was started" in bad.stderr
    tpu = run_cli("run", "specs/nlp/tpu_v5e.yaml", env=home)
    no_traceback(tpu)
    assert tpu.returncode == 1 and "the local backend cannot run TPU jobs" in tpu.stderr
    missing = run_cli("status", "no_such_job", env=home)
    no_traceback(missing)
    assert missing.returncode == 4 and "no local job 'no_such_job'" in missing.stderr
    spec = tmp_path / "container.yaml"
    spec.write_text((ROOT / "specs/local/simple.yaml").read_text().replace(
        """    pythonPackage:
      path: ../../examples/trainers/simple/trainer
      module: trainer.task
      executorImage: us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-4.py310:latest""",
        "    container: {image: gcr.io/acme/trainer:1}"))
    container = run_cli("run", str(spec), env=home)
    no_traceback(container)
    assert container.returncode == 1 and "no container engine is available here" in container.stderr
    assert "nothing was started" in container.stderr
    assert "no local jobs yet" in run_cli("jobs", "list", env=home).stdout


GPU_SPEC = """\
apiVersion: trainjobs/v1
kind: TrainingJob
metadata: {name: gpu_job, team: platform, labels: {cost-center: platform}}
spec:
  region: us-central1
  workerPools:
    chief: {machineType: n1-standard-4, accelerator: {type: NVIDIA_TESLA_T4, count: 1}}
  application:
    pythonPackage:
      path: trainer
      module: trainer.task
      executorImage: us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-4.py310:latest
  jobDir: gs://local-bucket/jobs/gpu_job
"""


def test_a_submit_refused_for_want_of_gpus_stages_and_writes_nothing(home: dict[str, str], tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "trainer").mkdir(parents=True)
    (project / ".git").mkdir()  # the repository boundary
    (project / "trainer" / "__init__.py").write_text("")
    (project / "trainer" / "task.py").write_text("print('trained')\n")
    (project / "gpu.yaml").write_text(GPU_SPEC)
    for _ in range(2):  # the second run says nothing of an earlier run's files: there are none
        proc = run_cli("run", str(project / "gpu.yaml"), env=home, cwd=project, timeout=120)
        no_traceback(proc)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert "needs 1 GPU(s) at once and this machine has 0" in proc.stderr and "--cpu" in proc.stderr
        assert "already holds" not in proc.stderr
    home_dir = Path(home["TRAINJOBS_HOME"])
    written = [p for p in home_dir.rglob("*") if p.is_file()] if home_dir.exists() else []
    assert written == [], written  # nothing staged under storage/, no job record


def test_the_main_job_run_again_trains_or_says_what_to_type(home: dict[str, str]) -> None:
    first = run_cli("run", "specs/local/simple.yaml", env=home, timeout=180)
    assert first.returncode == 0 and "[workerpool0-0] epoch 19" in first.stdout, first.stdout + first.stderr
    again = run_cli("run", "specs/local/simple.yaml", env=home, timeout=180)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "already holds the files of local job" in again.stderr and "--fresh" in again.stderr
    assert "nothing left to train" in again.stdout and "trainjobs run --fresh SPEC" in again.stdout
    assert "[workerpool0-0] epoch " not in again.stdout
    fresh = run_cli("run", "--fresh", "specs/local/simple.yaml", env=home, timeout=180)  # as scripts/try.sh runs it
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    assert "[workerpool0-0] epoch 0: loss=" in fresh.stdout and "[workerpool0-0] epoch 19" in fresh.stdout
    assert "resuming" not in fresh.stdout
