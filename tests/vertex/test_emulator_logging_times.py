"""The emulator's Cloud Logging entries carry the time each line was written, in order: read with the
real google-cloud-logging client (as ``trainjobs logs --stack``, the SDK and gcloud read them)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from provider.backends.local.log_times import Reader
from provider.backends.log_line import rfc3339
from provider.backends.vertex import VertexBackend
from provider.backends.vertex.logs import CloudLogs
from provider.emulator.server import Emulator
from tests.vertex.conftest import PROJECT, probe_spec, submit

pytestmark = pytest.mark.slow


def _stamp(entry: Any) -> str:
    return rfc3339(entry.timestamp)


def test_entries_carry_write_times_in_order_and_never_an_older_one_later(backend: VertexBackend,
                                                                          emulator: Emulator,
                                                                          tmp_path: Path) -> None:
    # The chief ends last (--chief-last): its success ends the job and stops the worker, which on a
    # loaded machine could otherwise be stopped before its last step
    doc = probe_spec("probe_times", workers=1, output="gs://test-bucket/probe_times",
                     args=["--steps", "30", "--step-seconds", "0.05", "--dump", str(tmp_path / "dump"),
                           "--chief-last", "2"])
    job = submit(backend, emulator, doc)
    logs = CloudLogs(PROJECT, emulator.endpoint)
    served: dict[str, str] = {}  # insertId -> timestamp, as a follower has seen them
    newest = ""
    deadline = time.monotonic() + 300
    while not backend.get(job.id).state.terminal and time.monotonic() < deadline:
        entries = logs.entries(job.id)
        stamps = [_stamp(e) for e in entries]
        assert stamps == sorted(stamps)
        for entry in entries:
            if entry.insert_id not in served:
                # gcloud's moving window asks only for timestamps past the newest it has seen:
                # an entry that first appears with an older one would be lost to it
                assert _stamp(entry) >= newest, (entry.insert_id, _stamp(entry), newest)
                served[entry.insert_id] = _stamp(entry)
        newest = max([newest, *served.values()])
        time.sleep(0.1)
    assert backend.wait(job.id, timeout=240).state.value == "SUCCEEDED"

    entries = logs.entries(job.id)
    assert entries and all(e.received_timestamp is not None and e.received_timestamp == e.timestamp for e in entries)
    by_id = {e.insert_id: _stamp(e) for e in entries}
    assert {k: v for k, v in by_id.items() if k in served} == served  # a line's time never changes
    messages = [(e.resource.labels["task_name"], e.payload) for e in entries]
    assert ("workerpool0-0", "workerpool0-0: step 29") in messages
    assert ("workerpool1-0", "workerpool1-0: step 29") in messages
    # the times are the local backend's record of when each line was written, replica by replica
    local_id = job.id
    home = Path(emulator.local.store.job_dir(local_id)) / "logs"
    written = [(line.replica, line.message, line.timestamp) for line in Reader(home).read(final=True)]
    assert [(e.resource.labels["task_name"], e.payload, _stamp(e)) for e in entries] == written
