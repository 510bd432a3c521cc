"""The Backend protocol's behaviour, the same for every registered backend type.

Each test runs once per backend type of provider.core.backend_registry, opened as a stack of that
type opens it (its registered settings class): the local backend on this machine, and the Vertex
AI backend through the trainjobs emulator, started as a real process (``python -m provider
emulator``) on a free port, its jobs real processes on the emulator's own local backend. The
jobs are the probe trainer's (tests/fixtures/trainers/probe). What is held to one behaviour:
submit, status, find by identity label, resolve by name, logs (whole and from a cursor), wait,
cancel, artifacts (listing and download), idempotent resubmission, and the records that cannot be
read, listed apart. Each test owns what it starts: the emulator is stopped and no job process
survives it (tests/local/conftest.cleanup).

A registered backend type without a harness here fails ``test_every_registered_backend_has_a_harness``:
a new backend joins the suite by adding one.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from provider.backends.artifacts import download, list_artifacts
from provider.backends.base import IDENTITY_LABEL, Backend, JobState, JobStatus, NotFound
from provider.backends.local.backend import LocalBackend
from provider.backends.log_line import LogLine, LogQuery, LogSource, UnknownReplica, stream
from provider.backends.polling import Backoff
from provider.backends.settings import Opened, open_backend, settings_of_stack
from provider.core.backend_registry import REGISTRY, backend_type
from provider.core.backend_types import BackendKind, Outputs
from provider.packaging.stage import Stager
from provider.stack.config import StackConfig
from provider.submission.launch import labels_for, prepare, submission
from provider.validation.rules import Context, Target
from provider.validation.validator import validate_data
from tests.local.conftest import ROOT, cleanup, probe_spec

pytestmark = pytest.mark.slow

PROJECT = "conformance-project"
REGION = "us-central1"
BUCKET = "test-bucket"  # probe_spec's staging bucket and output directory
FAST_POLL = Backoff(initial=0.1, multiplier=1.5, maximum=0.5, attempts=0, jitter=0.0)
DEADLINE = 180.0  # seconds: a loaded machine installs the trainer's environment first


class Harness:
    """One backend of a registered type, opened as a stack of that type opens it, and what the suite
    needs around it: where its jobs stage, and how one of its records is damaged."""

    def __init__(self, kind: BackendKind, stack: StackConfig, damage: Callable[[Harness, JobStatus], str]) -> None:
        self.kind = kind
        self.stack = stack
        self._damage = damage
        self.opened: Opened = open_backend(settings_of_stack(stack))
        self.opened.backend.poll = FAST_POLL  # type: ignore[attr-defined]  # both backends poll by this policy

    @property
    def backend(self) -> Backend:
        return self.opened.backend

    @property
    def stager(self) -> Stager:
        return self.opened.stager

    def reopen(self, stack: StackConfig) -> None:
        self.stack = stack
        self.opened = open_backend(settings_of_stack(stack))
        self.opened.backend.poll = FAST_POLL  # type: ignore[attr-defined]

    def submit(self, name: str, args: list[str], identity: str | None = None) -> JobStatus:
        doc = probe_spec(name, args=args, output=f"gs://{BUCKET}/out/{name}")
        target = Target(backend_type(self.kind).validation_target)
        result = validate_data(copy.deepcopy(doc), "spec", Context(target=target))
        assert result.job is not None and result.ok, [p.message for p in result.problems]
        job = result.job
        request = prepare(job, ROOT, project=self.stack.project_id, stager=self.stager,
                          labels=labels_for(job, identity=identity),
                          check=lambda r: self.backend.check(submission(job, r, cpu_only=True)))
        return self.backend.submit(submission(job, request, cpu_only=True))

    def damage(self, status: JobStatus) -> str:
        """Make ``status``'s record unreadable where the backend keeps it; the id it is then listed by."""
        return self._damage(self, status)


def _stack(kind: str, **settings: Any) -> StackConfig:
    return StackConfig(name="conformance", backend=BackendKind(kind), team="conformance", region=REGION, specs=(),
                       **settings)


# -- the local backend --------------------------------------------------------------------------

def _damage_local(h: Harness, status: JobStatus) -> str:
    backend = h.backend
    assert isinstance(backend, LocalBackend)
    (backend.store.job_dir(status.id) / "job.json").write_text("{ not json")
    return status.id


@pytest.fixture
def local_harness(tmp_path: Path, env_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Harness]:
    monkeypatch.setenv("TRAINJOBS_ENV_CACHE", str(env_cache))
    monkeypatch.setenv("TRAINJOBS_LOCAL_GPUS", "none")
    monkeypatch.delenv("TRAINJOBS_STORAGE", raising=False)
    monkeypatch.delenv("TRAINJOBS_LOCAL_GPU_MODE", raising=False)
    harness = Harness(BackendKind("local"), _stack("local", local_home=str(tmp_path / "home")), _damage_local)
    yield harness
    assert isinstance(harness.backend, LocalBackend)
    cleanup(harness.backend)


# -- the Vertex AI backend, through the emulator as a process --------------------------------------

class EmulatorProcess:
    """``python -m provider emulator`` on a free port and its own state dir; stopped by ``stop``."""

    def __init__(self, state: Path, env: dict[str, str]) -> None:
        self.state = state
        self.env = env
        self.proc: subprocess.Popen[bytes] | None = None
        self.endpoint = ""

    def start(self) -> str:
        out = self.state.parent / "emulator.out"
        with open(out, "wb") as stdout, open(self.state.parent / "emulator.err", "ab") as stderr:
            self.proc = subprocess.Popen([sys.executable, "-m", "provider", "emulator", "--port", "0", "--state-dir",
                                          str(self.state)], cwd=ROOT, env=self.env, stdout=stdout, stderr=stderr)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            m = re.search(r"Vertex AI on (http://127\.0\.0\.1:\d+)", out.read_text(errors="replace"))
            if m:
                self.endpoint = m.group(1)
                return self.endpoint
            assert self.proc.poll() is None, (self.state.parent / "emulator.err").read_text()
            time.sleep(0.1)
        raise AssertionError("the emulator did not say where it serves within 120 s")

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=30)
        self.proc = None


def _damage_vertex(h: Harness, status: JobStatus) -> str:
    """Give the emulator's record of the job an id no resource name can hold (a state dir written by
    something else), as the emulator reads it at its next start."""
    emulator: EmulatorProcess = h.emulator  # type: ignore[attr-defined]
    emulator.stop()
    path = emulator.state / "jobs" / f"{status.id}.json"
    record = json.loads(path.read_text())
    record.update(id=f"{status.id} damaged", local=False, end_time=record["create_time"])
    (emulator.state / "jobs" / f"{status.id}-damaged.json").write_text(json.dumps(record))
    path.unlink()
    # Its local job goes too, or the emulator would adopt it again under its own id at start.
    shutil.rmtree(LocalBackend(home=emulator.state / "local").store.job_dir(status.id))
    endpoint = emulator.start()
    h.reopen(_stack("vertex", project=PROJECT, api_endpoint=endpoint))
    return f"{status.id} damaged"


@pytest.fixture
def vertex_harness(tmp_path: Path, env_cache: Path) -> Iterator[Harness]:
    env = {**os.environ, "NO_COLOR": "1", "TRAINJOBS_ENV_CACHE": str(env_cache), "TRAINJOBS_LOCAL_GPUS": "none",
           "TRAINJOBS_HOME": str(tmp_path / "home")}
    for name in ("TRAINJOBS_STORAGE", "TRAINJOBS_LOCAL_GPU_MODE", "STORAGE_EMULATOR_HOST"):
        env.pop(name, None)
    emulator = EmulatorProcess(tmp_path / "state", env)
    try:
        endpoint = emulator.start()
        from provider.packaging.gcs import gcs_client

        gcs_client(PROJECT, endpoint).create_bucket(BUCKET)
        harness = Harness(BackendKind("vertex"), _stack("vertex", project=PROJECT, api_endpoint=endpoint),
                          _damage_vertex)
        harness.emulator = emulator  # type: ignore[attr-defined]
        yield harness
    finally:
        emulator.stop()
        cleanup(LocalBackend(home=tmp_path / "state" / "local", storage_root=tmp_path / "state" / "storage"))


HARNESSES = {"local": "local_harness", "vertex": "vertex_harness"}


def test_every_registered_backend_has_a_harness() -> None:
    assert sorted(HARNESSES) == sorted(t.kind for t in REGISTRY)


@pytest.fixture(params=[t.kind for t in REGISTRY], ids=str)
def harness(request: pytest.FixtureRequest) -> Harness:
    return request.getfixturevalue(HARNESSES[request.param])  # type: ignore[no-any-return]


# -- the behaviour ---------------------------------------------------------------------------------

def test_submit_status_wait_logs_and_artifacts(harness: Harness, tmp_path: Path) -> None:
    backend = harness.backend
    assert backend.name == harness.kind
    status = harness.submit("conformance_run", ["--steps", "3"])
    assert status.backend == harness.kind and status.kind == "CustomJob"
    assert status.state in (JobState.QUEUED, JobState.PENDING, JobState.RUNNING, JobState.SUCCEEDED)
    assert backend.get(status.id).id == status.id

    done = backend.wait(status.id, timeout=DEADLINE)
    assert done.state is JobState.SUCCEEDED, done.error
    assert done.output_dir == f"gs://{BUCKET}/out/conformance_run"

    lines = [line.text() for line in stream(backend, status.id)]
    assert [line for line in lines if "step" in line and "[workerpool0-0]" in line][-3:] == [
        f"[workerpool0-0] workerpool0-0: step {n}" for n in range(3)]
    assert "[workerpool0-0] workerpool0-0: done" in lines

    found = list_artifacts(done, backend)
    assert [(a.relative, a.kind) for a in found] == [("checkpoints/workerpool0-0.json", "checkpoints")]
    assert found[0].uri == f"gs://{BUCKET}/out/conformance_run/checkpoints/workerpool0-0.json" and found[0].size > 0
    written = download(found, tmp_path / "got", backend)
    assert written == [tmp_path / "got" / "checkpoints" / "workerpool0-0.json"]
    assert json.loads(written[0].read_text()) == {"step": 2}
    # Where the outputs lie is what the type declares.
    on_this_machine = backend.local_path(done.output_dir) is not None
    assert on_this_machine is (backend_type(harness.kind).capabilities.outputs is Outputs.THIS_MACHINE)


def test_logs_read_from_a_cursor_give_each_line_once(harness: Harness) -> None:
    backend = harness.backend
    status = harness.submit("conformance_logs", ["--steps", "12", "--step-seconds", "0.2"])
    read: list[LogLine] = []
    cursor = ""
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        chunk = backend.read_logs(status.id, cursor)
        read.extend(chunk.lines)
        cursor = chunk.cursor
        if chunk.ended:  # the job had ended before that read: it brought the last lines
            break
        time.sleep(0.3)
    assert backend.get(status.id).state is JobState.SUCCEEDED
    assert read == list(stream(backend, status.id))  # a one-off read gives the same lines, the same times
    assert [line.text() for line in read if ": step " in line.message] == [
        f"[workerpool0-0] workerpool0-0: step {n}" for n in range(12)]
    times = [line.time for line in read if line.source is LogSource.TRAINER]
    assert all(t is not None for t in times) and times == sorted(times)  # type: ignore[type-var]  # None ruled out
    assert backend.read_logs(status.id, cursor).lines == ()  # nothing new past the last cursor
    assert backend.read_logs(status.id, cursor, LogQuery(replica="workerpool0-0")).lines == ()
    assert [line.message for line in backend.read_logs(status.id, "", LogQuery(tail=2)).lines] == [
        line.message for line in read[-2:]]
    with pytest.raises(UnknownReplica, match="workerpool0-0"):
        backend.read_logs(status.id, "", LogQuery(replica="workerpool7-0"))
    # a second backend opened on the same stack keeps its jobs in the same store (the console lists them once)
    assert open_backend(settings_of_stack(harness.stack)).backend.jobs_at() == backend.jobs_at()


def test_find_by_identity_resubmit_adopts_and_cancel_ends_it(harness: Harness) -> None:
    backend = harness.backend
    args = ["--steps", "600", "--step-seconds", "0.1"]
    first = harness.submit("conformance_long", args, identity="conformance-1")
    assert backend.find({IDENTITY_LABEL: "conformance-1"}).id == first.id  # type: ignore[union-attr]
    assert backend.find({IDENTITY_LABEL: "another"}) is None
    assert backend.get(backend.resolve("conformance_long")).id == first.id  # by the job's name

    again = harness.submit("conformance_long", args, identity="conformance-1")
    assert again.id == first.id  # adopted: nothing new started
    assert [j.id for j in backend.list({IDENTITY_LABEL: "conformance-1"})] == [first.id]

    running = backend.wait(first.id, until=(JobState.RUNNING,), timeout=DEADLINE)
    assert running.state is JobState.RUNNING, running.error
    cancelled = backend.cancel(first.id, wait=60)
    assert cancelled.state is JobState.CANCELLED
    assert backend.cancel(first.id).state is JobState.CANCELLED  # a finished job is left as it is

    retried = harness.submit("conformance_long", args, identity="conformance-1")
    assert retried.id != first.id  # a cancelled job is not adopted: submitting again is a retry
    assert backend.find({IDENTITY_LABEL: "conformance-1"}).id == retried.id  # type: ignore[union-attr]
    assert backend.cancel(retried.id, wait=60).state is JobState.CANCELLED


def test_an_unknown_job_is_not_found(harness: Harness) -> None:
    with pytest.raises(NotFound):
        harness.backend.get("1234567890123")
    with pytest.raises(NotFound):
        harness.backend.resolve("no_such_job")


def test_a_record_that_cannot_be_read_is_listed_apart(harness: Harness) -> None:
    kept = harness.submit("conformance_kept", ["--steps", "1"])
    broken = harness.submit("conformance_broken", ["--steps", "1"])
    for job in (kept, broken):
        assert harness.backend.wait(job.id, timeout=DEADLINE).state is JobState.SUCCEEDED
    damaged_id = harness.damage(broken)

    jobs, unreadable = harness.backend.scan()
    assert [j.id for j in jobs] == [kept.id]
    assert [u.id for u in unreadable] == [damaged_id] and unreadable[0].reason
    assert [j.id for j in harness.backend.list()] == [kept.id]  # the others are still read
    assert [j.id for j in harness.backend.scan(limit=1).jobs] == [kept.id]
