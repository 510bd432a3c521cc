"""Fixtures for the cloud path: the emulator in-process on a free port, the real clients against it.

Every test goes through the real google-cloud-aiplatform (and google-cloud-storage) client over
REST, and every job runs on the real local backend, with real processes. Each test has its own
state dir; at the end the emulator is stopped and no job process may survive (as in
tests/local). Installed trainers are shared by the session's tests.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from provider.backends.base import JobStatus
from provider.backends.polling import Backoff
from provider.backends.vertex import VertexBackend
from provider.core.vertex_request import VertexRequest
from provider.emulator.server import Emulator
from provider.packaging.gcs import GcsStager, gcs_client
from provider.spec.model import TrainingJob
from provider.submission.launch import labels_for, prepare, submission
from provider.validation.rules import Context, Target
from provider.validation.validator import validate_data
from tests.local.conftest import PROBE, ROOT, cleanup, probe_spec
from tests.vertex.fakes import ScriptedServer

PROJECT = "test-project"
LOCATION = "us-central1"
PARENT = f"projects/{PROJECT}/locations/{LOCATION}"
BUCKET = "test-bucket"  # probe_spec stages to gs://test-bucket
FAST_RETRY = Backoff(initial=0.05, multiplier=2.0, maximum=0.2, attempts=4, jitter=0.5)
FAST_POLL = Backoff(initial=0.1, multiplier=1.5, maximum=0.5, attempts=0, jitter=0.0)

__all__ = ["BUCKET", "LOCATION", "PARENT", "PROBE", "PROJECT", "ROOT", "probe_spec"]


@pytest.fixture
def job_env(tmp_path: Path, env_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the emulator's jobs inherit: no GPUs here, the shared env cache, a private home."""
    monkeypatch.setenv("TRAINJOBS_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("TRAINJOBS_ENV_CACHE", str(env_cache))
    monkeypatch.setenv("TRAINJOBS_LOCAL_GPUS", "none")
    monkeypatch.delenv("TRAINJOBS_STORAGE", raising=False)
    monkeypatch.delenv("TRAINJOBS_LOCAL_GPU_MODE", raising=False)
    monkeypatch.delenv("STORAGE_EMULATOR_HOST", raising=False)


class Emulators:
    """Start (and restart) emulators on one state dir; stop them and check no job survives."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.running: list[Emulator] = []
        self.stopped: list[Emulator] = []

    def start(self, **kwargs: Any) -> Emulator:
        emulator = Emulator(self.state_dir, **kwargs).start()
        self.running.append(emulator)
        return emulator

    def stop(self, emulator: Emulator) -> None:
        emulator.stop()
        self.running.remove(emulator)
        self.stopped.append(emulator)

    def close(self) -> None:
        for emulator in list(self.running):
            self.stop(emulator)
        for emulator in self.stopped[-1:]:
            cleanup(emulator.local)


@pytest.fixture
def emulators(tmp_path: Path, job_env: None) -> Iterator[Emulators]:
    group = Emulators(tmp_path / "emulator")
    try:
        yield group
    finally:
        group.close()


@pytest.fixture
def emulator(emulators: Emulators) -> Emulator:
    emu = emulators.start()
    gcs_client(PROJECT, emu.endpoint).create_bucket(BUCKET)
    return emu


@pytest.fixture
def backend(emulator: Emulator) -> VertexBackend:
    return VertexBackend(PROJECT, LOCATION, api_endpoint=emulator.endpoint, retry=FAST_RETRY, poll=FAST_POLL)


@pytest.fixture
def client(emulator: Emulator) -> Any:
    """The real low-level client, over REST."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1

    return aiplatform_v1.JobServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                          client_options={"api_endpoint": emulator.endpoint})


@pytest.fixture
def scripted() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    yield server
    server.stop()


def vertex_job(doc: dict[str, Any]) -> TrainingJob:
    result = validate_data(copy.deepcopy(doc), "spec", Context(target=Target.VERTEX))
    assert result.job is not None and result.ok, [p.message for p in result.problems]
    return result.job


def request_for(emulator: Emulator, doc: dict[str, Any], identity: str | None = None) -> tuple[TrainingJob,
                                                                                              VertexRequest]:
    """Stage the spec's package through the emulator's Cloud Storage API, and build its request."""
    job = vertex_job(doc)
    stager = GcsStager(gcs_client(PROJECT, emulator.endpoint))
    request = prepare(job, ROOT, project=PROJECT, stager=stager, labels=labels_for(job, identity=identity))
    return job, request


def submit(backend: VertexBackend, emulator: Emulator, doc: dict[str, Any], identity: str | None = None) -> JobStatus:
    job, request = request_for(emulator, doc, identity)
    return backend.submit(submission(job, request))


CURVES = ROOT / "tests" / "fixtures" / "trainers" / "curves"  # writes TensorBoard event files
TRACKED_ACCOUNT = f"trainer@{PROJECT}.iam.gserviceaccount.com"  # the SDK and the validator want one with tracking
JOB_TIMEOUT = 300.0  # generous: the machine is loaded


def run_curves_job(emulator: Emulator, client: Any, name: str, spec_fields: dict[str, Any],
                   output: str = "gs://test-bucket/out") -> Any:
    """A python-package CustomJob of the curves trainer, created through the gapic ``client`` (as
    ``CustomJob.run(tensorboard=...)`` sends it) with ``spec_fields`` (its ``tensorboard``, ``experiment``
    ...) and a service account in its jobSpec, polled until it ends; it must have SUCCEEDED."""
    import json
    import time

    from google.cloud import aiplatform_v1 as v1

    doc = probe_spec(name, output=output)
    doc["spec"]["application"]["pythonPackage"].update(path=str(CURVES), module="curves.task")
    _, request = request_for(emulator, doc)
    body = {**request.body, "jobSpec": {**request.body["jobSpec"], **spec_fields, "serviceAccount": TRACKED_ACCOUNT}}
    job = client.create_custom_job(parent=PARENT, custom_job=v1.CustomJob.from_json(json.dumps(body)))
    deadline = time.monotonic() + JOB_TIMEOUT
    while job.state.name not in ("JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED") and time.monotonic() < deadline:
        time.sleep(0.2)
        job = client.get_custom_job(name=job.name)
    assert job.state.name == "JOB_STATE_SUCCEEDED", job.error
    return job


def emulator_stack(proj: Path, stack: str, endpoint: str, extra: str = "") -> Path:
    """``stacks/Pulumi.STACK.yaml`` under ``proj``: a vertex stack of team ``team`` whose
    ``trainjobs:apiEndpoint`` is the emulator at ``endpoint``, its specs ``specs/*.yaml``; ``extra``
    holds more config lines, each indented two spaces."""
    path = proj / "stacks" / f"Pulumi.{stack}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"""\
config:
  trainjobs:backend: vertex
  trainjobs:team: team
  trainjobs:environment: emu
  gcp:project: {PROJECT}
  gcp:region: {LOCATION}
  trainjobs:apiEndpoint: {endpoint}
  trainjobs:specs:
    - specs/*.yaml
{extra}""")
    return path
