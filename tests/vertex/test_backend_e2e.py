"""The Vertex backend end to end: stage, create, run on the local backend, get, list, cancel, delete.

Everything goes through google-cloud-aiplatform's JobServiceClient (REST) and
google-cloud-storage against the emulator; the jobs are real processes.
"""

from __future__ import annotations

import pickle

import pytest

from provider.backends.base import IDENTITY_LABEL, FailedPrecondition, JobState, NotFound
from provider.backends.settings import open_backend
from provider.backends.vertex import VertexBackend
from provider.backends.vertex.settings import VertexSettings
from provider.emulator.server import Emulator
from provider.packaging.gcs import GcsStager, gcs_client
from tests.vertex.conftest import BUCKET, LOCATION, PROJECT, probe_spec, request_for, submit

pytestmark = pytest.mark.slow


def test_a_python_package_job_runs_through_the_real_client(backend: VertexBackend, emulator: Emulator,
                                                           client: object) -> None:
    job, request = request_for(emulator, probe_spec("e2e_probe", args=["--steps", "2"]), identity="e2e-1")
    uri = request.body["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["packageUris"][0]
    # The package went up through the Cloud Storage JSON API, into the storage the local backend reads.
    assert uri.startswith(f"gs://{BUCKET}/trainjobs/packages/")
    assert GcsStager(gcs_client(PROJECT, emulator.endpoint)).exists(uri)
    assert (emulator.storage_root / uri[len("gs://"):]).is_file()

    from provider.submission.launch import submission

    status = backend.submit(submission(job, request))
    assert status.backend == "vertex" and status.kind == "CustomJob"
    assert status.name == f"projects/{PROJECT}/locations/{LOCATION}/customJobs/{status.id}"
    assert status.state in (JobState.QUEUED, JobState.PENDING, JobState.RUNNING)
    assert status.console_url == (f"https://console.cloud.google.com/agent-platform/locations/{LOCATION}/training/"
                                  f"{status.id}?project={PROJECT}")

    done = backend.wait(status.id, timeout=120)
    assert done.state is JobState.SUCCEEDED, done.error
    assert done.start_time and done.end_time and done.error is None
    assert done.output_dir == "gs://test-bucket/out"
    # The job really ran: its replica wrote a checkpoint into the emulator's storage.
    assert (emulator.storage_root / "test-bucket" / "out" / "checkpoints" / "workerpool0-0.json").is_file()

    assert backend.get(status.name).id == status.id  # by resource name as well as by id
    listed = backend.list({IDENTITY_LABEL: "e2e-1"})
    assert [s.id for s in listed] == [status.id]
    assert backend.list({IDENTITY_LABEL: "another"}) == []
    assert backend.find({"trainjobs-job": "e2e_probe"}).id == status.id  # type: ignore[union-attr]

    backend.delete(status.id)
    with pytest.raises(NotFound):
        backend.get(status.id)
    assert backend.list() == []


def test_cancel_then_delete_with_the_finished_operation(backend: VertexBackend, emulator: Emulator,
                                                        client: object) -> None:
    status = submit(backend, emulator, probe_spec("long_probe", args=["--steps", "200", "--step-seconds", "0.1"]))
    running = backend.wait(status.id, until=(JobState.RUNNING,), timeout=120)
    assert running.state is JobState.RUNNING
    with pytest.raises(FailedPrecondition, match="cancel it before deleting it"):
        backend.delete(status.id)

    cancelled = backend.cancel(status.id, wait=30)
    assert cancelled.state is JobState.CANCELLED
    raw = client.get_custom_job(name=status.name)  # type: ignore[attr-defined]
    assert raw.error.code == 1  # google.rpc.Code.CANCELLED, as the API documents
    assert raw.state.name == "JOB_STATE_CANCELLED"
    assert backend.cancel(status.id).state is JobState.CANCELLED  # cancelling a finished job changes nothing

    operation = client.delete_custom_job(name=status.name)  # type: ignore[attr-defined]
    assert operation.done()
    assert operation.operation.name.startswith(f"projects/{PROJECT}/locations/{LOCATION}/operations/")
    assert operation.metadata.generic_metadata.create_time  # DeleteOperationMetadata
    operation.result(timeout=5)  # google.protobuf.Empty
    again = client.get_operation({"name": operation.operation.name})  # type: ignore[attr-defined]
    assert again.done and again.name == operation.operation.name
    with pytest.raises(NotFound):
        backend.get(status.id)


def test_a_hyperparameter_tuning_job_through_the_backend(backend: VertexBackend, emulator: Emulator) -> None:
    tuning = {"goal": "MAXIMIZE", "metric": "score", "maxTrials": 3, "maxParallelTrials": 2,
              "algorithm": "GRID_SEARCH",
              "params": [{"name": "lr", "type": "DISCRETE", "values": [0.1, 0.3, 0.5]}]}
    status = submit(backend, emulator, probe_spec("tuned_probe", tuning=tuning), identity="hpt-1")
    assert status.kind == "HyperparameterTuningJob"
    assert "/hyperparameterTuningJobs/" in status.name
    done = backend.wait(status.id, timeout=180)
    assert done.state is JobState.SUCCEEDED, done.error
    assert len(done.trials) == 3
    assert {t.state for t in done.trials} == {"SUCCEEDED"}
    assert sorted(dict(t.parameters)["lr"] for t in done.trials) == [0.1, 0.3, 0.5]
    best = next(t for t in done.trials if t.id == done.best_trial)
    assert dict(best.parameters)["lr"] == 0.3 and best.metric == 0.0
    # Adoption looks in the collection of the request's kind.
    assert [s.id for s in backend.list({IDENTITY_LABEL: "hpt-1"})] == [status.id]
    again = submit(backend, emulator, probe_spec("tuned_probe", tuning=tuning), identity="hpt-1")
    assert again.id == status.id
    backend.delete(status.id)
    with pytest.raises(NotFound):
        backend.get(status.id)


def test_the_backend_is_built_by_name_and_pickles_without_its_client(emulator: Emulator) -> None:
    settings = VertexSettings(project=PROJECT, region=LOCATION, api_endpoint=emulator.endpoint)
    backend = open_backend(settings).backend
    assert isinstance(backend, VertexBackend)
    assert backend.list() == []  # builds and caches a client
    assert backend._clients
    copy = pickle.loads(pickle.dumps(backend))
    assert copy._clients == {} and copy.project == PROJECT and copy.api_endpoint == emulator.endpoint
    assert copy.list() == []


def test_regional_endpoints_by_default() -> None:
    backend = VertexBackend(PROJECT, "europe-west4")
    assert backend.endpoint() == "europe-west4-aiplatform.googleapis.com"
    assert backend.endpoint("asia-east1") == "asia-east1-aiplatform.googleapis.com"
    assert VertexBackend(PROJECT, "us-central1", api_endpoint="http://127.0.0.1:9/").endpoint() == \
        "http://127.0.0.1:9"
