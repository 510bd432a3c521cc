"""What keeps one spec's cold start short (issue 13), without checking any less.

* The JSON Schema a spec is checked against is narrowed to the body its ``spec`` takes: the
  same errors, at the same schema paths, as the whole committed schema gives, for every spec
  the repository and the tests hold.
* ``trainjobs validate`` imports only what the spec needs: no stack config for a spec in no
  stack, no AI Platform or price tables for a native spec, no Vertex reader for a non-Vertex one.

No timing here: each test pins a behaviour the speed rests on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from provider.document import read_mapping
from provider.spec.formats.registry import BODIES, body_of, detect
from provider.spec.formats.vertex import proto_forms
from provider.validation import schema_check
from provider.validation.schema_narrow import narrowed

from .conftest import ROOT, modules_after

_CORPUS_DIRS = ("specs", "tests/negative", "tests/hostile", "tests/samples/corpus", "tests/gcloud/configs", "examples")
CORPUS = sorted(p for d in _CORPUS_DIRS for p in (ROOT / d).rglob("*.y*ml") if p.suffix in (".yaml", ".yml"))
DEFINITIONS = frozenset(b.definition for b in BODIES)


def _errors(validator: Any, data: Any) -> list[tuple[Any, ...]]:
    return [(tuple(e.instance_path), tuple(e.schema_path), type(e.kind).__name__, e.message)
            for e in validator.iter_errors(data)]


def _documents() -> list[tuple[str, Any]]:
    """Every parsed spec of the corpus, as the validator hands it to the schema (after the proto forms)."""
    out = []
    for path in CORPUS:
        doc, _ = read_mapping(path.read_bytes(), str(path), "")
        if doc is not None:
            out.append((str(path.relative_to(ROOT)), proto_forms.read(doc.data).data))
    return out


# Beside the files: documents whose spec takes each branch in unusual ways.
EDGES: list[tuple[str, Any]] = [
    ("both vertex markers", {"spec": {"workerPoolSpecs": [], "worker_pool_specs": [{}]}}),
    ("ai platform and vertex", {"spec": {"trainingInput": {"scaleTier": "BASIC"}, "workerPoolSpecs": [1]}}),
    ("empty spec", {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "x"}, "spec": {}}),
    ("wrong types", {"metadata": [], "spec": {"workerPools": "chief", "application": 3}}),
    ("sdk tuning, wrong types", {"spec": {"custom_job": {"worker_pool_specs": [
        {"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
         "container_spec": {"image_uri": "gcr.io/p/t:1"}}]},
        "metric_spec": ["accuracy"], "parameter_spec": {"lr": {"DoubleParameterSpec": "0.1"}},
        "max_trial_count": 2}}),
]


def test_the_corpus_holds_every_body() -> None:
    documents = _documents()
    assert len(documents) > 100
    seen = {body.definition for _, data in documents if (body := body_of(data)) is not None}
    assert seen == DEFINITIONS


@pytest.mark.parametrize("definition", sorted(DEFINITIONS))
def test_a_narrowed_schema_finds_what_the_whole_schema_finds(definition: str) -> None:
    root = schema_check.schema_for("spec")
    whole = jsonschema_rs.Draft202012Validator(root)
    narrow_root = narrowed(root, definition, DEFINITIONS)
    assert narrow_root is not None
    narrow = jsonschema_rs.Draft202012Validator(narrow_root)
    checked = invalid = 0
    for name, data in _documents() + EDGES:
        body = body_of(data)
        if body is None or body.definition != definition:
            continue
        checked += 1
        expected = _errors(whole, data)
        invalid += bool(expected)
        assert _errors(narrow, data) == expected, name
        assert narrow.is_valid(data) == whole.is_valid(data), name
    assert checked and invalid  # each body has valid and refused documents in the corpus


def test_the_narrowed_schema_leaves_out_the_other_bodies() -> None:
    root = schema_check.schema_for("spec")
    narrow_root = narrowed(root, "nativeSpec", DEFINITIONS)
    assert narrow_root is not None
    defs = narrow_root["$defs"]
    assert defs["nativeSpec"] == root["$defs"]["nativeSpec"] and "nativePool" in defs
    assert {name for name in DEFINITIONS - {"nativeSpec"}} <= {n for n, d in defs.items() if d is True}
    assert not {"vertexPool", "vertexPoolSnake"} & set(defs)  # only the other bodies referred to them
    assert {k: v for k, v in narrow_root.items() if k != "$defs"} == {k: v for k, v in root.items() if k != "$defs"}


def test_a_reference_outside_the_definitions_is_not_narrowed() -> None:
    root = {"properties": {"a": {"$ref": "#/properties/b"}, "b": {"$ref": "#/$defs/x"}}, "$defs": {"x": {}}}
    assert narrowed(root, "x", frozenset({"x"})) is None
    assert narrowed({"$ref": "#/$defs/missing", "$defs": {}}, "x", frozenset({"x"})) is None


def test_the_body_is_the_schemas_choice() -> None:
    assert body_of({"spec": {"trainingInput": {}, "workerPoolSpecs": []}}).definition == "aiPlatformSpec"  # type: ignore[union-attr]
    assert body_of({"spec": {"worker_pool_specs": [], "workerPoolSpecs": []}}).definition == "vertexSpec"  # type: ignore[union-attr]
    assert body_of({"spec": {"workerPools": {}}}).definition == "nativeSpec"  # type: ignore[union-attr]
    for data in ({"spec": ["trainingInput"]}, {"spec": None}, [], "spec"):
        assert body_of(data) is None  # not a mapping: every branch's "if" holds, the whole schema checks it
    assert detect({"spec": {"worker_pool_specs": 1}}) is detect({"spec": {"workerPoolSpecs": 1}})
    assert body_of({"spec": {"worker_pool_specs": 1}}).definition == "vertexSpecSnake"  # type: ignore[union-attr]


def test_a_spec_that_is_not_a_mapping_is_checked_by_the_whole_schema() -> None:
    data = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "x"}, "spec": ["a"]}
    whole = jsonschema_rs.Draft202012Validator(schema_check.schema_for("spec"))
    found = [(i.path, i.message) for i in schema_check.check(data, "spec")]
    assert found and len(found) == len(_errors(whole, data))


NATIVE = """\
apiVersion: trainjobs/v1
kind: TrainingJob
metadata: {name: cold_native}
spec:
  region: us-central1
  workerPools:
    chief: {machineType: n1-standard-4}
  application:
    container: {imageUri: us-docker.pkg.dev/my-project/trainers/cold:1}
"""


@pytest.mark.slow
def test_a_spec_in_no_stack_is_checked_without_the_stack_config(tmp_path: Path) -> None:
    spec = tmp_path / "one.yaml"
    spec.write_text(NATIVE)
    modules = modules_after("validate", str(spec), "--stacks", str(tmp_path / "none"))
    assert "provider.validation.validator" in modules
    assert not {"provider.stack.config", "provider.stack.persistent", "provider.stack.settings"} & modules
    # Only an AI Platform spec needs the legacy tables, only a plan the prices, only a Vertex body its reader.
    assert not {"provider.catalog.legacy", "provider.catalog.pricing",
                "provider.spec.formats.vertex.proto_reader"} & modules
    # A common document is read by the C path: neither the Python reader nor PyYAML is loaded.
    assert "provider.document._reader" in modules
    assert not {"yaml", "provider.document.yaml_loader"} & modules


@pytest.mark.slow
def test_a_spec_with_a_problem_is_read_by_the_python_reader(tmp_path: Path) -> None:
    spec = tmp_path / "one.yaml"
    spec.write_text(NATIVE.replace("metadata: {name: cold_native}", "metadata: {name: cold_native, name: twice}"))
    modules = modules_after("validate", str(spec), "--stacks", str(tmp_path / "none"))
    assert {"yaml", "provider.document.yaml_loader"} <= modules


@pytest.mark.slow
def test_the_tables_are_imported_for_the_specs_that_need_them(tmp_path: Path) -> None:
    none = str(tmp_path / "none")
    legacy = modules_after("validate", str(ROOT / "specs/seeds/custom_cpu_cluster.yaml"), "--stacks", none)
    assert "provider.catalog.legacy" in legacy
    vertex = modules_after("validate", str(ROOT / "specs/seeds/cassava_multiworker_sdk.yaml"), "--stacks", none)
    assert "provider.spec.formats.vertex.proto_reader" in vertex
    with_stacks = modules_after("validate", str(ROOT / "specs/vision/resnet_t4.yaml"))
    assert "provider.stack.config" in with_stacks  # stack files to check: the stack config is read


BUFFERED = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # stdout a pipe: block-buffered


def _bad_specs(directory: Path, count: int) -> None:
    for i in range(count):
        (directory / f"bad_{i:04d}.yaml").write_text(NATIVE.replace("n1-standard-4", f"n1-standard-{1000 + i}"))


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["-m", "provider"], ["-c", "from provider.cli import entry; entry()"]])
def test_a_core_command_ends_at_once_with_all_its_output(tmp_path: Path, argv: list[str]) -> None:
    """The program ends without the interpreter's teardown after a core command: nothing of what it
    printed through a pipe may be lost, far more than a pipe's buffer, and its exit code stays."""
    _bad_specs(tmp_path, 400)  # each wrong twice: its machine type, and imageUri (native says image)
    proc = subprocess.run([sys.executable, *argv, "validate", str(tmp_path), "--stacks", str(tmp_path / "none"),
                           "--format", "json"], capture_output=True, timeout=300, env=BUFFERED)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert len(proc.stdout) > 200_000  # several times a pipe's 64 KiB
    report = json.loads(proc.stdout)  # cut short, it would not parse
    files = {p["file"] for p in report["problems"]}
    assert len(files) == 400 and all("n1-standard-1" in p["message"] for p in report["problems"]
                                     if p["path"] == "spec.workerPools.chief.machineType")


@pytest.mark.slow
def test_a_command_that_is_not_core_exits_the_usual_way(tmp_path: Path) -> None:
    """Other commands keep their atexit handlers: one registered by the command still runs."""
    code = ("import atexit, sys\n"
            "atexit.register(lambda: print('ATEXIT RAN', file=sys.stderr))\n"
            "sys.argv = ['trainjobs', 'completion', 'bash']\n"
            "from provider.cli import entry\n"
            "entry()\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 0 and "complete" in proc.stdout and "ATEXIT RAN" in proc.stderr, proc.stderr[-2000:]
    code = code.replace("'completion', 'bash'", f"'validate', {str(tmp_path / 'one.yaml')!r}")
    (tmp_path / "one.yaml").write_text(NATIVE.replace("imageUri", "image"))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env=BUFFERED)
    assert proc.returncode == 0 and "1 spec checked" in proc.stdout
    assert "ATEXIT RAN" not in proc.stderr  # a core command ends at once


def test_the_committed_bodies_are_the_whole_schema_narrowed() -> None:
    """schemas/bodies/ holds what narrowing the committed whole schema gives (tools/schema/generate.py)."""
    whole = schema_check.schema_for("spec")
    for definition in DEFINITIONS:
        assert schema_check.body_schema(definition) == narrowed(whole, definition, DEFINITIONS), definition


def test_a_valid_spec_is_checked_without_reading_the_whole_schema() -> None:
    """A spec of one body is checked by that body's committed schema alone: the whole schema (five
    times its size) is read only where a message needs its descriptions."""
    data = proto_forms.read(read_mapping(NATIVE.replace("imageUri", "image").encode(), "one.yaml", "")[0].data).data
    schema_check._validator.cache_clear()
    schema_check.schema_for.cache_clear()
    try:
        assert list(schema_check.check(data, "spec")) == []
        assert schema_check.schema_for.cache_info().misses == 0
        assert list(schema_check.check({**data, "spec": {**data["spec"], "region": "mars"}}, "spec"))
        assert schema_check.schema_for.cache_info().misses == 1  # the message's descriptions
    finally:
        schema_check._validator.cache_clear()
        schema_check.schema_for.cache_clear()
