"""The emulator keeps its state across a restart, and its running jobs keep running meanwhile."""

from __future__ import annotations

import pytest
import requests

from provider.backends.base import JobState
from provider.backends.vertex import VertexBackend
from provider.emulator.store import StateDirBusy
from tests.vertex.conftest import BUCKET, FAST_POLL, FAST_RETRY, LOCATION, PROJECT, Emulators, probe_spec, submit

pytestmark = pytest.mark.slow


def test_a_restarted_emulator_serves_the_same_jobs(emulators: Emulators, client: object) -> None:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1

    first = emulators.running[0]
    backend = VertexBackend(PROJECT, LOCATION, api_endpoint=first.endpoint, retry=FAST_RETRY, poll=FAST_POLL)
    finished = submit(backend, first, probe_spec("done_before", args=["--steps", "1"]))
    assert backend.wait(finished.id, timeout=120).state is JobState.SUCCEEDED
    deleted = submit(backend, first, probe_spec("deleted_before", args=["--steps", "1"]))
    backend.wait(deleted.id, timeout=120)
    operation = client.delete_custom_job(name=deleted.name).operation.name  # type: ignore[attr-defined]
    # A job the local backend refuses (its package is not in storage) is created FAILED.
    broken = probe_spec("never_started")
    broken["spec"]["application"]["pythonPackage"] = {
        "uris": [f"gs://{BUCKET}/missing/probe.tar.gz"], "module": "probe.task",
        "executorImage": "us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-4.py310:latest"}
    refused = submit(backend, first, broken)
    assert refused.state is JobState.FAILED and "is not in local storage" in (refused.error or "")
    running = submit(backend, first, probe_spec("runs_across", args=["--steps", "25", "--step-seconds", "0.1"]))
    assert backend.wait(running.id, until=(JobState.RUNNING,), timeout=120).state is JobState.RUNNING
    before = {s.id: s for s in backend.list()}

    emulators.stop(first)
    with pytest.raises(requests.exceptions.ConnectionError, match="Connection refused"):
        client.get_custom_job(name=running.name)  # type: ignore[attr-defined]

    second = emulators.start()
    backend = VertexBackend(PROJECT, LOCATION, api_endpoint=second.endpoint, retry=FAST_RETRY, poll=FAST_POLL)
    after = {s.id: s for s in backend.list()}
    assert set(after) == set(before) == {finished.id, refused.id, running.id}
    assert after[finished.id].state is JobState.SUCCEEDED
    assert after[finished.id].create_time == before[finished.id].create_time
    assert after[refused.id].state is JobState.FAILED and after[refused.id].error == refused.error
    # The job kept running while no emulator was up, and ends as it would have.
    assert backend.wait(running.id, timeout=120).state is JobState.SUCCEEDED
    # The delete operation survived too.
    second_client = aiplatform_v1.JobServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                                   client_options={"api_endpoint": second.endpoint})
    assert second_client.get_operation({"name": operation}).done


def test_one_emulator_per_state_dir(emulators: Emulators, emulator: object) -> None:
    with pytest.raises(StateDirBusy, match=r"another emulator \(pid \d+\) is serving"):
        emulators.start()
