"""Benchmark: the Vertex AI emulator through the real google-cloud-aiplatform client (REST).

    .venv/bin/python bench/emulator_bench.py [--runs 50] [--sizes 100,1000,4000]

In one run, with a private state dir (removed afterwards), the emulator serving from its own
process (`python -m provider emulator`), as a user runs it:
  * create + get of a CustomJob, median over --runs:
      - a python-package job that really starts (its supervisor is spawned; each is cancelled
        after the get, and waited for outside the timing, so jobs never pile up);
      - a job the local backend refuses at once (its package is not in storage), which the
        emulator creates FAILED: validation, records and JSON, no process;
  * listing 100 jobs with pageSize 10, following the page tokens to the end, against the same
    calls to a minimal stdlib HTTP server in its own process that answers with a canned job: the
    client's own floor, side by side;
  * for each N of --sizes, a location holding N jobs (grown by creating jobs through the API,
    refused ones, half labelled "a"): the first page (pageSize 10), a page from the middle of the
    history (its token from an earlier walk), a filter on display_name that keeps one job, a
    state filter that keeps half (first page), and every job with pageSize 100 to the end; the
    median of --list-runs each, its ratio to the smallest N, and the emulator's resident memory
    (VmRSS at that N, and VmHWM, the peak so far). A page should cost the same at every N; a walk
    over every job, and a filter that must look at every job, grow with N.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PROBE = ROOT / "tests" / "fixtures" / "trainers" / "probe" / "probe"
EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-4.py310:latest"
PROJECT, LOCATION = "bench", "us-central1"
PARENT = f"projects/{PROJECT}/locations/{LOCATION}"
LISTED = f"projects/{PROJECT}/locations/europe-west4"  # holds exactly --jobs jobs, for the list rows


def body(name: str, package: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {"displayName": name, "labels": labels or {"bench": "yes"}, "jobSpec": {"workerPoolSpecs": [{
        "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
        "pythonPackageSpec": {"executorImageUri": EXECUTOR, "packageUris": [package], "pythonModule": "probe.task",
                              "args": ["--steps", "100", "--step-seconds", "0.1"]}}],
        "baseOutputDirectory": {"outputUriPrefix": f"gs://bench-bucket/out/{name}"}}}


# -- the baseline: a canned answer, nothing else ----------------------------------------------------
def serve_canned() -> None:
    job = json.dumps({**body("canned", "gs://bench-bucket/p.tar.gz"), "name": f"{PARENT}/customJobs/1", "state": 3,
                      "createTime": "2026-01-01T00:00:00Z"})
    page = json.dumps({"customJobs": [json.loads(job)] * 10, "nextPageToken": "t"}).encode()
    last = json.dumps({"customJobs": [json.loads(job)] * 10}).encode()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, *args: object) -> None:
            pass

        def _do(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            data = job.encode()
            if self.command == "GET" and self.path.split("?")[0].endswith("customJobs"):
                # ten pages: the token counts them down
                n = int(self.path.split("pageToken=")[1].split("&")[0].lstrip("t") or 0) if "pageToken=" in self.path else 0
                data = last if n >= 9 else page.replace(b'"t"', f'"t{n + 1}"'.encode())
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _do

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


def start(command: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    endpoint = line.rsplit(" ", 1)[-1]
    if not endpoint.startswith("http://"):
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return proc, endpoint


def stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:8.1f} ms"


def create_get(client: Any, make: Any, runs: int, after: Any = None, parent: str = PARENT) -> list[float]:
    from google.cloud import aiplatform_v1

    times = []
    for i in range(runs):
        job = aiplatform_v1.CustomJob.from_json(json.dumps(make(i)))
        t0 = time.perf_counter()
        created = client.create_custom_job(parent=parent, custom_job=job)
        client.get_custom_job(name=created.name)
        times.append(time.perf_counter() - t0)
        if after is not None:
            after(created)
    return times


def list_all(client: Any, runs: int = 10, filter: str = "", parent: str = LISTED, size: int = 10) -> tuple[list[float], int]:
    """Every job, ``size`` per page, following the page tokens; (times, jobs listed)."""
    times, count = [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        count = sum(1 for _ in client.list_custom_jobs(request={"parent": parent, "page_size": size, "filter": filter}))
        times.append(time.perf_counter() - t0)
    return times, count


def one_page(client: Any, runs: int, parent: str, token: str = "", filter: str = "") -> tuple[list[float], int]:
    """One page of 10 (the one ``token`` names); (times, jobs on it)."""
    times, count = [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        page = next(iter(client.list_custom_jobs(request={"parent": parent, "page_size": 10, "page_token": token,
                                                          "filter": filter}).pages))
        times.append(time.perf_counter() - t0)
        count = len(page.custom_jobs)
    return times, count


def middle_token(client: Any, parent: str, n: int) -> str:
    """The token of the page that starts half way through the history."""
    token, seen = "", 0
    while seen < n // 2:
        page = next(iter(client.list_custom_jobs(request={"parent": parent, "page_size": min(100, n // 2 - seen),
                                                          "page_token": token}).pages))
        seen += len(page.custom_jobs)
        token = page.next_page_token
    return token


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (every thread), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def on_emulator(pid: int, measure: Any, runs: int) -> tuple[list[float], float, int]:
    """(wall times, the emulator's CPU seconds per run, jobs listed) of ``measure(runs)``."""
    before = cpu_s(pid)
    times, count = measure(runs)
    return times, (cpu_s(pid) - before) / runs, count


def memory_kb(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of a process, in KB."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


SizeRow = dict[str, Any]


def grow_and_measure(client: Any, emulator_pid: int, sizes: list[int], runs: int) -> list[SizeRow]:
    parent = "projects/bench/locations/asia-east1"
    rows, made = [], 0
    for n in sizes:
        def make(i: int, base: int = made) -> dict[str, Any]:
            k = base + i
            return body(f"job{k}", f"gs://bench-bucket/missing/{k}.tar.gz",
                        {"bench": "yes", "half": "a" if k % 2 == 0 else "b"})

        create_get(client, make, n - made, parent=parent)
        made = n
        token = middle_token(client, parent, n)
        row: SizeRow = {"n": n}
        pid = emulator_pid
        for label, measure in (
                ("first page (10)", lambda r: one_page(client, r, parent)),
                ("a page half way down (10)", lambda r: one_page(client, r, parent, token)),  # noqa: B023
                ("display_name= keeps 1 of N", lambda r: one_page(client, r, parent, filter='display_name="job1"')),
                ("state= keeps half, first page", lambda r: one_page(
                    client, r, parent, filter='state="JOB_STATE_FAILED" AND labels.half="a"')),
                ("every job, pageSize 100", lambda r: list_all(client, r, parent=parent, size=100))):
            runs_here = max(3, runs // 4) if label.startswith("every") else runs
            row[label] = on_emulator(pid, measure, runs_here)
        assert row["display_name= keeps 1 of N"][2] == 1
        assert row["every job, pageSize 100"][2] == n, (row["every job, pageSize 100"][2], n)
        row["rss"], row["hwm"] = memory_kb(emulator_pid)
        rows.append(row)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--jobs", type=int, default=100, help="jobs in the list compared with the canned server")
    parser.add_argument("--sizes", default="100,1000,4000", help="history sizes for the list rows, comma-separated")
    parser.add_argument("--list-runs", type=int, default=10)
    parser.add_argument("--serve-canned", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_canned:
        serve_canned()
        return 0
    warnings.simplefilter("ignore", FutureWarning)
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1

    from provider.packaging.gcs import GcsStager, gcs_client
    from provider.packaging.stage import stage

    tmp = Path(tempfile.mkdtemp(prefix="trainjobs-emulator-bench-"))
    env = {**os.environ, "TRAINJOBS_HOME": str(tmp / "home"), "TRAINJOBS_ENV_CACHE": str(tmp / "envs"),
           "TRAINJOBS_LOCAL_GPUS": "none", "PYTHONWARNINGS": "ignore::FutureWarning"}
    env.pop("TRAINJOBS_STORAGE", None)
    procs = []
    try:
        emulator, endpoint = start([sys.executable, "-m", "provider", "emulator", "--port", "0", "--state-dir",
                                    str(tmp / "state")], env)
        procs.append(emulator)
        canned, canned_endpoint = start([sys.executable, __file__, "--serve-canned"], env)
        procs.append(canned)

        def client_for(url: str) -> Any:
            return aiplatform_v1.JobServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                                  client_options={"api_endpoint": url})

        client, floor = client_for(endpoint), client_for(canned_endpoint)
        storage = gcs_client(PROJECT, endpoint)
        storage.create_bucket("bench-bucket")
        package = "gs://bench-bucket/packages/probe-0.1.0.tar.gz"
        stage(PROBE, package, GcsStager(storage))

        # Warm up: the first job installs the trainer's environment; both clients open their connections.
        warm = client.create_custom_job(parent=PARENT, custom_job=aiplatform_v1.CustomJob.from_json(
            json.dumps(body("warm", package))))
        while client.get_custom_job(name=warm.name).state.name not in ("JOB_STATE_RUNNING", "JOB_STATE_FAILED"):
            time.sleep(0.1)
        client.cancel_custom_job(name=warm.name)
        create_get(floor, lambda i: body(f"floor{i}", package), 5)

        def finish(job: Any) -> None:  # outside the timing: cancel, and wait until the job has ended
            client.cancel_custom_job(name=job.name)
            while client.get_custom_job(name=job.name).state.name != "JOB_STATE_CANCELLED":
                time.sleep(0.02)

        running = create_get(client, lambda i: body(f"run{i}", package), args.runs, after=finish)
        refused = create_get(client, lambda i: body(f"refused{i}", f"gs://bench-bucket/missing/{i}.tar.gz"), args.runs)
        baseline = create_get(floor, lambda i: body(f"floor{i}", package), args.runs)
        create_get(client, lambda i: body(f"{'even' if i % 2 == 0 else 'odd'}{i}", f"gs://bench-bucket/missing/{i}.tar.gz",
                                          {"bench": "yes", "half": "a" if i % 2 == 0 else "b"}), args.jobs, parent=LISTED)
        listing, total = list_all(client)
        filtered, matched = list_all(client, filter='labels.half="a" AND display_name:"even*"')
        listing_floor, floor_total = list_all(floor)
        sized = grow_and_measure(client, emulator.pid, [int(n) for n in args.sizes.split(",")], args.list_runs)
        # Leave nothing running: every job has ended before the emulator stops and the dir goes.
        deadline = time.time() + 60
        while time.time() < deadline and client.list_custom_jobs(request={
                "parent": PARENT, "filter": 'state!="JOB_STATE_CANCELLED" AND state!="JOB_STATE_FAILED"'}).custom_jobs:
            time.sleep(0.1)
    finally:
        for proc in procs:
            stop(proc)
        shutil.rmtree(tmp, ignore_errors=True)

    print(f"Vertex AI emulator through google-cloud-aiplatform (REST), median; {os.cpu_count()} cores, "
          f"Python {sys.version.split()[0]}")
    print(f"  {'':58}{'emulator':>11}   {'canned server':>13}")
    print(f"  {'create + get, a job that starts (supervisor spawned)':58}{ms(running)}   {ms(baseline)}")
    print(f"  {'create + get, a job refused at start (created FAILED)':58}{ms(refused)}   {ms(baseline)}")
    print(f"  {f'list {total} jobs, pageSize 10, every page (canned: {floor_total})':58}{ms(listing)}   "
          f"{ms(listing_floor)}")
    print(f"  {f'  with a filter that keeps {matched} (labels and display_name:*)':58}{ms(filtered)}")
    print(f"  ({args.runs} create+get runs per row, 10 list runs; the canned server answers the same calls with "
          "a fixed job)")
    print(f"list against the size N of a location's history (median of {args.list_runs} runs; every job "
          f"pageSize 100: {max(3, args.list_runs // 4)} runs)")
    labels = [k for k in sized[0] if k not in ("n", "rss", "hwm")]
    print("  each cell: wall ms (x the smallest N) | the emulator's own CPU ms per call (x the smallest N)")
    print(f"  {'':32}" + "".join(f"{'N=' + str(r['n']):>33}" for r in sized))
    for label in labels:
        wall0, cpu0 = statistics.median(sized[0][label][0]), sized[0][label][1]
        cells = []
        for r in sized:
            wall, cpu = statistics.median(r[label][0]), r[label][1]
            cells.append(f"{wall * 1000:7.1f} {wall / wall0:5.2f}x | {cpu * 1000:6.1f} {cpu / cpu0 if cpu0 else 0:5.2f}x")
        print(f"  {label:32}" + "".join(f"{c:>33}" for c in cells))
    memory = ["{:.0f} / {:.0f} MB".format(r["rss"] / 1024, r["hwm"] / 1024) for r in sized]
    print(f"  {'emulator VmRSS / VmHWM':32}" + "".join(f"{m:>33}" for m in memory))
    return 0


if __name__ == "__main__":
    sys.exit(main())
