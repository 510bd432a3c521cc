"""A log follow ends when its reader goes away (``stop``), even while the job prints nothing: the
console's log stream of a page that was closed gives its thread back. Both backends, real jobs:
the local backend directly, the Vertex backend through the emulator's Cloud Logging API."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from provider.backends.base import Backend, JobState
from provider.backends.local.backend import LocalBackend
from provider.backends.log_line import LogLine, stream
from provider.backends.vertex import VertexBackend
from provider.emulator.server import Emulator
from tests.local.conftest import cleanup, probe_spec
from tests.local.conftest import submit as submit_local
from tests.vertex.conftest import submit

pytestmark = pytest.mark.slow
QUIET = ["--steps", "1", "--step-seconds", "3600"]  # once its replica runs, nothing for an hour


def follow_then_stop(backend: Backend, job_id: str) -> None:
    stop = threading.Event()
    lines: Iterator[LogLine] = stream(backend, job_id, follow=True, stop=stop)
    ended = threading.Event()

    def drain() -> None:
        for _ in lines:
            pass
        ended.set()

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    assert not ended.wait(3), "the follow ended while the job runs and nothing stopped it"
    stop.set()
    assert ended.wait(120), "the follow did not end when its reader went away"
    reader.join(10)
    assert backend.get(job_id).state is JobState.RUNNING


def test_the_local_follow_ends_on_stop(job_env: None) -> None:
    local = LocalBackend()
    try:
        job = submit_local(local, probe_spec("quiet", args=QUIET))
        local.wait(job.id, until=(JobState.RUNNING,), timeout=300)
        follow_then_stop(local, job.id)
    finally:
        cleanup(local)


def test_the_vertex_follow_ends_on_stop(emulator: Emulator, backend: VertexBackend) -> None:
    job = submit(backend, emulator, probe_spec("quiet", args=QUIET))
    backend.wait(job.id, until=(JobState.RUNNING,), timeout=300)
    follow_then_stop(backend, job.id)
    backend.cancel(job.id, wait=60)
