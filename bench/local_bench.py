"""Benchmark: the local backend's overhead, side by side with running the trainer directly.

    .venv/bin/python bench/local_bench.py [--runs 10] [--sizes 1,4,16]

In one run, on this machine, with a private TRAINJOBS_HOME (removed afterwards):
  * submit -> all replicas RUNNING, for a cached chief + 2 workers Python-package job;
  * end to end (submit -> SUCCEEDED) for a trivial trainer, against `python -m` of the same
    trainer in the same environment: the difference is trainjobs' overhead;
  * the supervisor's resident memory (VmRSS, highest sample) while a job runs;
  * N jobs at once, for each of --sizes: N single-replica jobs submitted back to back, the time
    from the first submit until all N run, the CPU this process spent submitting, and the memory
    the running jobs hold (the sum of every supervisor's and trainer's VmRSS; this process's peak
    RSS beside it), with each cost's ratio to the smallest N.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PROBE = ROOT / "tests" / "fixtures" / "trainers" / "probe" / "probe"


def spec(name: str, workers: int, args: list[str]) -> dict:
    pools: dict = {"chief": {"machineType": "n1-standard-4"}}
    if workers:
        pools["workers"] = {"machineType": "n1-standard-4", "replicas": workers}
    return {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": name},
            "spec": {"region": "us-central1", "workerPools": pools,
                     "application": {"pythonPackage": {
                         "path": str(PROBE), "module": "probe.task",
                         "executorImage": "us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-4.py310:latest"}},
                     "args": args, "baseOutputDirectory": f"gs://bench/{name}", "stagingBucket": "gs://bench"}}


def rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_kb(pids: list[int]) -> int:
    """VmRSS of each pid and of every process below it (the trainers a supervisor started)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    total, todo, seen = 0, list(pids), set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += rss_kb(pid)
        todo.extend(children.get(pid, []))
    return total


def at_once(backend, submit, n: int):  # type: ignore[no-untyped-def]
    """(seconds until n jobs all run, CPU s this process spent, KB the running jobs hold)."""
    from provider.backends.base import JobState
    from provider.backends.local import store

    cpu0 = time.process_time()
    start = time.perf_counter()
    jobs = [submit(spec(f"at_once_{n}_{i}", 0, ["--steps", "100000", "--step-seconds", "0.05"])) for i in range(n)]
    waiting = {job.id for job in jobs}
    while waiting:
        waiting = {j for j in waiting if backend.get(j).state is not JobState.RUNNING}
        time.sleep(0.005)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu0
    supervisors = [(store.read_json(backend.store.job_dir(job.id) / "state.json") or {})["supervisor"]["pid"]
                   for job in jobs]
    held = max(tree_rss_kb(supervisors) for _ in range(5))
    for job in jobs:
        backend.cancel(job.id, wait=30)
    return elapsed, cpu, held


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--sizes", default="1,4,16", help="numbers of jobs run at once, comma-separated")
    args = parser.parse_args()
    sizes = [int(n) for n in args.sizes.split(",")]
    home = Path(tempfile.mkdtemp(prefix="trainjobs-bench-home-"))
    os.environ.update({"TRAINJOBS_HOME": str(home), "TRAINJOBS_LOCAL_GPUS": "none"})
    os.environ.pop("TRAINJOBS_ENV_CACHE", None)
    from provider.backends.base import JobState
    from provider.backends.local import store
    from provider.backends.local.backend import LocalBackend
    from provider.packaging.stage import LocalStager
    from provider.submission.launch import prepare, submission
    from provider.validation.validator import validate_data

    backend = LocalBackend()

    def submit(doc: dict):  # type: ignore[no-untyped-def]
        job = validate_data(doc).job
        assert job is not None
        request = prepare(job, ROOT, "bench", LocalStager(backend.storage))
        return backend.submit(submission(job, request))

    try:
        # Warm the environment cache once (this is the "cached" in the target).
        warm = backend.wait(submit(spec("warm", 2, [])).id, timeout=300)
        assert warm.state is JobState.SUCCEEDED, warm.error

        to_running, peak_rss = [], []
        for i in range(args.runs):
            doc = spec(f"running_{i}", 2, ["--steps", "100000", "--step-seconds", "0.05"])
            start = time.perf_counter()
            job = submit(doc)
            while True:
                status = backend.get(job.id)
                if status.state is JobState.RUNNING and sum(r.state == "running" for r in status.replicas) == 3:
                    break
                time.sleep(0.002)
            to_running.append(time.perf_counter() - start)
            sup = (store.read_json(backend.store.job_dir(job.id) / "state.json") or {})["supervisor"]["pid"]
            samples = []
            for _ in range(20):
                samples.append(rss_kb(sup))
                time.sleep(0.01)
            peak_rss.append(max(samples) / 1024)
            backend.cancel(job.id, wait=15)

        end_to_end = []
        for i in range(args.runs):
            start = time.perf_counter()
            job = backend.wait(submit(spec(f"trivial_{i}", 0, ["--steps", "0"])).id, timeout=60)
            end_to_end.append(time.perf_counter() - start)
            assert job.state is JobState.SUCCEEDED, job.error

        # The same trainer run directly, in the environment trainjobs built for it.
        layers = [p for p in (home / "envs").iterdir() if p.is_dir()]  # beside each layer: its .lock file
        env_python = next(p for p in layers if p.name.startswith("deps-")) / "bin" / "python"
        pkg = next(p for p in layers if p.name.startswith("pkg-"))
        direct = []
        spec_env = {**os.environ, "PYTHONPATH": str(pkg),
                    "CLUSTER_SPEC": '{"task": {"type": "workerpool0", "index": 0, "trial": ""}}',
                    "CLOUD_ML_HP_METRIC_FILE": str(home / "direct.metrics")}
        for _ in range(args.runs):
            start = time.perf_counter()
            proc = subprocess.run([str(env_python), "-m", "probe.task", "--steps", "0", "--job-dir",
                                   str(home / "direct")], env=spec_env, capture_output=True, text=True, cwd=home)
            direct.append(time.perf_counter() - start)
            if proc.returncode != 0:
                raise SystemExit(f"the trainer run directly failed: {proc.stderr[-2000:]}")

        together = {n: at_once(backend, submit, n) for n in sizes}
    finally:
        for job in backend.list():
            if not job.state.terminal:
                backend.cancel(job.id, wait=15)
        shutil.rmtree(home, ignore_errors=True)

    med = statistics.median
    print(f"local backend ({args.runs} runs each, median; {os.cpu_count()} cores, Python {sys.version.split()[0]})")
    print(f"  submit -> 3 replicas RUNNING (cached 1 + 2 package job)   {med(to_running):7.3f} s"
          f"   (min {min(to_running):.3f}, max {max(to_running):.3f})")
    print(f"  trivial trainer, submit -> SUCCEEDED through trainjobs     {med(end_to_end):7.3f} s")
    print(f"  the same trainer run directly with python -m               {med(direct):7.3f} s")
    print(f"  trainjobs overhead                                         {med(end_to_end) - med(direct):7.3f} s")
    print(f"  supervisor memory while running (VmRSS, peak)              {max(peak_rss):7.1f} MB"
          f"   (median {med(peak_rss):.1f} MB)")
    print(f"  N jobs at once (1 replica each, submitted back to back; this process's peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f} MB)")
    print(f"    {'N':>4s} {'all RUNNING s':>14s} {'x first':>8s} {'submit CPU s':>13s} {'x first':>8s} "
          f"{'jobs hold':>10s} {'MB/job':>7s}")
    t1, c1, _ = together[sizes[0]]
    for n, (t, c, m) in together.items():
        print(f"    {n:4d} {t:14.3f} {t / t1:7.2f}x {c:13.3f} {c / c1:7.2f}x {m / 1024:7.1f} MB {m / 1024 / n:7.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
