"""Benchmark: ``trainjobs plan`` over a repository of 500 specs, a change touching 20 files.

    .venv/bin/python bench/plan_bench.py [--specs 500] [--changed 20] [--repeat 5]

It builds a throwaway git repository in a temporary directory: four team stacks, 500 specs
(generated like bench/validate_bench.py's, one in five packaging a local trainer), one commit;
then a second commit touches 20 files (specs edited, added, deleted and renamed, one trainer
file, one stack's quota). It times, cold and as a user runs them, side by side:

* ``trainjobs plan --base HEAD~1`` (the whole command: git, both sides, requests, diff, policy,
  cost, text report);
* the baseline, what a reviewer could do without plan: write the base commit's tree out with
  ``git archive`` and run ``trainjobs validate`` there, then ``trainjobs validate`` on the head
  (it checks both sides but says nothing about what changes).

Medians of --repeat runs. The target is under 2 s for the plan.
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

from validate_bench import native  # noqa: E402  (the same realistic specs as the validate benchmark)

TEAMS = ("alpha", "beta", "gamma", "delta")
STACK = """config:
  trainjobs:backend: vertex
  trainjobs:team: {team}
  trainjobs:environment: dev
  gcp:project: acme-{team}-dev
  gcp:region: us-central1
  trainjobs:specs:
    - specs/{team}/*.yaml
  trainjobs:quotas:
    maxGpusPerJob: {per_job}
    maxGpusPerStack: 100000
    allowedRegions: [us-central1]
  trainjobs:policy:
    requiredLabels: [cost-center]
    owners:
      specs/{team}/: ["@acme/{team}"]
  trainjobs:labels:
    env: dev
"""


def spec(i: int, rng: random.Random) -> str:
    text = native(i, rng)
    if i % 5 == 0:  # a local package, staged by digest
        text = text.replace(f"      uris: [gs://acme-bench/packages/trainer-{i}.tar.gz]\n",
                            "      path: ../../trainer/trainer\n")
    return text


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)


def build(repo: Path, n: int, changed: int) -> list[str]:
    """Two commits; returns the paths the second one touches."""
    rng = random.Random(6)
    git(repo, "init", "-q", "-b", "main")
    (repo / "trainer" / "trainer").mkdir(parents=True)
    (repo / "trainer" / "setup.py").write_text("from setuptools import setup\nsetup(name='trainer')\n")
    (repo / "trainer" / "trainer" / "__init__.py").write_text("")
    (repo / "trainer" / "trainer" / "task.py").write_text("print('train')\n")
    (repo / "stacks").mkdir()
    for team in TEAMS:
        (repo / "specs" / team).mkdir(parents=True)
        (repo / "stacks" / f"Pulumi.{team}-dev.yaml").write_text(STACK.format(team=team, per_job=10000))
    for i in range(n):
        (repo / "specs" / TEAMS[i % len(TEAMS)] / f"job_{i:04d}.yaml").write_text(spec(i, rng))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    touched: list[str] = []
    (repo / "trainer" / "trainer" / "task.py").write_text("print('train harder')\n")
    touched.append("trainer/trainer/task.py")
    (repo / "stacks" / "Pulumi.alpha-dev.yaml").write_text(STACK.format(team="alpha", per_job=9000))
    touched.append("stacks/Pulumi.alpha-dev.yaml")
    specs = sorted((repo / "specs").rglob("*.yaml"))
    edits, adds, deletes = changed - 6, 2, 1
    for path in specs[1:1 + edits]:
        path.write_text(path.read_text().replace("replicas: ", "replicas: 1", 1))
        touched.append(str(path.relative_to(repo)))
    for k in range(adds):
        new = repo / "specs" / "beta" / f"new_{k}.yaml"
        new.write_text(spec(n + k, rng))
        touched.append(str(new.relative_to(repo)))
    for path in specs[-deletes:]:
        path.unlink()
        touched.append(str(path.relative_to(repo)))
    old = specs[-deletes - 1]
    git(repo, "mv", str(old.relative_to(repo)), str(old.with_name("renamed.yaml").relative_to(repo)))
    touched.append(str(old.relative_to(repo)))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "change")
    return touched


def timed(cmd: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    start = time.perf_counter()
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    return time.perf_counter() - start, proc


def baseline(repo: Path, scratch: Path) -> float:
    start = time.perf_counter()
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir()
    archive = subprocess.run(["git", "archive", "HEAD~1"], cwd=repo, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(scratch)], input=archive, check=True)
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    for where in (scratch, repo):
        proc = subprocess.run([PY, "-m", "provider", "validate"], cwd=where, capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stdout[-2000:]
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--specs", type=int, default=500)
    parser.add_argument("--changed", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="trainjobs-plan-bench-") as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        touched = build(repo, args.specs, args.changed)
        plan_times, base_times = [], []
        proc = None
        for _ in range(args.repeat):
            t, proc = timed([PY, "-m", "provider", "plan", "--base", "HEAD~1"], repo)
            assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
            plan_times.append(t)
            base_times.append(baseline(repo, Path(tmp) / "base"))
        assert proc is not None
        summary = [line for line in proc.stdout.splitlines() if line.startswith(("stack ", "this change"))]
    med = statistics.median
    print(f"plan over {args.specs} specs in {len(TEAMS)} stacks, a change touching {len(touched)} files "
          f"(median of {args.repeat} runs, {os.cpu_count()} cores, Python {sys.version.split()[0]})")
    print(f"  {'command':62s} {'wall s':>7s}")
    print(f"  {'trainjobs plan --base HEAD~1 (cold, whole command)':62s} {med(plan_times):7.3f}")
    print(f"  {'baseline: git archive HEAD~1 + validate it + validate head':62s} {med(base_times):7.3f}")
    print(f"  plan min {min(plan_times):.3f} s, max {max(plan_times):.3f} s; target < 2 s: "
          f"{'met' if med(plan_times) < 2 else 'MISSED'}")
    print("  what the plan found:")
    for line in summary:
        print("    " + line[:150])
    return 0


if __name__ == "__main__":
    sys.exit(main())
