"""Every example spec and stack in the repository is valid, through the real command."""

from __future__ import annotations

import json

from .conftest import ROOT, no_traceback, run_cli

SPECS = sorted((ROOT / "specs").rglob("*.yaml"))


def test_validate_specs_passes_for_every_example() -> None:
    proc = run_cli("validate")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stdout
    stacks = len(list((ROOT / "stacks").glob("Pulumi.*.yaml")))
    # Specs and stack files are counted apart (issue 11).
    assert (f"{len(SPECS)} specs checked: {len(SPECS)} valid, 0 invalid; "
            f"{stacks} stack files checked: {stacks} valid, 0 invalid") in proc.stdout


def test_every_scenario_of_the_seeds_has_an_example() -> None:
    proc = run_cli("validate", "--format", "json")
    assert proc.returncode == 0
    from provider.validation.validator import validate_paths

    jobs = {j.name: j for j in validate_paths([str(ROOT / "specs")]).jobs}
    formats = {j.source_format.value for j in jobs.values()}
    assert formats == {"native", "ai-platform", "vertex"}
    from provider.catalog import CATALOG  # noqa: F401

    tiers = {j.name for j in jobs.values() if j.source_format.value == "ai-platform"}
    assert {"seed003_basic_tier", "seed001_basic_gpu_tier", "seed001_gpu_compute_engine_t4",
            "seed001_gpu_legacy_machine_types", "seed003_custom_cpu_cluster"} <= tiers
    kinds = {type(j.application).__name__ for j in jobs.values()}
    assert kinds == {"PythonPackage", "Container"}
    assert any(j.hyperparameters and type(j.application).__name__ == "Container" for j in jobs.values())
    assert any(p.machine_type.startswith(("cloud-tpu", "ct5lp")) for j in jobs.values() for p in j.pools)
    assert any(j.name.startswith("local_") for j in jobs.values()), "a local set runs on this machine"


def test_json_output_is_machine_readable() -> None:
    proc = run_cli("validate", "specs/seeds", "--format", "json")
    data = json.loads(proc.stdout)
    assert data["ok"] is True and data["invalid"] == 0 and data["checked"] >= 8
    assert {p["severity"] for p in data["problems"]} == {"warning"}
