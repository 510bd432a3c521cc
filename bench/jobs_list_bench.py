"""Benchmark: ``trainjobs jobs list`` and ``status`` against the size of the local job history.

    .venv/bin/python bench/jobs_list_bench.py [--sizes 50,1000,5000] [--repeat 5]

For each size N, a private TRAINJOBS_HOME gets N finished jobs (records written through the job
store, nothing run), then ``trainjobs jobs list`` (50 shown) and ``trainjobs status NEWEST`` run
as a user runs them. It prints, side by side in one run, the median CPU time of each command
(user + system of the child process: load on the machine does not inflate it), its ratio to the
smallest history (a full page of 50: ``jobs list`` shows 50), and the child's peak RSS. Flat ratios mean the cost does not grow with history.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def fill(home: Path, n: int) -> str:
    """N finished CustomJobs in the store; returns the newest id."""
    from provider.backends.local.store import JobStore

    store = JobStore(home)
    newest = ""
    body = {"displayName": "bench", "jobSpec": {"workerPoolSpecs": [
        {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1"}]}}
    for i in range(n):
        created = f"2026-01-01T00:{i // 3600 % 60:02d}:{i % 60:02d}.{i:06d}Z"
        job_dir = store.create({"kind": "CustomJob", "display_name": f"bench_{i}", "parent": "projects/local/locations/"
                                "us-central1", "request": body, "labels": {}, "create_time": created})
        store.update(job_dir.name, state="SUCCEEDED", start_time=created, end_time=created)
        newest = job_dir.name
    return newest


def measure(args: list[str], env: dict[str, str]) -> tuple[float, int]:
    """(CPU seconds, peak RSS in KB) of one run of ``python -m provider ARGS``."""
    proc = subprocess.Popen([sys.executable, "-m", "provider", *args], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"trainjobs {' '.join(args)} failed: {err}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="50,1000,5000")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    for n in sizes:
        home = Path(tempfile.mkdtemp(prefix="trainjobs-bench-jobs-"))
        try:
            t0 = time.perf_counter()
            newest = fill(home, n)
            filled = time.perf_counter() - t0
            env = {**os.environ, "TRAINJOBS_HOME": str(home), "NO_COLOR": "1"}
            commands = {"jobs list": ["jobs", "list"], "status NEWEST": ["status", newest or "0"]}
            for label, cmd in commands.items():
                samples = [measure(cmd, env) for _ in range(args.repeat)]
                rows.append((label, n, statistics.median(s[0] for s in samples), max(s[1] for s in samples)))
            print(f"  (history of {n} jobs written in {filled:.1f} s)", file=sys.stderr)
        finally:
            shutil.rmtree(home, ignore_errors=True)
    base = {label: cpu for label, n, cpu, _ in rows if n == sizes[0]}
    print(f"jobs list / status against history size (median CPU of {args.repeat} runs; "
          f"{os.cpu_count()} cores, Python {sys.version.split()[0]})")
    print(f"  {'command':15s} {'history':>8s} {'CPU s':>8s} {'x first':>8s} {'peak RSS':>10s}")
    for label, n, cpu, rss in rows:
        print(f"  {label:15s} {n:8d} {cpu:8.3f} {cpu / base[label]:7.2f}x {rss / 1024:8.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
