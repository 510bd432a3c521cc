"""A whole gcloud session against ``trainjobs emulator``: storage cp and ls, custom-jobs create,
describe, list and stream-logs (Cloud Logging entries.list for the job's replicas).

gcloud is pointed at the emulator exactly as the emulator's start-up text says (a scratch
CLOUDSDK_CONFIG with api_endpoint_overrides). The job is the probe trainer, packaged, uploaded
with ``gcloud storage cp`` and run on the local backend.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from provider.emulator.server import Emulator
from provider.packaging.sdist import build_sdist
from tests.gcloud.standin import write_config
from tests.vertex.conftest import BUCKET, PROBE, emulator, emulators, job_env  # noqa: F401  (fixtures)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("gcloud") is None,
                       reason="gcloud is not installed: the gcloud session test needs the Google Cloud CLI"),
]

EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-4.py310:latest"


def _gcloud(cfg: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CLOUDSDK_CONFIG": str(cfg)}
    return subprocess.run(["gcloud", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_a_gcloud_session_against_the_emulator(emulator: Emulator, tmp_path: Path) -> None:  # noqa: F811
    cfg = tmp_path / "cloudsdk"
    write_config(cfg, emulator.endpoint + "/", project="my-project")
    package = build_sdist(PROBE, tmp_path / "dist")

    cp = _gcloud(cfg, tmp_path, "storage", "cp", str(package), f"gs://{BUCKET}/pkgs/")
    assert cp.returncode == 0, cp.stderr  # the multipart upload with gcloud's single-quoted boundary
    ls = _gcloud(cfg, tmp_path, "storage", "ls", f"gs://{BUCKET}/pkgs/")
    assert ls.returncode == 0, ls.stderr
    assert f"gs://{BUCKET}/pkgs/{package.name}" in ls.stdout

    (tmp_path / "job.yaml").write_text(
        "workerPoolSpecs:\n"
        "  - machineSpec: {machineType: n1-standard-4}\n"
        "    replicaCount: 1\n"
        "    pythonPackageSpec:\n"
        f"      executorImageUri: {EXECUTOR}\n"
        f"      packageUris: [gs://{BUCKET}/pkgs/{package.name}]\n"
        "      pythonModule: probe.task\n"
        "      args: [--steps, '3']\n")
    create = _gcloud(cfg, tmp_path, "ai", "custom-jobs", "create", "--region=us-central1",
                     "--display-name=gcloud-session", "--config=job.yaml", "--format=value(name)")
    assert create.returncode == 0, create.stderr
    name = create.stdout.strip().splitlines()[-1]
    assert name.startswith("projects/my-project/locations/us-central1/customJobs/")

    deadline = time.monotonic() + 240
    state = ""
    while time.monotonic() < deadline:
        described = _gcloud(cfg, tmp_path, "ai", "custom-jobs", "describe", name, "--format=value(state)")
        assert described.returncode == 0, described.stderr
        state = described.stdout.strip().splitlines()[-1]
        if state in ("JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED", "JOB_STATE_CANCELLED"):
            break
        time.sleep(2)
    assert state == "JOB_STATE_SUCCEEDED"
    listed = _gcloud(cfg, tmp_path, "ai", "custom-jobs", "list", "--region=us-central1", "--format=value(name)")
    assert listed.returncode == 0 and name in listed.stdout, listed.stderr

    # The job has ended, so gcloud stops after two empty polls.
    logs = _gcloud(cfg, tmp_path, "ai", "custom-jobs", "stream-logs", name, "--polling-interval=1")
    assert logs.returncode == 0, logs.stderr
    lines = [line for line in logs.stdout.splitlines() if "workerpool0-0" in line]
    assert any(line.rstrip().endswith("workerpool0-0: step 2") for line in lines), logs.stdout
    assert any(line.rstrip().endswith("workerpool0-0: done") for line in lines), logs.stdout
    only_chief = _gcloud(cfg, tmp_path, "ai", "custom-jobs", "stream-logs", name, "--polling-interval=1",
                         "--task-name=setup")
    assert "workerpool0-0: done" not in only_chief.stdout
