"""Where a cold start went on dataclasses, and what a record (provider.core.record) costs instead.

Two measurements, each in fresh interpreters (``time.process_time``, CPU of this process):

* ``--validate ARGS``: one ``trainjobs validate ARGS`` with ``dataclasses._process_class``
  wrapped, so each dataclass's creation is timed; prints how many were created and their cost
  beside the whole run after ``dataclasses`` was imported (none since provider's values are
  records: run it on an older tree to see what they cost).
* default: N frozen five-field classes made with ``@dataclass(frozen=True)``, as
  ``provider.core.record.Record`` subclasses (its ``__init__`` is compiled on a class's first
  instance) and, when msgspec is installed (it is not a dependency: ``pip install msgspec``), as
  ``msgspec.Struct`` (``frozen=True``); at N = 10, 40 and 160 (creating the classes, one instance
  of each, then 100,000 instances of one), side by side in one run, with each interpreter's peak
  RSS.

Usage: ``.venv/bin/python bench/cold_start_dataclasses.py`` or
``.venv/bin/python bench/cold_start_dataclasses.py --validate specs/vision/resnet_t4.yaml``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_VALIDATE = r"""
import dataclasses, runpy, sys, time
original = dataclasses._process_class
spent = [0.0, 0]
def timed(*args, **kwargs):
    start = time.process_time()
    try:
        return original(*args, **kwargs)
    finally:
        spent[0] += time.process_time() - start
        spent[1] += 1
dataclasses._process_class = timed
start = time.process_time()
sys.argv = ["trainjobs", "validate", *sys.argv[1:]]
try:
    runpy.run_module("provider", run_name="__main__")
except SystemExit:
    pass
finally:
    total = time.process_time() - start
    print(f"{spent[1]} dataclasses created in {spent[0] * 1000:.1f} ms of {total * 1000:.1f} ms "
          "(the run after importing dataclasses)", file=sys.stderr)
"""

_CLASSES = r"""
import resource, sys, time
kind, n = sys.argv[1], int(sys.argv[2])
start = time.process_time()
if kind == "dataclass":
    from dataclasses import dataclass
elif kind == "msgspec":
    import msgspec
else:
    from provider.core.record import Record
imported = time.process_time()
fields = {"a": int, "b": str, "c": "int | None", "d": tuple, "e": int}
classes = []
for i in range(n):
    namespace = {"__annotations__": dict(fields), "c": None, "d": (), "e": 0, "__doc__": "x"}
    if kind == "dataclass":
        classes.append(dataclass(frozen=True)(type(f"C{i}", (), namespace)))
    elif kind == "msgspec":
        classes.append(type(f"C{i}", (msgspec.Struct,), namespace, frozen=True))
    else:
        classes.append(type(f"C{i}", (Record,), namespace))
made = time.process_time()
for cls in classes:
    assert cls(1, "x", 3) == cls(1, "x", 3) and hash(cls(1, "x", 3)) == hash(cls(1, "x", 3))
once = time.process_time()
first = classes[0]
for _ in range(100_000):
    first(1, "x", 3)
done = time.process_time()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{kind:10s} N={n:4d}  import {1000 * (imported - start):6.1f} ms  classes {1000 * (made - imported):6.1f} ms"
      f"  first instances {1000 * (once - made):6.1f} ms  100k instances {1000 * (done - made):6.1f} ms  peak RSS {rss:.1f} MB")
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--validate", nargs=argparse.REMAINDER, help="arguments of trainjobs validate")
    args = parser.parse_args()
    if args.validate:
        return subprocess.call([sys.executable, "-c", _VALIDATE, *args.validate], cwd=ROOT)
    kinds = ["dataclass", "record"]
    if subprocess.call([sys.executable, "-c", "import msgspec"], stderr=subprocess.DEVNULL) == 0:
        kinds.append("msgspec")
    else:
        print("msgspec is not installed: dataclasses and records only (pip install msgspec)")
    for n in (10, 40, 160):
        for kind in kinds:
            subprocess.check_call([sys.executable, "-c", _CLASSES, kind, str(n)], cwd=ROOT)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
