"""Each input format has one home, registered in one table that detection and the schema share.

``provider/spec/formats/registry.py`` lists the formats; ``spec/parse.py`` detects a document's
format from it and ``provider/spec/schema.py`` builds the schema's choice of body from it. These
tests hold the two to the same answer for every combination of markers, keep the spec layer
free of the schema generator, and keep the spec layer's modules small and simple.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from provider.spec import schema
from provider.spec.formats.base import CountTable
from provider.spec.formats.registry import FORMATS, MARKERS, detect, format_of
from provider.spec.model import SourceFormat
from provider.spec.parse import detect_format

from .conftest import ROOT


def _schema_choice(spec: dict[str, Any]) -> str:
    """The ``$defs`` entry the generated schema's if/then/else chain picks for ``spec``."""
    node = schema.spec_schema()["$defs"]["spec"]
    while "if" in node:
        node = node["then"] if all(k in spec for k in node["if"]["required"]) else node["else"]
    ref: str = node["$ref"]
    return ref.removeprefix("#/$defs/")


def test_one_fallback_and_distinct_markers() -> None:
    assert [f.source for f in FORMATS if f.is_fallback] == [SourceFormat.NATIVE]
    assert len(MARKERS) == len(set(MARKERS)) == 6  # studySpec has two snake_case twins: study_spec, metric_spec
    assert {f.source for f in FORMATS} == set(SourceFormat)
    assert all(format_of(f.source) is f for f in FORMATS)


def test_ai_platform_jobs_are_held_to_the_ai_platform_counts() -> None:
    tables = {f.source: f.count_table for f in FORMATS}
    assert tables == {SourceFormat.NATIVE: CountTable.SEED, SourceFormat.AI_PLATFORM: CountTable.AI_PLATFORM,
                      SourceFormat.VERTEX: CountTable.SEED, SourceFormat.VERTEX_TUNING: CountTable.SEED}


@pytest.mark.parametrize("keys", [c for n in range(len(MARKERS) + 1) for c in itertools.combinations(MARKERS, n)])
def test_detection_and_the_schema_choose_the_same_body(keys: tuple[str, ...]) -> None:
    spec = {key: {} for key in keys} | {"region": "us-central1"}
    fmt = detect({"spec": spec})
    assert _schema_choice(spec) in [b.definition for b in fmt.bodies]
    assert detect_format({"spec": spec}) is fmt.source


@pytest.mark.parametrize(("spec", "expected"), [
    ({"trainingInput": {}}, SourceFormat.AI_PLATFORM),
    ({"workerPoolSpecs": []}, SourceFormat.VERTEX),
    ({"worker_pool_specs": []}, SourceFormat.VERTEX),
    ({"trainingInput": {}, "workerPoolSpecs": []}, SourceFormat.AI_PLATFORM),
    ({"workerPools": {}}, SourceFormat.NATIVE),
    ({"studySpec": {}, "trialJobSpec": {}}, SourceFormat.VERTEX_TUNING),
    ("not a mapping", SourceFormat.NATIVE),
])
def test_detection(spec: object, expected: SourceFormat) -> None:
    assert detect_format({"spec": spec}) is expected
    assert detect_format(["not", "a", "document"]) is SourceFormat.NATIVE


def test_every_format_brings_the_definitions_it_names() -> None:
    defs = schema.spec_schema()["$defs"]
    for fmt in FORMATS:
        fragment = fmt.schema()
        for b in fmt.bodies:
            assert b.definition in fragment, (fmt.source, b.definition)
        for name, value in fragment.items():
            assert defs[name] == value


def test_the_spec_layer_does_not_import_the_schema_generator() -> None:
    """Reading and converting specs never loads the generator (provider/spec/schema.py) or a fragment."""
    code = (
        "import pkgutil, importlib, sys\n"
        "import provider.spec\n"
        "for m in pkgutil.walk_packages(provider.spec.__path__, 'provider.spec.'):\n"
        "    if 'schema' not in m.name.rsplit('.', 1)[-1]:\n"
        "        importlib.import_module(m.name)\n"
        "print('SCHEMA', 'provider.spec.schema' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "SCHEMA False" in proc.stdout


def _spec_layer_modules() -> list[Path]:
    return sorted((ROOT / "provider" / "spec").rglob("*.py")) + [ROOT / "provider" / "stack" / "schema.py"]


def test_spec_and_schema_modules_stay_under_400_lines() -> None:
    long = {str(p.relative_to(ROOT)): n for p in _spec_layer_modules()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 400}
    assert not long


def test_no_function_of_the_spec_layer_or_its_rules_reaches_complexity_20() -> None:
    from radon.complexity import cc_visit

    files = _spec_layer_modules() + sorted((ROOT / "provider" / "validation" / "rules").glob("*.py"))
    complex_ = {f"{p.relative_to(ROOT)}:{block.fullname}": block.complexity
                for p in files for block in cc_visit(p.read_text(encoding="utf-8")) if block.complexity >= 20}
    assert not complex_
