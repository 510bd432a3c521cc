"""The JSON Schema is generated from the catalog, committed, and strict on its own."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import jsonschema
import pytest

from provider.spec import schema
from provider.stack.schema import stack_schema

from .conftest import ROOT

VALID = {
    "apiVersion": "trainjobs/v1",
    "kind": "TrainingJob",
    "metadata": {"name": "ok_job"},
    "spec": {
        "region": "us-central1",
        "workerPools": {"chief": {"machineType": "n1-standard-8", "accelerator": {"type": "NVIDIA_TESLA_T4", "count": 2}}},
        "application": {"container": {"image": "gcr.io/p/i:1"}},
    },
}


def test_committed_schemas_match_the_generator() -> None:
    proc = subprocess.run([sys.executable, "tools/schema/generate.py", "--check"], cwd=ROOT, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr


def test_committed_catalog_matches_its_build() -> None:
    proc = subprocess.run([sys.executable, "tools/catalog/build.py", "--check"], cwd=ROOT, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr


def test_schema_is_draft_2020_12_and_valid_against_its_metaschema() -> None:
    spec = schema.spec_schema()
    assert spec["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(spec)
    jsonschema.Draft202012Validator.check_schema(stack_schema())


def _mutate(path: list, value: object) -> dict:
    doc = copy.deepcopy(VALID)
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


CHIEF = ["spec", "workerPools", "chief"]
CASES = {
    "name starts with a digit": _mutate(["metadata", "name"], "1job"),
    "name with a hyphen": _mutate(["metadata", "name"], "my-job"),
    "name of 129 characters": _mutate(["metadata", "name"], "a" * 129),
    "unknown region": _mutate(["spec", "region"], "mars-central1"),
    "unknown machine type": _mutate(CHIEF + ["machineType"], "n1-standard-3"),
    "A100 on an n1 machine": _mutate(CHIEF + ["accelerator"], {"type": "NVIDIA_TESLA_A100", "count": 1}),
    "accelerator on e2": _mutate(CHIEF, {"machineType": "e2-standard-8", "accelerator": {"type": "NVIDIA_TESLA_T4", "count": 1}}),
    "two V100 on n1-standard-32": _mutate(CHIEF, {"machineType": "n1-standard-32", "accelerator": {"type": "NVIDIA_TESLA_V100", "count": 2}}),
    "three T4 on n1-standard-8": _mutate(CHIEF + ["accelerator"], {"type": "NVIDIA_TESLA_T4", "count": 3}),
    "three T4 on n1-highmem-16": _mutate(CHIEF, {"machineType": "n1-highmem-16", "accelerator": {"type": "NVIDIA_TESLA_T4", "count": 3}}),
    "a2 without its A100": _mutate(CHIEF, {"machineType": "a2-highgpu-1g"}),
    "L4 count 2 on g2-standard-8": _mutate(CHIEF, {"machineType": "g2-standard-8", "accelerator": {"type": "NVIDIA_L4", "count": 2}}),
    "unknown key": _mutate(CHIEF + ["machinType"], "x"),
    "chief with 2 replicas": _mutate(CHIEF + ["replicas"], 2),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_schema_alone_rejects(case: str) -> None:
    """Both jsonschema-rs (what trainjobs runs) and python-jsonschema (what editors' tools run)."""
    import jsonschema_rs

    doc = CASES[case]
    assert not jsonschema_rs.Draft202012Validator(schema.spec_schema()).is_valid(doc)
    assert list(jsonschema.Draft202012Validator(schema.spec_schema()).iter_errors(doc)), case


def test_the_schema_accepts_the_valid_document() -> None:
    import jsonschema_rs

    assert jsonschema_rs.Draft202012Validator(schema.spec_schema()).is_valid(VALID)
    assert not list(jsonschema.Draft202012Validator(schema.spec_schema()).iter_errors(VALID))


def test_every_three_t4_is_rejected_by_the_schema() -> None:
    """Seed 001: 'you can attach two or four T4s, but not three', on every machine type."""
    import jsonschema_rs

    validator = jsonschema_rs.Draft202012Validator(schema.spec_schema())
    from provider.catalog import CATALOG

    for machine in CATALOG.vertex_machine_names():
        doc = _mutate(CHIEF, {"machineType": machine, "accelerator": {"type": "NVIDIA_TESLA_T4", "count": 3}})
        assert not validator.is_valid(doc), machine


def test_schema_enums_come_from_the_catalog() -> None:
    from provider.catalog import CATALOG

    spec = schema.spec_schema()
    assert set(spec["$defs"]["region"]["enum"]) == set(CATALOG.regions)
    machines = set(spec["$defs"]["nativePool"]["properties"]["machineType"]["enum"])
    assert set(CATALOG.vertex_machine_names()) <= machines


def test_trainjobs_schema_prints_the_committed_schema() -> None:
    from .conftest import run_cli

    proc = run_cli("schema")
    assert proc.returncode == 0
    assert json.loads(proc.stdout) == json.loads((ROOT / "schemas" / "trainingjob.schema.json").read_text())
    proc = run_cli("schema", "--stack")
    assert json.loads(proc.stdout)["title"] == "trainjobs stack config"
