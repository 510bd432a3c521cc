"""The emulator lists a history of 10,000 jobs to the SDK page by page: the first page is the newest,
and the pages reach every job exactly once.

The emulator is a real process (``trainjobs emulator``) and the clients are the real
google-cloud-aiplatform ones over REST. Running 10,000 real jobs would take hours, so the history is
written before the emulator starts, through the emulator's own store (``EmulatorStore.put_job``, as
the server writes a record it accepts): jobs the local backend refused (failed at start, with their
error), which the emulator serves from their records alone. The emulator loads them as it loads any
state dir after a restart.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, run_cli
from tests.vertex.conftest import LOCATION, PARENT, PROJECT

HISTORY = 10_000


def record(i: int) -> dict[str, Any]:
    created = f"2026-01-01T{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}.{i:06d}Z"
    return {"id": f"{1000000000 + i}", "kind": "CustomJob", "parent": PARENT, "create_time": created,
            "end_time": created, "local": False,
            "error": {"code": 9, "message": "The local backend cannot run this job: history"},
            "body": {"displayName": f"job{i}", "labels": {"trainjobs-stack": "emu"}, "jobSpec": {"workerPoolSpecs": [
                {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
                 "containerSpec": {"imageUri": "us-docker.pkg.dev/p/r/i:1"}}]}}}


NEWEST_FIRST = [f"job{i}" for i in reversed(range(HISTORY))]


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from provider.emulator.store import EmulatorStore

    tmp = tmp_path_factory.mktemp("history")
    state = tmp / "state"
    store = EmulatorStore(state)
    store.open()
    try:
        for i in range(HISTORY):
            store.put_job(record(i))
    finally:
        store.close()
    env = {**os.environ, "NO_COLOR": "1", "TRAINJOBS_HOME": str(tmp / "home"), "TRAINJOBS_LOCAL_GPUS": "none"}
    proc = subprocess.Popen([sys.executable, "-m", "provider", "emulator", "--port", "0", "--state-dir", str(state)],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # blocks until the emulator has loaded the state dir and listens
        m = re.match(r"trainjobs emulator: Vertex AI on (http://127\.0\.0\.1:\d+)$", first.strip())
        assert m, first + (proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
        yield m.group(1)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


def test_gapic_pages_start_at_the_newest_and_reach_every_job_once(endpoint: str) -> None:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1

    client = aiplatform_v1.JobServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                            client_options={"api_endpoint": endpoint})
    pages = list(client.list_custom_jobs(request={"parent": PARENT, "page_size": 1000}).pages)
    names = [j.display_name for p in pages for j in p.custom_jobs]
    assert [len(p.custom_jobs) for p in pages] == [1000] * 10
    assert names == NEWEST_FIRST  # every job exactly once, newest first
    first = next(iter(client.list_custom_jobs(request={"parent": PARENT, "page_size": 10}).pages))
    assert [j.display_name for j in first.custom_jobs] == NEWEST_FIRST[:10] and first.next_page_token
    assert all(j.state == aiplatform_v1.JobState.JOB_STATE_FAILED for j in pages[0].custom_jobs)


def test_the_sdk_lists_all_10000(endpoint: str) -> None:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform
    from google.cloud.aiplatform import initializer

    aiplatform.init(project=PROJECT, location=LOCATION, api_endpoint=endpoint, api_transport="rest",
                    credentials=AnonymousCredentials())
    try:
        listed = aiplatform.CustomJob.list()
    finally:
        initializer.global_config.__init__()  # type: ignore[misc]  # forget the endpoint for later tests
    assert len(listed) == HISTORY
    assert sorted(j.display_name for j in listed) == sorted(NEWEST_FIRST)  # each once


def test_jobs_list_through_the_emulator_shows_the_newest(endpoint: str, tmp_path: Path) -> None:
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "Pulumi.emu.yaml").write_text(
        f"config:\n  trainjobs:backend: vertex\n  trainjobs:team: nlp\n  gcp:project: {PROJECT}\n"
        f"  gcp:region: {LOCATION}\n  trainjobs:specs: [specs/*.yaml]\n  trainjobs:apiEndpoint: {endpoint}\n")
    proc = run_cli("jobs", "list", "--stack", "emu", "--limit", "7", "--format", "json", cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert [j["display_name"] for j in json.loads(proc.stdout)] == NEWEST_FIRST[:7]
