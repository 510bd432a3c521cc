"""Benchmark: finding a notebook cell's IPython lines (``provider.document.python_cells``), against the cell's size.

    .venv/bin/python bench/cells_bench.py [--sizes 200,800,3200] [--repeat 3]

A cell of N lines, one in two an IPython line (``!echo i``, the other ``x = i``), in a block. For each N, side by
side in one run (CPU seconds, median of --repeat, ``time.process_time``):

* ``escape_rows``: the rows of the cell's IPython lines, as every notebook reader finds them;
* ``python_text``: the cell as Python with each IPython line as its placeholder (what the SDK readers parse);
* the floor: one ``tokenize`` pass over the same text, which any reading of logical lines needs;
* IPython's own ``TransformerManager().transform_cell`` (in a python that has IPython, timed there), the oracle of
  the readers: it reads the cell again after each line it transforms, as trainjobs used to.

With each, its ratio to the smallest N (how it grows) and to the floor; and the peak traced memory of
``python_text``. IPython's time is left out above --ipython-max lines: it grows with the square of N, and
IPython gives up on a cell of more than 499 IPython lines ("Input transformation still changing after 500
iterations"), so it is measured up to 800 lines (400 of them IPython's).
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import statistics
import subprocess
import sys
import time
import tokenize
import tracemalloc
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_IPYTHON = """import json, sys, time
from IPython.core.inputtransformer2 import TransformerManager
cell, repeat = json.loads(sys.stdin.read())
times = []
for _ in range(repeat):
    start = time.process_time()
    TransformerManager().transform_cell(cell)
    times.append(time.process_time() - start)
times.sort()
print(times[len(times) // 2])
"""


def _cell(n: int) -> str:
    return "if True:\n" + "".join(f"    !echo {i}\n" if i % 2 == 0 else f"    x = {i}\n" for i in range(n))


def _cpu(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return statistics.median(times)


def _floor(cell: str) -> None:
    for _ in tokenize.generate_tokens(io.StringIO(cell).readline):
        pass


def _ipython(cell: str, repeat: int) -> float | None:
    python = shutil.which("python3")
    if python is None or subprocess.run([python, "-c", "import IPython"], capture_output=True).returncode != 0:
        return None
    proc = subprocess.run([python, "-c", _IPYTHON], input=json.dumps([cell, repeat]), capture_output=True,
                          text=True, timeout=600)
    return float(proc.stdout) if proc.returncode == 0 else None


def main() -> None:
    from provider.document.python_cells import escape_rows, python_text

    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="200,800,3200")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ipython-max", type=int, default=800)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    for n in sizes:
        cell = _cell(n)
        assert len(escape_rows(cell)) == (n + 1) // 2
        tracemalloc.start()
        python_text(cell)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rows.append((n, _cpu(lambda c=cell: escape_rows(c), args.repeat),  # type: ignore[misc]
                     _cpu(lambda c=cell: python_text(c), args.repeat),  # type: ignore[misc]
                     _cpu(lambda c=cell: _floor(c), args.repeat),  # type: ignore[misc]
                     _ipython(cell, args.repeat) if n <= args.ipython_max else None, peak))
    print(f"IPython lines of a cell (CPU s, median of {args.repeat}; growth = ratio to N={sizes[0]})")
    print(f"{'N lines':>8} {'escape_rows':>12} {'growth':>7} {'python_text':>12} {'growth':>7} {'floor':>9} "
          f"{'rows/floor':>10} {'IPython':>9} {'growth':>7} {'peak KiB':>9}")
    first = rows[0]
    for n, esc, text, floor, ipy, peak in rows:
        ipy_s = f"{ipy:9.4f} {ipy / first[4]:7.1f}" if ipy is not None and first[4] else f"{'-':>9} {'-':>7}"
        print(f"{n:8d} {esc:12.4f} {esc / first[1]:7.1f} {text:12.4f} {text / first[2]:7.1f} {floor:9.4f} "
              f"{esc / floor:10.1f} {ipy_s} {peak / 1024:9.0f}")


if __name__ == "__main__":
    main()
