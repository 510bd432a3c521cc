"""Benchmark: one spec, cold, against the floor ``python -c 'import yaml, jsonschema_rs'``.

    .venv/bin/python bench/cold_start_bench.py [--repeat 15]

Each row is a fresh interpreter, run as a user runs it; the figure is the median CPU time of the
child (user + system: load on the machine does not inflate it) over ``--repeat`` runs, and its
peak RSS. Two cases, side by side in one run:

* with .pyc: the installed tree, whose bytecode the install compiled (scripts/setup.sh);
* without .pyc: a copy of the ``provider`` package with no ``__pycache__`` anywhere, run with
  PYTHONDONTWRITEBYTECODE=1 so no run leaves bytecode for the next (a read-only install, a CI
  image that sets the variable). The floor's packages are the installed ones in both cases.

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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
SPEC = ROOT / "specs" / "vision" / "resnet_t4.yaml"


def measure(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, int]:
    """(CPU seconds, peak RSS in KB) of one child run; it must succeed."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read() if proc.stdout else b""
    if proc.stdout:
        proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({code}): {out.decode()[-2000:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def bare_copy(tmp: Path) -> Path:
    """The provider package copied without any bytecode; returns the directory to put on PYTHONPATH."""
    top = tmp / "nopyc"
    shutil.copytree(ROOT / "provider", top / "provider", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copytree(ROOT / "schemas", top / "schemas")
    return top


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--spec", type=Path, default=SPEC)
    args = parser.parse_args()
    spec = args.spec.resolve()
    with tempfile.TemporaryDirectory(prefix="trainjobs-cold-") as tmp_name:
        tmp = Path(tmp_name)
        bare = bare_copy(tmp)
        none = str(tmp / "none")
        base = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
        base["NO_COLOR"] = "1"
        nopyc = {**base, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(bare)}
        cases = [
            ("floor: import yaml, jsonschema_rs", [PY, "-c", "import yaml, jsonschema_rs"], ROOT, base),
            ("validate ONE.yaml, with .pyc", [PY, "-m", "provider", "validate", str(spec), "--stacks", none],
             ROOT, base),
            ("trainjobs --help, with .pyc", [PY, "-m", "provider", "--help"], ROOT, base),
            ("validate ONE.yaml, without .pyc", [PY, "-m", "provider", "validate", str(spec), "--stacks", none],
             bare, nopyc),
            ("trainjobs --help, without .pyc", [PY, "-m", "provider", "--help"], bare, nopyc),
        ]
        for _, cmd, cwd, env in cases:  # warm the file cache; the installed tree writes no bytecode here
            measure(cmd, cwd, env)
        runs: dict[str, list[tuple[float, int]]] = {name: [] for name, *_ in cases}
        for _ in range(args.repeat):
            for name, cmd, cwd, env in cases:
                runs[name].append(measure(cmd, cwd, env))
        leftover = [p for p in bare.rglob("*.pyc")]
        assert not leftover, f"bytecode was written in the bare copy: {leftover[:3]}"
    med = statistics.median
    floor = med(c for c, _ in runs[cases[0][0]])
    print(f"one spec cold ({spec.name}); median CPU (user + system) of {args.repeat} runs each, "
          f"{os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"  {'command':36s} {'CPU s':>7s} {'x floor':>8s} {'peak RSS':>9s}")
    for name, *_ in cases:
        cpu = med(c for c, _ in runs[name])
        rss = max(r for _, r in runs[name]) / 1024
        print(f"  {name:36s} {cpu:7.3f} {cpu / floor:7.2f}x {rss:6.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
