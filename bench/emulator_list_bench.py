"""Benchmark: the emulator's list (customJobs.list) in-process, against the size of the history.

    .venv/bin/python bench/emulator_list_bench.py [--sizes 1000,10000,50000] [--calls 200]

What one list call costs the emulator itself, without HTTP or a client, so that what depends on
the history's size is not hidden by the fixed cost of a request (bench/emulator_bench.py measures
the whole path at smaller sizes). For each N, a JobService over an EmulatorStore holds N jobs of
one location (records as the loader keeps them: failed at start, so that rendering one reads no
local files), and the benchmark times, side by side in one run, the CPU per call (median of 5
batches of --calls calls, ``time.process_time``) of:

* the first page of 10;
* the page of 10 half way down the history (its token from an earlier walk);
* a ``display_name="..."`` filter that keeps one job (the filter must look at every job);
* a ``state=`` filter whose first page of 10 is full (it renders what it checks);
* a walk over every job with pageSize 1000, per job listed.

With each, its ratio to the smallest N; and the process's peak RSS after each size. A page
should cost the same at every N; the filter that keeps one grows with N. Run it from another
checkout to compare commits: it only uses EmulatorStore, JobService and their list().
The store is filled through the loader's own path (``_remember``), not through files: writing
50,000 records to disk would measure the disk.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PARENT = "projects/bench/locations/us-central1"


def record(i: int) -> dict[str, Any]:
    created = f"2026-01-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.{i:06d}Z"
    return {"id": f"{1000000000 + i}", "kind": "CustomJob", "parent": PARENT, "create_time": created,
            "end_time": created, "local": False,
            "error": {"code": 9, "message": "The local backend cannot run this job: bench"},
            "body": {"displayName": f"job{i}", "labels": {"half": "a" if i % 2 else "b"}, "jobSpec": {
                "workerPoolSpecs": [{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
                                     "containerSpec": {"imageUri": "us-docker.pkg.dev/p/r/i:1"}}]}}}


def per_call(call: Callable[[], Any], calls: int) -> float:
    """Median CPU seconds per call over 5 batches."""
    batches = []
    for _ in range(5):
        start = time.process_time()
        for _ in range(calls):
            call()
        batches.append((time.process_time() - start) / calls)
    return statistics.median(batches)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,50000")
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    from provider.backends.local.backend import LocalBackend
    from provider.emulator.service import JobService
    from provider.emulator.store import EmulatorStore

    sizes = [int(n) for n in args.sizes.split(",")]
    rows: list[tuple[int, dict[str, float], int]] = []
    with tempfile.TemporaryDirectory(prefix="trainjobs-emulator-list-bench-") as tmp:
        store = EmulatorStore(Path(tmp) / "state")
        service = JobService(store, LocalBackend(home=Path(tmp) / "home"))
        made = 0
        for n in sizes:
            with store._lock:  # the loader's path (EmulatorStore.open): memory only, no files
                for i in range(made, n):
                    store._remember(record(i))
            made = n
            token, seen = "", 0
            while seen < n // 2:
                page = service.list("customJobs", PARENT, {"pageSize": str(min(1000, n // 2 - seen)),
                                                           "pageToken": token})
                seen += len(page["customJobs"])
                token = page["nextPageToken"]
            one = {"filter": f'display_name="job{n // 3}"', "pageSize": "10"}
            assert len(service.list("customJobs", PARENT, one)["customJobs"]) == 1
            state = {"filter": 'state="JOB_STATE_FAILED" AND labels.half="a"', "pageSize": "10"}

            def walk() -> None:
                page_token = ""
                while True:
                    page = service.list("customJobs", PARENT, {"pageSize": "1000", "pageToken": page_token})
                    page_token = page.get("nextPageToken", "")
                    if not page_token:
                        return

            costs = {
                "first page (10)": per_call(lambda: service.list("customJobs", PARENT, {"pageSize": "10"}), args.calls),
                "a page half way down (10)": per_call(lambda: service.list(
                    "customJobs", PARENT, {"pageSize": "10", "pageToken": token}), args.calls),  # noqa: B023
                "display_name= keeps 1 of N": per_call(lambda: service.list("customJobs", PARENT, one),  # noqa: B023
                                                       max(1, args.calls // 20)),
                "state= first page (10)": per_call(lambda: service.list("customJobs", PARENT, state),  # noqa: B023
                                                   args.calls),
                "every job, pageSize 1000, per job": per_call(walk, 1) / n,
            }
            rows.append((n, costs, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
    print(f"emulator list in-process: CPU per call (median of 5 batches) against N jobs in the location; "
          f"Python {sys.version.split()[0]}")
    print(f"  {'':36}" + "".join(f"{'N=' + str(n):>22}" for n, _, _ in rows))
    for label in rows[0][1]:
        base = rows[0][1][label]
        print(f"  {label:36}" + "".join(f"{costs[label] * 1e6:11.1f} us {costs[label] / base:6.2f}x"
                                         for _, costs, _ in rows))
    print(f"  {'peak RSS of this process':36}" + "".join(f"{rss / 1024:19.1f} MB" for _, _, rss in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
