"""Benchmark: the Pulumi program for a vertex stack of N container jobs, beside the SDK's own floor.

    .venv/bin/python bench/program_bench.py [--sizes 100,300,600] [--repeat 3] [--profile 20]

What ``pulumi preview`` spends in the program before the engine calls the provider at all. For each
N it builds a throwaway project holding a vertex stack of N generated container-job specs and runs,
each in a fresh process, under the SDK's pulumi mocks (tests/pulumi/harness.py, as the tests run
the program):

* ours: the real program (``__main__.py``: the stack's config, its specs loaded and checked,
  TeamInfra, one TrainingJob per spec, the exports);
* the floor: the same SDK and the same mocks declaring N dynamic resources whose provider is a
  class importable by reference (as ours is: ``bench/echo_provider.py``) and whose inputs are the
  same specs' documents, read with PyYAML's libyaml loader: what any program declaring these specs must spend.

Two harnesses run both (``--harness``): ``lean`` (the default) is the SDK's pulumi mocks alone,
answering each registration with its inputs (and the service account's email, which the jobs'
requests wait on), recording nothing: what the program and the SDK cost. ``tests`` is
tests/pulumi/harness.py, which also records every resource's inputs and outputs for the tests (three
walks of each resource's inputs, and a JSON report): the figures of the rounds before the third.

Each row is the CPU (user + system) of that process and its peak RSS, from ``os.wait4``: load on
the machine does not inflate CPU time. Per-job figures are the cost over the N=1 run of the same
program (the imports and the SDK's start are not per job; a stack needs one spec), and the growth between sizes shows
whether the per-job cost is flat. ``--profile N`` runs ours at the largest size under cProfile
once and prints the N functions with the most cumulative time in provider/.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = Path(__file__).resolve().parent

STACK = """config:
  trainjobs:backend: vertex
  trainjobs:team: vision
  trainjobs:environment: bench
  gcp:project: acme-vision-bench
  gcp:region: us-central1
  trainjobs:specs: [specs/bench/*.yaml]
  trainjobs:quotas: {maxGpusPerJob: 512, maxGpusPerStack: 1000000, allowedRegions: [us-central1]}
  trainjobs:labels: {env: bench}
"""

FLOOR_PROGRAM = '''"""The floor: N dynamic resources, the specs' documents as inputs, an echo provider by reference."""
import glob
import sys

import pulumi
import yaml

sys.path.insert(0, {bench!r})
from echo_provider import Echo  # noqa: E402

for path in sorted(glob.glob("specs/bench/*.yaml")):
    with open(path) as f:
        document = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # libyaml: the cheapest read
    Echo(document["metadata"]["name"], document)
'''


# The lean harness: pulumi mocks that echo the inputs, the stack's config as the engine passes it,
# the program run as the python runtime runs it; prints how many dynamic resources were declared.
LEAN = """
import json, os, pathlib, runpy, sys
project = pathlib.Path({project!r})
os.chdir(project)
import pulumi, yaml
from pulumi.runtime import mocks

class Echo(mocks.Mocks):
    dynamic = 0

    def new_resource(self, args):
        outs = dict(args.inputs)
        if args.typ == "gcp:serviceaccount/account:Account":
            email = f"{{outs['accountId']}}@{{outs['project']}}.iam.gserviceaccount.com"
            outs.update(email=email, member=f"serviceAccount:{{email}}", name=f"projects/p/serviceAccounts/{{email}}")
        elif args.typ.startswith("pulumi-python:dynamic"):
            Echo.dynamic += 1
        return args.name + "-id", outs

    def call(self, args):
        return {{"number": "123456789012", "projectId": args.args.get("projectId")}}, []

mocks.set_mocks(Echo(), project="trainjobs", stack="bench", preview=False)
config = yaml.safe_load((project / "stacks" / "Pulumi.bench.yaml").read_text())["config"]
pulumi.runtime.set_all_config({{k: v if isinstance(v, str) else json.dumps(v) for k, v in config.items()}}, [])

@mocks.test
def program():
    runpy.run_path(str(project / "__main__.py"), run_name="__main__")

if {profile!r}:
    import cProfile
    cProfile.run("program()", {profile!r})
else:
    program()
pathlib.Path({out!r}).write_text(json.dumps({{"error": None, "dynamic": Echo.dynamic}}))
sys.stdout.flush()
os._exit(0)  # as the tests' harness: the SDK's event loops complain noisily at exit
"""

PROFILED = """
import cProfile, json, pathlib
from tests.pulumi import harness
profiler = cProfile.Profile()
report = profiler.runcall(harness.run, "bench", None, None, [], pathlib.Path({project!r}))
profiler.dump_stats({profile!r})
pathlib.Path({out!r}).write_text(json.dumps(report, default=str))
"""


def spec(i: int) -> str:
    count = (1, 2, 4)[i % 3]
    return f"""apiVersion: trainjobs/v1
kind: TrainingJob
metadata:
  name: bench_container_{i}
  team: vision
  description: generated container spec {i}
  labels: {{model: resnet, cost-center: vision, run: r{i}}}
spec:
  region: us-central1
  workerPools:
    chief:
      machineType: n1-highcpu-16
      accelerator: {{type: NVIDIA_TESLA_T4, count: {count}}}
    workers:
      machineType: n1-highcpu-16
      replicas: {1 + i % 8}
      accelerator: {{type: NVIDIA_TESLA_T4, count: {count}}}
      disk: {{type: pd-ssd, sizeGb: {100 + i % 400}}}
  application:
    container:
      image: us-docker.pkg.dev/acme/trainers/resnet:v{i % 7}
      command: [python, -m, trainer.task]
  args: [--epochs, "{10 + i % 40}", --batch_size, "64"]
  env: {{RUN_ID: "{i}", LOG_LEVEL: info}}
  baseOutputDirectory: gs://acme-bench/jobs/bench_container_{i}
  scheduling:
    maxRunningTime: {3600 * (1 + i % 24)}s
"""


def make_project(where: Path, n: int, floor: bool) -> Path:
    project = where / f"{'floor' if floor else 'ours'}-{n}"
    (project / "stacks").mkdir(parents=True)
    (project / "specs" / "bench").mkdir(parents=True)
    shutil.copy(ROOT / "Pulumi.yaml", project / "Pulumi.yaml")
    if floor:
        (project / "__main__.py").write_text(FLOOR_PROGRAM.format(bench=str(BENCH)))
    else:
        shutil.copy(ROOT / "__main__.py", project / "__main__.py")
    (project / "stacks" / "Pulumi.bench.yaml").write_text(STACK)
    for i in range(n):
        (project / "specs" / "bench" / f"bench_container_{i}.yaml").write_text(spec(i))
    return project


def run_once(project: Path, profile: Path | None = None, harness: str = "lean") -> tuple[float, float, dict[str, object]]:
    """CPU seconds and peak RSS (MB) of one run of the harness on ``project``, and its report."""
    out = project / "report.json"
    argv = [sys.executable, "-m", "tests.pulumi.harness", "bench", "--out", str(out), "--project", str(project)]
    if harness == "lean":
        argv = [sys.executable, "-c", LEAN.format(project=str(project), out=str(out), profile=str(profile or ""))]
    elif profile is not None:  # the harness ends with os._exit: profile its run() and write the report here
        argv = [sys.executable, "-c", PROFILED.format(project=str(project), out=str(out), profile=str(profile))]
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if not out.exists():
        raise SystemExit(f"{project.name}: the program did not run (rc {proc.returncode}): {stderr[-2000:]}")
    report = json.loads(out.read_text())
    out.unlink()
    if report["error"]:
        raise SystemExit(f"{project.name}: {report['error'][-2000:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, report


def dynamic_count(report: dict[str, object]) -> int:
    if "dynamic" in report:  # the lean harness counts them
        return int(report["dynamic"])  # type: ignore[call-overload]
    return sum(1 for r in report["registrations"] if str(r["type"]).startswith("pulumi-python:dynamic"))  # type: ignore[index, union-attr]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,300,600")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", type=int, default=0, metavar="N")
    parser.add_argument("--harness", choices=("lean", "tests"), default="lean",
                        help="lean: the SDK's mocks alone; tests: tests/pulumi/harness.py, which records every resource")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    where = Path(tempfile.mkdtemp(prefix="program-bench-"))
    try:
        results: dict[tuple[str, int], tuple[float, float]] = {}
        for n in [1, *sizes]:
            projects = {kind: make_project(where, n, kind == "floor") for kind in ("ours", "floor")}
            if n == 1:  # untimed: the first run of a tree writes its bytecode caches
                for project in projects.values():
                    run_once(project, harness=args.harness)
            cpu: dict[str, list[float]] = {"ours": [], "floor": []}
            rss: dict[str, list[float]] = {"ours": [], "floor": []}
            for _ in range(args.repeat):
                for kind, project in projects.items():  # alternately, so load falls on both alike
                    seconds, mb, report = run_once(project, harness=args.harness)
                    declared = dynamic_count(report)
                    if (kind == "floor" and declared != n) or (kind == "ours" and declared < n):
                        raise SystemExit(f"{kind} at N={n} declared {declared} dynamic resources")
                    cpu[kind].append(seconds)
                    rss[kind].append(mb)
            for kind in cpu:
                results[kind, n] = (statistics.median(cpu[kind]), max(rss[kind]))
        print(f"the program under pulumi mocks ({args.harness} harness), a vertex stack of N container jobs "
              f"(median CPU of {args.repeat} runs, Python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f})")
        print(f"{'N':>6} {'ours CPU s':>11} {'floor CPU s':>12} {'ours ms/job':>12} {'floor ms/job':>13} "
              f"{'ratio':>6} {'ours RSS':>9} {'floor RSS':>10}")
        base_ours, base_floor = results["ours", 1][0], results["floor", 1][0]
        print(f"{1:>6} {base_ours:>11.3f} {base_floor:>12.3f} {'':>12} {'':>13} {'':>6} "
              f"{results['ours', 1][1]:>7.1f}MB {results['floor', 1][1]:>8.1f}MB")
        for n in sizes:
            ours, ours_mb = results["ours", n]
            floor, floor_mb = results["floor", n]
            per_ours = (ours - base_ours) / (n - 1) * 1000
            per_floor = (floor - base_floor) / (n - 1) * 1000
            print(f"{n:>6} {ours:>11.3f} {floor:>12.3f} {per_ours:>12.2f} {per_floor:>13.2f} "
                  f"{per_ours / per_floor:>5.2f}x {ours_mb:>7.1f}MB {floor_mb:>8.1f}MB")
        if args.profile:
            import pstats

            n = sizes[-1]
            stats_file = where / "ours.prof"
            run_once(make_project(where / "profile", n, floor=False), profile=stats_file, harness=args.harness)
            print(f"\nours at N={n} under cProfile, the {args.profile} provider/ functions with the most cumulative time:")
            stats = pstats.Stats(str(stats_file))
            stats.sort_stats("cumulative").print_stats(r"provider/", args.profile)
    finally:
        shutil.rmtree(where, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
