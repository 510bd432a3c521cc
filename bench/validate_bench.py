"""Benchmark: validating 1,000 realistic specs, side by side with check-jsonschema.

    .venv/bin/python bench/validate_bench.py [--specs 1000] [--repeat 5]

What it measures, in one run on this machine:
  * trainjobs validate DIR (1,000 specs; schema + every rule + line numbers), wall time of the
    whole command, cold, as a user runs it;
  * check-jsonschema --schemafile schemas/trainingjob.schema.json on the same files;
  * the in-process time of validate_paths on the same files (warm, no interpreter start);
  * trainjobs validate ONE.yaml, cold start, median of several runs.

The specs are generated from the example specs (native, AI Platform and Vertex formats),
with varied names, machine types, GPU counts, labels and tuning, so no two files are equal.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
CHECK_JSONSCHEMA = shutil.which("check-jsonschema", path=str(Path(PY).parent)) or "check-jsonschema"

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


def generate(directory: Path, n: int) -> list[Path]:
    rng = random.Random(1234)
    makers = [native, native, legacy, vertex]
    paths = []
    for i in range(n):
        path = directory / f"spec_{i:04d}.yaml"
        path.write_text(makers[i % len(makers)](i, rng), encoding="utf-8")
        paths.append(path)
    return paths


def timed(cmd: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    return time.perf_counter() - start, proc


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--specs", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="trainjobs-bench-") as tmp:
        specs = Path(tmp) / "specs"
        specs.mkdir()
        paths = generate(specs, args.specs)
        trainjobs = [PY, "-m", "provider", "validate", str(specs), "--stacks", str(Path(tmp) / "none")]
        ours, theirs = [], []
        for _ in range(args.repeat):
            t, proc = timed(trainjobs, ROOT)
            assert proc.returncode == 0, proc.stdout[-2000:]
            ours.append(t)
            t, proc = timed([CHECK_JSONSCHEMA, "--schemafile", str(ROOT / "schemas/trainingjob.schema.json"),
                             *map(str, paths)], ROOT)
            assert proc.returncode == 0, proc.stdout[-2000:]
            theirs.append(t)
        sys.path.insert(0, str(ROOT))
        from provider.validation.validator import validate_paths

        validate_paths([str(paths[0])])  # warm the schema and catalog
        warm = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            report = validate_paths([str(specs)])
            warm.append(time.perf_counter() - start)
            assert report.ok
        cold = []
        for _ in range(max(args.repeat * 2, 10)):
            t, proc = timed([PY, "-m", "provider", "validate", str(paths[0]), "--stacks", str(Path(tmp) / "none")], ROOT)
            assert proc.returncode == 0
            cold.append(t)
    med = statistics.median
    print(f"validate {args.specs} specs (median of {args.repeat} runs, {os.cpu_count()} cores, Python "
          f"{sys.version.split()[0]})")
    print(f"  {'tool':48s} {'wall s':>8s} {'ms/spec':>8s}")
    rows = [
        ("trainjobs validate (schema + rules + lines)", med(ours)),
        ("check-jsonschema (schema only)", med(theirs)),
        ("trainjobs validate_paths in-process (warm)", med(warm)),
    ]
    for name, t in rows:
        print(f"  {name:48s} {t:8.3f} {1000 * t / args.specs:8.3f}")
    print(f"  speed-up over check-jsonschema: {med(theirs) / med(ours):.1f}x")
    print(f"cold start, trainjobs validate ONE.yaml: median {med(cold):.3f} s (min {min(cold):.3f}, "
          f"max {max(cold):.3f}, {len(cold)} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
