"""Benchmark: ``trainjobs plan`` over repositories of N specs, a change touching 20 files.

    .venv/bin/python bench/plan_bench.py [--sizes 100,500,2000] [--changed 20] [--repeat 5] [--repos DIR]
                                         [--trainers K]

For each size N it builds a throwaway git repository in a temporary directory: four team stacks,
N specs (generated like bench/validate_bench.py's, one in five packaging a local trainer), one commit;
then a second commit touches 20 files (specs edited, added, deleted and renamed, one trainer
file, one stack's quota). By default the specs share one trainer, which that commit changes, so
the plan digests it on each side. With ``--trainers K`` they use K trainer folders in turn and the
commit changes only the first: the other K - 1 hold the same files on both sides, which the plan
proves with three git processes and digests once for both sides (provider/gitops/shared.py).
It times, cold and as a user runs them, side by side:

* ``trainjobs plan --base HEAD~1`` (the whole command: git, both sides, requests, diff, policy,
  cost, text report);
* the baseline, what a reviewer could do without plan: write the base commit's tree out with
  ``git archive`` and run ``trainjobs validate`` there, then ``trainjobs validate`` on the head
  (it checks both sides but says nothing about what changes).

Generating a large repository takes longer than planning it: with ``--repos DIR`` each size's
repository is kept in DIR/N and reused by later runs (built again only if missing or made with
another --changed). Beside the timed runs, one more plan runs in-process under tracemalloc: the
peak of the Python heap it allocates, per spec, says whether the plan holds a constant amount for
each spec (flat as N grows) or more; "marginal" columns divide the growth from the previous size
by the specs added, so the fixed cost (modules, catalog, schema) drops out.

Medians of --repeat runs: wall time, CPU time (user + system of the command and the git it runs:
load on the machine does not inflate it), and peak RSS (of the command, and of the largest process
it waited for), with each cost's ratio to the smallest N, side by side in one run. The target is
under 2 s for the plan over 500 specs.
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
from dataclasses import dataclass
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
    maxGpusPerStack: 1000000000
    allowedRegions: [us-central1]
  trainjobs:policy:
    requiredLabels: [cost-center]
    owners:
      specs/{team}/: ["@acme/{team}"]
  trainjobs:labels:
    env: dev
"""


def trainer(k: int) -> str:
    """The folder of the k-th trainer (the first is ``trainer``, as the bench always made it)."""
    return "trainer" if k == 0 else f"trainer_{k}"


def spec(i: int, rng: random.Random, trainers: int = 1) -> str:
    text = native(i, rng)
    if i % 5 == 0:  # a local package, staged by digest
        text = text.replace(f"      uris: [gs://acme-bench/packages/trainer-{i}.tar.gz]\n",
                            f"      path: ../../{trainer(i // 5 % trainers)}/trainer\n")
    return text


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env)


def build(repo: Path, n: int, changed: int, trainers: int = 1) -> list[str]:
    """Two commits; returns the paths the second one touches."""
    rng = random.Random(6)
    git(repo, "init", "-q", "-b", "main")
    for k in range(trainers):
        (repo / trainer(k) / "trainer").mkdir(parents=True)
        (repo / trainer(k) / "setup.py").write_text("from setuptools import setup\nsetup(name='trainer')\n")
        (repo / trainer(k) / "trainer" / "__init__.py").write_text("")
        (repo / trainer(k) / "trainer" / "task.py").write_text("print('train')\n")
    (repo / "stacks").mkdir()
    for team in TEAMS:
        (repo / "specs" / team).mkdir(parents=True)
        (repo / "stacks" / f"Pulumi.{team}-dev.yaml").write_text(STACK.format(team=team, per_job=10000))
    for i in range(n):
        (repo / "specs" / TEAMS[i % len(TEAMS)] / f"job_{i:04d}.yaml").write_text(spec(i, rng, trainers))
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
        new.write_text(spec(n + k, rng, trainers))
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


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float  # user + system seconds, the process and the children it waited for
    rss_kb: int  # peak resident set
    returncode: int
    stdout: str
    stderr: str


def timed(cmd: list[str], cwd: Path) -> Run:
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT)}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, proc.returncode,
                   out.read().decode(errors="replace"), err.read().decode(errors="replace"))


def baseline(repo: Path, scratch: Path) -> Run:
    """git archive of the base, then validate it and the head: wall, CPU and peak RSS of the validates."""
    start = time.perf_counter()
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir()
    archive = subprocess.run(["git", "archive", "HEAD~1"], cwd=repo, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(scratch)], input=archive, check=True)
    cpu, rss = 0.0, 0
    for where in (scratch, repo):
        run = timed([PY, "-m", "provider", "validate"], where)
        assert run.returncode == 0, run.stdout[-2000:]
        cpu, rss = cpu + run.cpu, max(rss, run.rss_kb)
    return Run(time.perf_counter() - start, cpu, rss, 0, "", "")


TRACED = """
import io, sys, tracemalloc
from pathlib import Path
from provider.gitops import report_text
from provider.gitops.load import sides
from provider.gitops.plan import make_plan
tracemalloc.start()  # after the imports: what the plan allocates, not the modules
with sides(Path.cwd(), "HEAD~1") as (base, head):
    result = make_plan(base, head, None)
report_text.render(result, io.StringIO(), show_requests=False)
print(tracemalloc.get_traced_memory()[1])
"""


def repository(n: int, changed: int, keep: Path | None, tmp: Path, trainers: int = 1) -> tuple[Path, int]:
    """The repository of n specs (kept in ``keep``/n, or n-tK for K trainers, and reused when asked) and the
    number of files touched."""
    repo = (keep / (str(n) if trainers == 1 else f"{n}-t{trainers}")) if keep else tmp / "repo"
    stamp = repo / ".git" / "bench-touched"
    if keep and stamp.is_file() and stamp.read_text().split()[:1] == [str(changed)]:
        return repo, int(stamp.read_text().split()[1])
    if repo.exists():
        shutil.rmtree(repo)
    repo.mkdir(parents=True)
    t0 = time.perf_counter()
    touched = build(repo, n, changed, trainers)
    stamp.write_text(f"{changed} {len(touched)}\n")
    print(f"  (repository of {n} specs generated in {time.perf_counter() - t0:.1f} s)", file=sys.stderr)
    return repo, len(touched)


def one_size(n: int, changed: int, repeat: int, keep: Path | None,
             trainers: int = 1) -> tuple[list[Run], list[Run], int, list[str], int]:
    """(plan runs, baseline runs, files touched, the plan's summary lines, peak traced bytes) for n specs."""
    with tempfile.TemporaryDirectory(prefix="trainjobs-plan-bench-") as tmp:
        repo, touched = repository(n, changed, keep, Path(tmp), trainers)
        plans, bases = [], []
        for _ in range(repeat):
            run = timed([PY, "-m", "provider", "plan", "--base", "HEAD~1"], repo)
            assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
            plans.append(run)
            bases.append(baseline(repo, Path(tmp) / "base"))
        traced = timed([PY, "-c", TRACED], repo)
        assert traced.returncode == 0, traced.stderr[-3000:]
        summary = [line for line in plans[-1].stdout.splitlines() if line.startswith(("stack ", "this change"))]
    return plans, bases, touched, summary, int(traced.stdout.split()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,500,2000", help="numbers of specs, comma-separated")
    parser.add_argument("--changed", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--repos", type=Path, help="keep each size's repository in DIR/N and reuse it")
    parser.add_argument("--trainers", type=int, default=1,
                        help="trainer folders the specs use in turn; the change edits the first only")
    args = parser.parse_args()
    load = os.getloadavg()
    sizes = [int(s) for s in args.sizes.split(",")]
    med = statistics.median
    rows, summaries, touched, traced = [], {}, 0, {}
    for n in sizes:
        plans, bases, touched, summaries[n], traced[n] = one_size(n, args.changed, args.repeat, args.repos,
                                                                   args.trainers)
        for label, runs in (("trainjobs plan --base HEAD~1", plans), ("baseline: archive + validate x2", bases)):
            rows.append((label, n, med(r.wall for r in runs), med(r.cpu for r in runs), max(r.rss_kb for r in runs),
                         min(r.wall for r in runs), max(r.wall for r in runs)))
    first = {label: (wall, cpu) for label, n, wall, cpu, *_ in rows if n == sizes[0]}
    print(f"plan over N specs in {len(TEAMS)} stacks, {args.trainers} trainer(s) ({args.trainers - 1} alike on both "
          f"sides), a change touching {touched} files (median of {args.repeat} runs, {os.cpu_count()} cores, "
          f"Python {sys.version.split()[0]})")
    print("  load average (1, 5, 15 min) at the start: {:.2f} {:.2f} {:.2f}; at the end: {:.2f} {:.2f} {:.2f}".format(
        *load, *os.getloadavg()))
    print(f"  {'command':34s} {'N':>6s} {'wall s':>7s} {'CPU s':>7s} {'x first (CPU)':>14s} {'ms CPU/spec':>11s} "
          f"{'peak RSS':>9s} {'KB RSS/spec':>11s} {'KB traced/spec':>14s}")
    previous: dict[str, tuple[int, int]] = {}
    for label, n, wall, cpu, rss, _, _ in rows:
        plan = label.startswith("trainjobs plan")
        heap = f"{traced[n] / 1024 / n:14.1f}" if plan else f"{'':14s}"
        margin = ""
        if label in previous:
            n0, rss0 = previous[label]
            margin = f" marginal: {(rss - rss0) / (n - n0):.1f} KB RSS/spec"
            if plan:
                margin += f", {(traced[n] - traced[n0]) / 1024 / (n - n0):.1f} KB traced/spec"
        previous[label] = (n, rss)
        print(f"  {label:34s} {n:6d} {wall:7.3f} {cpu:7.3f} {cpu / first[label][1]:13.2f}x {cpu / n * 1000:11.2f} "
              f"{rss / 1024:6.1f} MB {rss / n:11.1f} {heap}{margin}")
    for label, n, wall, _, _, lo, hi in rows:
        if label.startswith("trainjobs plan") and n == 500:
            print(f"  plan over 500 specs: min {lo:.3f} s, max {hi:.3f} s; target < 2 s: {'met' if wall < 2 else 'MISSED'}")
    largest = sizes[-1]
    print(f"  what the plan found at N={largest}:")
    for line in summaries[largest]:
        print("    " + line[:150])
    return 0


if __name__ == "__main__":
    sys.exit(main())
