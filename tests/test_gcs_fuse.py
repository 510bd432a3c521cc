"""A trainer's own /gcs/BUCKET/... paths (Cloud Storage FUSE on Vertex AI) on this machine
(provider/backends/local/gcs_fuse.py, gcs_namespace.py).

Real trainer processes, run by the emulator on the local backend, build /gcs/ paths in their own
code (open, os, pathlib, a child program); what they wrote is read back through the real
google-cloud-storage client against the emulator. Where no namespace is made, the job's log and
its record say by name that such paths do not reach storage, and how to fix it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from provider.backends.local import gcs_namespace
from provider.emulator.server import Emulator
from provider.packaging.gcs import gcs_client
from tests.vertex import conftest as vertex
from tests.vertex.conftest import BUCKET, PARENT, PROJECT, ROOT, probe_spec, request_for

# the emulator's fixtures (tests/vertex/conftest.py): an emulator per test, the jobs' environment, a client
job_env, emulators, emulator, client = vertex.job_env, vertex.emulators, vertex.emulator, vertex.client

pytestmark = pytest.mark.slow

TRAINER = ROOT / "tests" / "fixtures" / "trainers" / "gcs_paths"
JOB_TIMEOUT = 300.0  # generous: the machine is loaded
HOST_HAS_GCS = os.path.lexists("/gcs")


def _run(emulator: Emulator, client: Any, name: str, child: str = "sh") -> Any:
    from google.cloud import aiplatform_v1 as v1

    bucket = gcs_client(PROJECT, emulator.endpoint).bucket(BUCKET)
    bucket.blob("data/input.csv").upload_from_string("a,b\n1,2\n3,4\n")
    doc = probe_spec(name, args=["--bucket", BUCKET, "--child", child])
    doc["spec"]["application"]["pythonPackage"].update(path=str(TRAINER), module="gcs_paths.task")
    _, request = request_for(emulator, doc)
    job = client.create_custom_job(parent=PARENT, custom_job=v1.CustomJob.from_json(json.dumps(request.body)))
    deadline = time.monotonic() + JOB_TIMEOUT
    while job.state.name not in ("JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED") and time.monotonic() < deadline:
        time.sleep(0.2)
        job = client.get_custom_job(name=job.name)
    return job


def _chief_log(emulator: Emulator, job: Any) -> str:
    job_id = job.name.rsplit("/", 1)[1]
    return (emulator.local.store.job_dir(job_id) / "logs" / "workerpool0-0.log").read_text()


@pytest.mark.skipif(HOST_HAS_GCS, reason="this machine has its own /gcs")
def test_paths_the_trainer_builds_reach_the_emulated_storage(emulator: Emulator, client: Any) -> None:
    job = _run(emulator, client, "gcs_paths")
    assert job.state.name == "JOB_STATE_SUCCEEDED", job.error.message
    bucket = gcs_client(PROJECT, emulator.endpoint).bucket(BUCKET)
    assert bucket.blob("out/count.txt").download_as_text() == "3 rows\n"  # the header and two rows
    assert bucket.blob("out/model/weights.bin").download_as_bytes() == bytes(range(16))
    assert bucket.blob("out/child.txt").download_as_text() == "from-a-child\n"
    assert not bucket.blob("out/rows.txt").exists()  # renamed through /gcs, as on the FUSE mount
    status = emulator.local.get(job.name.rsplit("/", 1)[1])
    assert status.extra["gcs"]["mode"] == "namespace", status.extra["gcs"]
    log = _chief_log(emulator, job)
    assert "listed: ['child.txt', 'count.txt', 'model']" in log
    assert "do not reach storage" not in log
    assert not os.path.lexists("/gcs")  # the host is untouched: /gcs existed in the trainer's namespace only


@pytest.mark.skipif(HOST_HAS_GCS, reason="this machine has its own /gcs")
def test_without_a_namespace_python_code_still_reaches_the_storage(emulator: Emulator, client: Any,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The Python hook (gcs_hook.py), as where user namespaces are forbidden: open, os, pathlib and a
    Python child reach the storage; the log and the record say what does not."""
    monkeypatch.setenv("TRAINJOBS_GCS_FUSE", "python")
    job = _run(emulator, client, "gcs_python", child="python")
    assert job.state.name == "JOB_STATE_SUCCEEDED", job.error.message
    bucket = gcs_client(PROJECT, emulator.endpoint).bucket(BUCKET)
    assert bucket.blob("out/count.txt").download_as_text() == "3 rows\n"
    assert bucket.blob("out/model/weights.bin").download_as_bytes() == bytes(range(16))
    assert bucket.blob("out/child.txt").download_as_text() == "from-a-child\n"
    said = (f"/gcs/ is the storage root {emulator.storage_root} for the trainer's Python code only (open, os, "
            "pathlib; no mount namespace here: TRAINJOBS_GCS_FUSE=python): programs that are not Python, and "
            "libraries that open files in C, do not see it: use the paths Vertex AI gives the trainer instead")
    log = _chief_log(emulator, job)
    assert log.startswith(f"--- trainjobs: {said}"), log[:400]
    record = emulator.local.get(job.name.rsplit("/", 1)[1]).extra["gcs"]
    assert record["mode"] == "python" and record["message"].startswith(said)


@pytest.mark.skipif(HOST_HAS_GCS, reason="this machine has its own /gcs")
def test_without_a_namespace_the_log_and_the_record_say_so(emulator: Emulator, client: Any,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAINJOBS_GCS_FUSE", "off")  # the emulator's supervisors inherit it, as from a shell
    job = _run(emulator, client, "gcs_off")
    assert job.state.name == "JOB_STATE_FAILED"
    said = ("/gcs/ paths built by the trainer's code do not reach storage here (TRAINJOBS_GCS_FUSE=off): use the "
            "paths Vertex AI gives the trainer instead (AIP_MODEL_DIR")
    log = _chief_log(emulator, job)
    assert log.startswith(f"--- trainjobs: {said}"), log[:400]
    assert "No such file or directory: '/gcs/test-bucket/data/input.csv'" in log
    record = emulator.local.get(job.name.rsplit("/", 1)[1]).extra["gcs"]
    assert record["mode"] == "none" and record["message"].startswith(said)


def _in_namespace(root: Path, scratch: Path, script: str, user: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*user, sys.executable, "-I", "-S", gcs_namespace.__file__, str(root), str(scratch), "--",
                           "sh", "-c", script], capture_output=True, text=True, timeout=120, cwd=scratch.parent)


@pytest.mark.skipif(HOST_HAS_GCS, reason="this machine has its own /gcs")
@pytest.mark.parametrize("unprivileged", [False, True])
def test_the_namespace_is_the_processes_own(tmp_path: Path, unprivileged: bool) -> None:
    """As this user, and (when the tests run as root) as nobody, through a user namespace."""
    user: list[str] = []
    if unprivileged:
        setpriv = shutil.which("setpriv")
        if os.geteuid() != 0 or setpriv is None:
            pytest.skip("needs root and setpriv to become an unprivileged user")
        user = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    # nobody must reach the folders: pytest's own are the runner's only
    base = Path(tempfile.mkdtemp(prefix="trainjobs-gcs-")) if unprivileged else tmp_path
    try:
        _check_namespace(base, user, 65534 if unprivileged else os.geteuid())
    finally:
        if unprivileged:
            shutil.rmtree(base)


def _check_namespace(base: Path, user: list[str], uid: int) -> None:
    root, scratch = base / "storage", base / "scratch"
    (root / "bkt").mkdir(parents=True)
    scratch.mkdir()
    for folder in (base, root, root / "bkt", scratch):
        folder.chmod(0o777)
    done = _in_namespace(root, scratch, "echo written > /gcs/bkt/x && id -u && pwd", user)
    assert done.returncode == 0, done.stderr
    assert (root / "bkt" / "x").read_text() == "written\n"
    assert done.stdout.splitlines() == [str(uid), str(base)]  # its own uid (mapped to itself), its working dir
    assert not os.path.lexists("/gcs") and not any(scratch.iterdir())
    missing = subprocess.run([*user, sys.executable, "-I", "-S", gcs_namespace.__file__, str(root), str(scratch),
                              "--", str(base / "no-such-program")], capture_output=True, text=True, timeout=120)
    assert missing.returncode == 127 and "cannot run" in missing.stderr, missing.stderr
