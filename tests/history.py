"""A local job history written the way the local backend writes it, for the listing tests.

Running hundreds of real jobs would take minutes, so each job is a record made through the job
store (``JobStore.create`` then ``update``, as a submit and its supervisor write them), finished,
nothing run. Jobs are made a few milliseconds apart: a job id starts with its creation time in
milliseconds, so the ids' order is the order of creation.
"""

from __future__ import annotations

import time
from pathlib import Path


def write_history(home: Path, n: int) -> list[str]:
    """N finished CustomJobs named job0..job{n-1} in ``home``; their ids, newest first."""
    from provider.backends.local.store import JobStore, now

    store = JobStore(home)
    body = {"displayName": "history", "jobSpec": {"workerPoolSpecs": [
        {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1"}]}}
    ids = []
    for i in range(n):
        created = now()
        job_dir = store.create({"kind": "CustomJob", "display_name": f"job{i}", "parent": "projects/local/locations/"
                                "us-central1", "request": {**body, "displayName": f"job{i}"}, "labels": {},
                                "create_time": created})
        store.update(job_dir.name, state="SUCCEEDED", start_time=created, end_time=created)
        ids.append(job_dir.name)
        time.sleep(0.003)
    return ids[::-1]
