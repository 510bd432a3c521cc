"""Benchmark: ``trainjobs validate`` side by side with the floor, at several sizes.

    .venv/bin/python bench/validate_bench.py [--sizes 1000,5000,20000] [--repeat 3] [--before DIR] [--clean]

The floor is the least any validator of these files must do: read each file, parse it with
libyaml (``yaml.load`` with ``CSafeLoader``) and check it with jsonschema-rs against the committed
``schemas/trainingjob.schema.json``. ``trainjobs validate DIR`` does that and more (line numbers,
the catalog, the format converters, every rule, duplicate names across files).

For each size N, both run as a user runs them, alternately, ``--repeat`` times, in one run of
this script; it prints the median CPU time of each child (user + system: load on the machine
does not inflate it), the ratio trainjobs / floor, and each child's peak RSS (ru_maxrss), so
both how the cost grows with N and whether memory stays flat can be read off one table.

The specs are generated from the example specs (native, AI Platform and Vertex formats),
with varied names, machine types, GPU counts, labels and tuning, so no two files are equal. One
spec in four (the AI Platform ones) has a warning to report; ``--clean`` generates only native and
Vertex specs, which have none, to show what a run holds per spec with nothing to report.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
SCHEMA = ROOT / "schemas" / "trainingjob.schema.json"

# The floor: parse with libyaml, check with jsonschema-rs, nothing else (the same file walk as validate).
FLOOR = """
import json, os, sys
import jsonschema_rs, yaml
with open(sys.argv[2], "rb") as f:
    validator = jsonschema_rs.Draft202012Validator(json.load(f))
bad = 0
for dirpath, dirnames, filenames in os.walk(sys.argv[1]):
    dirnames.sort()
    for name in sorted(filenames):
        if name.endswith((".yaml", ".yml")):
            with open(os.path.join(dirpath, name), "rb") as f:
                data = yaml.load(f.read(), Loader=yaml.CSafeLoader)
            bad += not validator.is_valid(data)
sys.exit(1 if bad else 0)
"""

N1 = ["n1-standard-4", "n1-standard-8", "n1-standard-16", "n1-highmem-8", "n1-highcpu-16"]
T4_COUNTS = {"n1-standard-4": [1, 2, 4], "n1-standard-8": [1, 2, 4], "n1-standard-16": [1, 2, 4],
             "n1-highmem-8": [1, 2, 4], "n1-highcpu-16": [1, 2, 4]}


def native(i: int, rng: random.Random) -> str:
    machine = rng.choice(N1)
    count = rng.choice(T4_COUNTS[machine])
    workers = rng.randint(1, 8)
    tuning = ""
    if i % 5 == 0:
        tuning = (
            "  hyperparameters:\n    goal: MAXIMIZE\n    metric: accuracy\n    maxTrials: 20\n    maxParallelTrials: 4\n"
            "    algorithm: RANDOM_SEARCH\n    params:\n"
            "      - {name: learning_rate, type: DOUBLE, min: 0.0001, max: 0.1, scale: UNIT_LOG_SCALE}\n"
            "      - {name: batch_size, type: DISCRETE, values: [32, 64, 128]}\n"
        )
    return f"""# yaml-language-server: $schema=../schemas/trainingjob.schema.json
apiVersion: trainjobs/v1
kind: TrainingJob
metadata:
  name: bench_native_{i}
  team: vision
  description: generated spec {i}
  labels: {{model: resnet, cost-center: vision, run: r{i}}}
spec:
  region: us-central1
  workerPools:
    chief:
      machineType: {machine}
      accelerator: {{type: NVIDIA_TESLA_T4, count: {count}}}
    workers:
      machineType: {machine}
      replicas: {workers}
      accelerator: {{type: NVIDIA_TESLA_T4, count: {count}}}
      disk: {{type: pd-ssd, sizeGb: {100 + i % 400}}}
    parameterServers:
      machineType: n1-highmem-8
      replicas: {1 + i % 3}
  application:
    pythonPackage:
      uris: [gs://acme-bench/packages/trainer-{i}.tar.gz]
      module: trainer.task
      executorImage: us-docker.pkg.dev/vertex-ai/training/tf-gpu.2-17.py310:latest
      args: [--epochs, "{10 + i % 40}", --batch_size, "64"]
  env: {{RUN_ID: "{i}", LOG_LEVEL: info}}
  baseOutputDirectory: gs://acme-bench/jobs/bench_native_{i}
  scheduling:
    maxRunningTime: {3600 * (1 + i % 24)}s
    restartJobOnWorkerRestart: {str(i % 2 == 0).lower()}
{tuning}"""


def legacy(i: int, rng: random.Random) -> str:
    return f"""apiVersion: trainjobs/v1
kind: TrainingJob
metadata:
  name: bench_legacy_{i}
  team: nlp
spec:
  region: us-central1
  packages: [gs://acme-bench/packages/trainer-{i}.tar.gz]
  moduleName: trainer.task
  jobDir: gs://acme-bench/jobs/bench_legacy_{i}
  args: [--user_first_arg=first_arg_value, --user_second_arg={i}]
  trainingInput:
    scaleTier: CUSTOM
    masterType: n1-highcpu-16
    masterConfig:
      acceleratorConfig:
        count: {rng.choice([1, 2, 4])}
        type: NVIDIA_TESLA_T4
    workerCount: {rng.randint(1, 9)}
    workerType: n1-highcpu-16
    workerConfig:
      acceleratorConfig:
        count: 4
        type: NVIDIA_TESLA_T4
    parameterServerCount: 3
    parameterServerType: n1-highmem-8
    runtimeVersion: '2.4'
    pythonVersion: '3.7'
    scheduling:
      maxWaitTime: 3600s
      maxRunningTime: 7200s
"""


def vertex(i: int, rng: random.Random) -> str:
    count = rng.choice([1, 2, 4, 8])
    return f"""apiVersion: trainjobs/v1
kind: TrainingJob
metadata:
  name: bench_vertex_{i}
spec:
  region: us-central1
  labels: {{cost-center: vision}}
  worker_pool_specs:
    - replica_count: 1
      machine_spec:
        machine_type: n1-standard-8
        accelerator_type: NVIDIA_TESLA_V100
        accelerator_count: {count}
      container_spec:
        image_uri: us-central1-docker.pkg.dev/acme/vision/cassava:{i}
    - replica_count: {rng.randint(1, 6)}
      machine_spec:
        machine_type: n1-standard-8
        accelerator_type: NVIDIA_TESLA_V100
        accelerator_count: {count}
      container_spec:
        image_uri: us-central1-docker.pkg.dev/acme/vision/cassava:{i}
"""


def generate(directory: Path, n: int, clean: bool = False) -> list[Path]:
    rng = random.Random(1234)
    makers = [native, native, vertex] if clean else [native, native, legacy, vertex]
    paths = []
    for i in range(n):
        path = directory / f"spec_{i:05d}.yaml"
        path.write_text(makers[i % len(makers)](i, rng), encoding="utf-8")
        paths.append(path)
    return paths


def measure(cmd: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT) -> tuple[float, int]:
    """(CPU seconds, peak RSS in KB) of one child run in ``cwd`` (whose provider/ it imports); it must succeed."""
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env=env or {**os.environ, "NO_COLOR": "1"})
    out = proc.stdout.read() if proc.stdout else b""
    if proc.stdout:
        proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} ... failed ({proc.returncode}): {out.decode()[-2000:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000,20000", help="numbers of specs, comma-separated")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--clean", action="store_true", help="only specs with nothing to report (no AI Platform "
                        "spec, whose maxWaitTime has a warning)")
    parser.add_argument("--before", type=Path, help="an older tree of the project (git worktree add DIR COMMIT), "
                        "measured in the same run, alternately with this one")
    args = parser.parse_args()
    before_env = None
    if args.before:
        before_env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(args.before.resolve())}
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory(prefix="trainjobs-bench-") as tmp:
        for n in sizes:
            specs = Path(tmp) / f"specs{n}"
            specs.mkdir()
            generate(specs, n, args.clean)
            ours = [PY, "-m", "provider", "validate", str(specs), "--stacks", str(Path(tmp) / "none")]
            floor = [PY, "-c", FLOOR, str(specs), str(SCHEMA)]
            runs: dict[str, list[tuple[float, int]]] = {"floor": [], "trainjobs": [], "before": []}
            for _ in range(args.repeat):
                runs["floor"].append(measure(floor))
                runs["trainjobs"].append(measure(ours))
                if before_env is not None:
                    runs["before"].append(measure(ours, before_env, args.before.resolve()))
            rows.append((n, runs))
    med = statistics.median
    print(f"validate N specs{' with nothing to report' if args.clean else ''} vs the floor (libyaml CSafeLoader + "
          f"jsonschema-rs, committed schema); median of {args.repeat} runs, CPU = user + system of the child; {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"  {'N':>6s}  {'floor CPU s':>11s}  {'trainjobs CPU s':>15s}  {'ratio':>6s}  {'ms/spec':>7s}  "
          f"{'floor RSS':>10s}  {'trainjobs RSS':>13s}" + (f"  {'before CPU s':>12s}  {'ratio':>6s}  "
                                                             f"{'before RSS':>10s}" if args.before else ""))
    for n, runs in rows:
        f_cpu = med(c for c, _ in runs["floor"])
        t_cpu = med(c for c, _ in runs["trainjobs"])
        f_rss = max(r for _, r in runs["floor"]) / 1024
        t_rss = max(r for _, r in runs["trainjobs"]) / 1024
        line = (f"  {n:6d}  {f_cpu:11.3f}  {t_cpu:15.3f}  {t_cpu / f_cpu:5.2f}x  {1000 * t_cpu / n:7.3f}  "
                f"{f_rss:7.1f} MB  {t_rss:10.1f} MB")
        if runs["before"]:
            b_cpu = med(c for c, _ in runs["before"])
            line += f"  {b_cpu:12.3f}  {b_cpu / f_cpu:5.2f}x  {max(r for _, r in runs['before']) / 1024:7.1f} MB"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
