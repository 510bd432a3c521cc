"""Benchmark: the first page of the job views against the size of the history, each beside its floor.

    .venv/bin/python bench/jobs_list_bench.py [--sizes 10,1000,10000] [--repeat 5] [--views local,console,emulator]

For each size N it writes a history of N finished jobs (records written the way the stores write
them, nothing run: ``JobStore.create``/``update`` for the local backend, ``EmulatorStore.put_job``
for the emulator), then measures, side by side in one run:

* local: ``trainjobs jobs list`` (the newest 50) and ``trainjobs status NEWEST``, CPU of the child
  process (user + system: load on the machine does not inflate it) and its peak RSS; floor: a
  Python that lists the jobs folder and reads the newest 50 records (the least any listing does);
* console: ``GET /`` (the jobs page: the newest 50) of a running ``trainjobs console``, the server's
  CPU per request (from /proc, so the client's work and the load do not count) and its peak RSS;
  floor: ``GET /static/console.css`` of the same server (the fixed cost of a request);
* emulator: ``trainjobs jobs list --stack emu`` against a running ``trainjobs emulator`` holding
  the N jobs: the CLI's CPU plus the emulator's CPU for the call, and the emulator's peak RSS;
  floor: google-cloud-aiplatform's JobServiceClient asking for the first page of 50 (the SDK alone,
  the same emulator), CPU counted the same way.

Medians of --repeat runs, each row's ratio to its floor and to the smallest N. Flat columns mean the
first page costs the same however long the history is.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PARENT = "projects/bench-project/locations/us-central1"
BODY = {"jobSpec": {"workerPoolSpecs": [{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
                                         "containerSpec": {"imageUri": "us-docker.pkg.dev/p/r/i:1"}}]}}
FLOOR_LOCAL = """
import json, os, sys
jobs = os.path.join(sys.argv[1], "jobs")
for name in sorted((n for n in os.listdir(jobs) if n.isdigit()), reverse=True)[:50]:
    for f in ("job.json", "state.json"):
        with open(os.path.join(jobs, name, f)) as fh:
            json.load(fh)
"""
FLOOR_SDK = """
import sys
from google.auth.credentials import AnonymousCredentials
from google.cloud import aiplatform_v1
client = aiplatform_v1.JobServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                        client_options={"api_endpoint": sys.argv[1]})
page = next(iter(client.list_custom_jobs(request={"parent": sys.argv[2], "page_size": 50}).pages))
assert len(page.custom_jobs) == min(50, int(sys.argv[3]))
"""


def fill_local(home: Path, n: int) -> str:
    """N finished CustomJobs in the local store; returns the newest id."""
    from provider.backends.local.store import JobStore

    store = JobStore(home)
    newest = ""
    for i in range(n):
        created = f"2026-01-01T{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}.{i:06d}Z"
        job_dir = store.create({"kind": "CustomJob", "display_name": f"bench_{i}", "parent": "projects/local/locations/"
                                "us-central1", "request": {"displayName": f"bench_{i}", **BODY}, "labels": {},
                                "create_time": created})
        store.update(job_dir.name, state="SUCCEEDED", start_time=created, end_time=created)
        newest = max(newest, job_dir.name)
    return newest


def fill_emulator(state: Path, n: int) -> None:
    """N jobs the local backend refused (failed at start: served from their records alone), as the
    emulator's store writes them, labelled as stack ``emu``'s."""
    from provider.emulator.store import EmulatorStore

    store = EmulatorStore(state)
    store.open()
    try:
        for i in range(n):
            created = f"2026-01-01T{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}.{i:06d}Z"
            store.put_job({"id": f"{1000000000 + i}", "kind": "CustomJob", "parent": PARENT, "create_time": created,
                           "end_time": created, "local": False,
                           "error": {"code": 9, "message": "The local backend cannot run this job: bench"},
                           "body": {"displayName": f"job{i}", "labels": {"trainjobs-stack": "emu"}, **BODY}})
    finally:
        store.close()


def child(args: list[str], env: dict[str, str], cwd: Path = ROOT) -> tuple[float, int]:
    """(CPU seconds, peak RSS in KB) of one run of ``python ARGS``."""
    proc = subprocess.Popen([sys.executable, *args], env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"python {' '.join(args)} failed: {err}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def proc_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_kb(pid: int) -> int:
    m = re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text())
    return int(m.group(1)) if m else 0


def server(args: list[str], env: dict[str, str], cwd: Path, pattern: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "provider", *args], env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    line = proc.stdout.readline() if proc.stdout else ""
    m = re.search(pattern, line)
    if not m:
        proc.kill()
        raise SystemExit(f"trainjobs {args[0]} did not start: {line}")
    return proc, m.group(1)


def stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def served(pid: int, call: Callable[[], Any], repeat: int, batch: int = 1) -> float:
    """Median CPU seconds the server ``pid`` spends per call, plus the CPU a call returns (a child's);
    calls in batches, since /proc counts in clock ticks (10 ms)."""
    samples = []
    for _ in range(repeat):
        before, extra = proc_cpu(pid), 0.0
        for _ in range(batch):
            got = call()
            extra += got if isinstance(got, float) else 0.0
        samples.append((proc_cpu(pid) - before + extra) / batch)
    return statistics.median(samples)


Row = tuple[str, str, int, float, int]  # view, what, N, CPU seconds, peak RSS KB


def local_rows(n: int, home: Path, newest: str, repeat: int) -> list[Row]:
    env = {**os.environ, "TRAINJOBS_HOME": str(home), "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    rows = []
    for what, args in (("trainjobs jobs list", ["-m", "provider", "jobs", "list"]),
                       ("trainjobs status NEWEST", ["-m", "provider", "status", newest]),
                       ("floor: read the newest 50", ["-c", FLOOR_LOCAL, str(home)])):
        samples = [child(args, env) for _ in range(repeat)]
        rows.append(("local", what, n, statistics.median(s[0] for s in samples), max(s[1] for s in samples)))
    return rows


def console_rows(n: int, home: Path, tmp: Path, repeat: int) -> list[Row]:
    env = {**os.environ, "TRAINJOBS_HOME": str(home), "NO_COLOR": "1", "PYTHONPATH": str(ROOT),
           "TRAINJOBS_LOCAL_GPUS": "none"}
    (tmp / "project").mkdir(exist_ok=True)
    proc, url = server(["console", "--port", "0"], env, tmp / "project", r"(http://\S+)")
    try:
        def get(path: str) -> None:
            with urllib.request.urlopen(url.rstrip("/") + path, timeout=120) as response:
                body = response.read()
                assert response.status == 200 and (path != "/" or body.count(b"<tr data-job=") >= min(50, n))

        get("/")  # warm: templates compiled, modules imported
        get("/static/console.css")
        rows = [("console", "GET / (the newest 50)", n, served(proc.pid, lambda: get("/"), repeat, 20), 0),
                ("console", "floor: GET /static/console.css", n,
                 served(proc.pid, lambda: get("/static/console.css"), repeat, 20), 0)]
        rss = peak_rss_kb(proc.pid)
    finally:
        stop(proc)
    return [(v, w, k, c, rss) for v, w, k, c, _ in rows]


def emulator_rows(n: int, tmp: Path, repeat: int) -> list[Row]:
    state = tmp / "emulator"
    fill_emulator(state, n)
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT), "TRAINJOBS_HOME": str(tmp / "emu-home"),
           "TRAINJOBS_LOCAL_GPUS": "none"}
    proc, endpoint = server(["emulator", "--port", "0", "--state-dir", str(state)], env, ROOT,
                            r"Vertex AI on (http://\S+)")
    project = tmp / "stackproject"
    (project / "stacks").mkdir(parents=True, exist_ok=True)
    (project / "stacks" / "Pulumi.emu.yaml").write_text(
        "config:\n  trainjobs:backend: vertex\n  trainjobs:team: bench\n  gcp:project: bench-project\n"
        f"  gcp:region: us-central1\n  trainjobs:specs: [specs/*.yaml]\n  trainjobs:apiEndpoint: {endpoint}\n")
    try:
        rows = []
        for what, args in (("trainjobs jobs list --stack emu", ["-m", "provider", "jobs", "list", "--stack", "emu"]),
                           ("floor: the SDK's first page of 50", ["-c", FLOOR_SDK, endpoint, PARENT, str(n)])):
            child(args, env, project)  # warm the emulator's path once
            rss = 0

            def call(a: list[str] = args) -> float:
                nonlocal rss
                cpu, kb = child(a, env, project)
                rss = max(rss, kb)
                return cpu

            rows.append(("emulator", what, n, served(proc.pid, call, repeat), rss))
        emu_rss = peak_rss_kb(proc.pid)
    finally:
        stop(proc)
    return [*rows, ("emulator", "  the emulator's peak RSS", n, 0.0, emu_rss)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,1000,10000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--views", default="local,console,emulator")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    views = set(args.views.split(","))
    rows: list[Row] = []
    for n in sizes:
        tmp = Path(tempfile.mkdtemp(prefix="trainjobs-bench-jobs-"))
        try:
            t0 = time.perf_counter()
            newest = fill_local(tmp / "home", n) if views & {"local", "console"} else ""
            print(f"  (local history of {n} jobs written in {time.perf_counter() - t0:.1f} s)", file=sys.stderr)
            if "local" in views:
                rows += local_rows(n, tmp / "home", newest, args.repeat)
            if "console" in views:
                rows += console_rows(n, tmp / "home", tmp, args.repeat)
            if "emulator" in views:
                rows += emulator_rows(n, tmp, args.repeat)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    floor = {(v, k): c for v, w, k, c, _ in rows if w.startswith("floor")}
    first = {(v, w): c for v, w, k, c, _ in rows if k == sizes[0]}
    print(f"the first page of each view against the history's size (median CPU of {args.repeat} runs; "
          f"{os.cpu_count()} cores, Python {sys.version.split()[0]})")
    print(f"  {'view':9s} {'what':36s} {'history':>8s} {'CPU ms':>8s} {'x floor':>8s} {'x first N':>9s} {'peak RSS':>10s}")
    order = {key: i for i, key in reversed(list(enumerate((v, w) for v, w, *_ in rows)))}
    for v, w, k, c, rss in sorted(rows, key=lambda r: (order[r[0], r[1]], r[2])):
        cost = (f"{c * 1000:8.1f} {c / floor[v, k]:7.2f}x {c / first[v, w]:8.2f}x" if c else f"{'':8s} {'':8s} {'':9s}")
        print(f"  {v:9s} {w:36s} {k:8d} {cost} {rss / 1024:7.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
