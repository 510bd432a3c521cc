"""Benchmark: one spec, cold, against the floor ``python -c 'import yaml, jsonschema_rs'``.

    .venv/bin/python bench/cold_start_bench.py [--repeat 15] [--spec FILE] [--before DIR] [--no-install]

Each row is a fresh interpreter, run as a user runs it; the figure is the median CPU time of the
child (user + system: load on the machine does not inflate it) over ``--repeat`` runs, and its
peak RSS (the largest of the runs). The cases, side by side in one run, the rows alternating:

* with .pyc: this tree, its bytecode compiled as ``scripts/setup.sh`` compiles it at install
  (``compileall``), run with PYTHONDONTWRITEBYTECODE=1 (a read-only install, a CI image that
  sets the variable): the bytecode the install left is all there is;
* regular install: ``pip install --no-deps --target`` of this tree with PYTHONDONTWRITEBYTECODE=1
  set during the install and the runs; every module must have its bytecode (pip compiles them);
  the package carries the schemas (``setup.py``: ``provider/schemas/``; an older tree's did not,
  and generated the spec schema from the catalog at each start) (``--no-install`` leaves this
  case out: it builds a wheel);
* worst case, without .pyc: a copy of ``provider/`` with no ``__pycache__`` anywhere, run with
  PYTHONDONTWRITEBYTECODE=1, so every start compiles every module it imports (a tree copied
  without its bytecode, an install that skipped compiling);
* ``--before DIR``: the same rows for an older tree (``git worktree add DIR COMMIT``), for a
  before/after comparison in one run.

It also prints ``trainjobs --help``, which must not cost more than validating one spec.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
SPEC = ROOT / "specs" / "vision" / "resnet_t4.yaml"


@dataclass(frozen=True)
class Case:
    """One row: a command, where it runs and with which environment."""

    name: str
    argv: tuple[str, ...]
    cwd: Path
    env: tuple[tuple[str, str], ...]


def measure(case: Case) -> tuple[float, int]:
    """(CPU seconds, peak RSS in KB) of one child run; it must succeed."""
    proc = subprocess.Popen(case.argv, cwd=case.cwd, env=dict(case.env), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    out = proc.stdout.read() if proc.stdout else b""
    if proc.stdout:
        proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{case.name}: {' '.join(case.argv)} failed ({code}): {out.decode()[-2000:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def bare_copy(tree: Path, dest: Path) -> Path:
    """The provider package of ``tree`` copied without any bytecode; returns the directory to run in."""
    shutil.copytree(tree / "provider", dest / "provider", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copytree(tree / "schemas", dest / "schemas")
    return dest


def regular_install(tree: Path, dest: Path, env: dict[str, str]) -> Path:
    """``pip install --no-deps --target`` of ``tree`` with ``env``; checks every module got its bytecode."""
    subprocess.run([PY, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                    "--target", str(dest), str(tree)], env=env, check=True)
    sources = sorted((dest / "provider").rglob("*.py"))
    missing = [p for p in sources if not any((p.parent / "__pycache__").glob(f"{p.stem}.*.pyc"))]
    print(f"regular install: {len(sources) - len(missing)} of {len(sources)} provider modules have bytecode "
          "(installed with PYTHONDONTWRITEBYTECODE=1)")
    if missing:
        raise SystemExit(f"no bytecode for {missing[:5]}")
    return dest


def cases_for(label: str, tree: Path, tmp: Path, spec: Path, base: dict[str, str], install: bool) -> list[Case]:
    """The rows of one tree: with its install's bytecode, a regular install, and the worst case."""
    none = str(tmp / "none")
    nopyc = {**base, "PYTHONDONTWRITEBYTECODE": "1"}
    validate = (PY, "-m", "provider", "validate", str(spec), "--stacks", none)
    helps = (PY, "-m", "provider", "--help")
    subprocess.run([PY, "-m", "compileall", "-q", str(tree / "provider")], check=True)  # as scripts/setup.sh does
    out = [Case(f"{label}validate ONE.yaml, with .pyc", validate, tree, tuple(nopyc.items())),
           Case(f"{label}trainjobs --help, with .pyc", helps, tree, tuple(nopyc.items()))]
    slug = label.strip(": ") or "this"
    if install:
        target = regular_install(tree, tmp / f"{slug}-installed", nopyc)
        env = tuple({**nopyc, "PYTHONPATH": str(target)}.items())
        out.append(Case(f"{label}validate ONE.yaml, regular install", validate, tmp, env))
    bare = bare_copy(tree, tmp / f"{slug}-nopyc")
    out += [Case(f"{label}validate ONE.yaml, worst: no .pyc", validate, bare, tuple(nopyc.items())),
            Case(f"{label}trainjobs --help, worst: no .pyc", helps, bare, tuple(nopyc.items()))]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--spec", type=Path, default=SPEC)
    parser.add_argument("--before", type=Path, help="an older tree of the project, measured side by side")
    parser.add_argument("--no-install", action="store_true", help="leave out the regular-install case")
    args = parser.parse_args()
    spec = args.spec.resolve()
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    base["NO_COLOR"] = "1"
    with tempfile.TemporaryDirectory(prefix="trainjobs-cold-") as tmp_name:
        tmp = Path(tmp_name)
        cases = [Case("floor: import yaml, jsonschema_rs", (PY, "-c", "import yaml, jsonschema_rs"), tmp,
                      tuple(base.items()))]
        if args.before:
            cases += cases_for("before: ", args.before.resolve(), tmp, spec, base, not args.no_install)
        cases += cases_for("after: " if args.before else "", ROOT, tmp, spec, base, not args.no_install)
        for case in cases:  # warm the file cache
            measure(case)
        runs: dict[str, list[tuple[float, int]]] = {case.name: [] for case in cases}
        for _ in range(args.repeat):
            for case in cases:
                runs[case.name].append(measure(case))
        leftover = [p for p in tmp.rglob("*-nopyc/**/*.pyc")]
        assert not leftover, f"bytecode was written in a bare copy: {leftover[:3]}"
    med = statistics.median
    floor = med(c for c, _ in runs[cases[0].name])
    print(f"one spec cold ({spec.name}); median CPU (user + system) of {args.repeat} runs each, "
          f"{os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"  {'command':48s} {'CPU s':>7s} {'x floor':>8s} {'peak RSS':>9s}")
    for case in cases:
        cpu = med(c for c, _ in runs[case.name])
        rss = max(r for _, r in runs[case.name]) / 1024
        print(f"  {case.name:48s} {cpu:7.3f} {cpu / floor:7.2f}x {rss:6.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
