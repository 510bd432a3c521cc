"""Where ``trainjobs validate`` spends its CPU per spec: each stage of the check timed alone.

    .venv/bin/python bench/validate_stages.py [--sizes 500,2000,8000] [--repeat 3]

In one process, over the specs of bench/validate_bench.py: the floor (libyaml ``yaml.load`` with
``CSafeLoader`` and jsonschema-rs against the committed schema), then each stage of trainjobs'
check on its own (reading and naming the file, the YAML reader as a run reads, then its C path
and its Python reader alone, the proto forms, the schema check, the format converter, the rules,
the whole check of one document, and ``validate_paths`` lean as ``trainjobs validate`` runs it). Each figure is the best of ``--repeat`` runs of
CPU time per spec (``time.process_time``), so the sizes show whether a stage's cost per spec
stays the same as N grows; the last column is the traced peak memory of the ``validate_paths``
run (``tracemalloc``: Python objects only).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import validate_bench  # the spec generator
import yaml

ROOT = Path(__file__).resolve().parents[1]


def _best(fn: Callable[[], Any], repeat: int, n: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return 1000 * best / n


def _each(fn: Callable[[Any], Any], items: list[Any]) -> Callable[[], None]:
    """Run ``fn`` on each item, dropping each result at once (as a run over many files does)."""

    def run() -> None:
        for item in items:
            fn(item)

    return run


def stages(directory: Path, repeat: int) -> tuple[dict[str, float], float]:
    import jsonschema_rs

    from provider.document import native, read_mapping
    from provider.document.files import SpecFile, read_file, real_path
    from provider.document.text import decode
    from provider.document.yaml_loader import read_events
    from provider.spec.formats.vertex import proto_forms
    from provider.spec.parse import to_model
    from provider.validation import schema_check
    from provider.validation.rules import Context, run_rules
    from provider.validation.validator import check_document, validate_paths

    files = sorted(directory.glob("*.yaml"))
    n = len(files)
    with open(ROOT / "schemas" / "trainingjob.schema.json", "rb") as f:
        floor_validator = jsonschema_rs.Draft202012Validator(json.load(f))
    raws = [read_file(p, str(p))[0] or b"" for p in files]
    docs = [read_mapping(r, "f", "x")[0] for r in raws]
    texts = [decode(r, "f")[0] or "" for r in raws]
    datas = [proto_forms.read(d.data).data for d in docs if d is not None]
    jobs = [to_model(d) for d in datas]
    ctx = Context()
    cwd = real_path(Path.cwd())
    real_dirs: dict[str, str] = {}  # as validate_paths keeps it: a directory resolved once per run

    def floor() -> None:
        for p in files:
            floor_validator.is_valid(yaml.load(p.read_bytes(), Loader=yaml.CSafeLoader))

    loaded = [d for d in docs if d is not None]
    timed = {
        "floor (yaml.load + is_valid)": floor,
        "read and name the file": _each(lambda p: read_file(SpecFile.of(p, cwd, real_dirs).given, "f"), files),
        "YAML reader": _each(lambda r: read_mapping(r, "f", "x"), raws),
        "  its C path alone": _each(native.read, texts),
        "  the Python reader alone": _each(lambda t: read_events(t, "f"), texts),
        "proto forms": _each(lambda d: proto_forms.read(d.data), loaded),
        "schema check": _each(lambda d: list(schema_check.check(d, "spec")), datas),
        "format converter": _each(to_model, datas),
        "rules": _each(lambda j: list(run_rules(j, ctx)), jobs),
        "check of a document": _each(lambda d: check_document(d.data, "f", ctx, d), loaded),
        "validate_paths (lean)": lambda: validate_paths([str(directory)], keep_job=lambda _p: False, lean=True),
    }
    out = {name: _best(fn, repeat, n) for name, fn in timed.items()}
    tracemalloc.start()
    validate_paths([str(directory)], keep_job=lambda _p: False, lean=True)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, peak / 2**20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="500,2000,8000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows: list[tuple[int, dict[str, float], float]] = []
    with tempfile.TemporaryDirectory(prefix="trainjobs-stages-") as tmp:
        for n in sizes:
            directory = Path(tmp) / f"specs{n}"
            directory.mkdir()
            validate_bench.generate(directory, n)
            found, peak = stages(directory, args.repeat)
            rows.append((n, found, peak))
    print(f"CPU ms per spec, best of {args.repeat} (time.process_time, one process); Python {sys.version.split()[0]}")
    print(f"  {'stage':32s}" + "".join(f"  {'N=' + str(n):>9s}" for n, _, _ in rows))
    for name in rows[0][1]:
        print(f"  {name:32s}" + "".join(f"  {found[name]:9.3f}" for _, found, _ in rows))
    print(f"  {'validate_paths peak (tracemalloc)':32s}" + "".join(f"  {peak:6.1f} MB" for _, _, peak in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
