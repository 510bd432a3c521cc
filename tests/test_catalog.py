"""The catalog keeps its sources, its as-of date, and its unverified flags."""

from __future__ import annotations

import json

from provider.catalog import CATALOG, DATA

from .conftest import ROOT


def test_catalog_records_sources_and_date() -> None:
    meta = json.loads((DATA / "catalog.json").read_text())
    assert meta["as_of"] == CATALOG.as_of()
    assert all(f.startswith("tools/catalog/") for f in meta["built_from"])
    for name in meta["files"]:
        data = json.loads((DATA / f"{name}.json").read_text())
        assert data.get("sources"), f"{name}.json has no sources"


def test_seed001_table_cells() -> None:
    # Seed 001: n1-standard-32 takes 4 or 8 V100; 2 or 4 T4; n1-highcpu-64 takes 8 K80 only.
    assert CATALOG.counts("ai_platform", "n1-standard-32")["NVIDIA_TESLA_V100"] == [4, 8]
    assert CATALOG.counts("ai_platform", "n1-standard-32")["NVIDIA_TESLA_T4"] == [2, 4]
    assert CATALOG.counts("ai_platform", "n1-highcpu-64")["NVIDIA_TESLA_K80"] == [8]
    assert "NVIDIA_TESLA_P100" not in CATALOG.counts("ai_platform", "n1-standard-64")
    assert CATALOG.counts("ai_platform", "a2-megagpu-16g") == {"NVIDIA_TESLA_A100": [16]}


def test_vertex_a2_a3_g2_and_tpu_types() -> None:
    assert CATALOG.counts("vertex", "a3-highgpu-8g") == {"NVIDIA_H100_80GB": [8]}
    assert CATALOG.counts("vertex", "g2-standard-24") == {"NVIDIA_L4": [2]}
    assert CATALOG.counts("vertex", "a2-ultragpu-4g") == {"NVIDIA_A100_80GB": [4]}
    assert CATALOG.counts("vertex", "cloud-tpu")["TPU_V3"][0] == 8
    assert CATALOG.tpu_topologies("ct5lp-hightpu-4t") and "2x2" in CATALOG.tpu_topologies("ct5lp-hightpu-4t")


def test_unverified_values_stay_flagged() -> None:
    counts = json.loads((DATA / "accelerator_counts.json").read_text())
    assert any(u["accelerator"] == "NVIDIA_TESLA_K80" for u in counts["unverified"] if "accelerator" in u)
    assert "memory_gb" in CATALOG.machine("n1-highcpu-16").unverified
    assert CATALOG.scale_tier("STANDARD_1").unverified
    assert CATALOG.legacy_machine("complex_model_m").unverified
    assert CATALOG.region("us-central1").vertex_training


def test_seeds_and_vertex_disagree_and_both_are_kept() -> None:
    k80 = CATALOG.accelerator("NVIDIA_TESLA_K80")
    assert k80 is not None and k80.ai_platform_training and not k80.vertex_training
    assert "NVIDIA_TESLA_T4" in k80.instead
    assert "NVIDIA_TESLA_K80" in CATALOG.counts("ai_platform", "n1-standard-8")
    assert "NVIDIA_TESLA_K80" not in CATALOG.counts("vertex", "n1-standard-8")


def test_machine_shapes_and_legacy_mapping() -> None:
    m = CATALOG.machine("n1-standard-32")
    assert (m.vcpus, m.memory_gb) == (32, 120)
    assert CATALOG.machine("a3-highgpu-8g").vcpus == 208
    legacy = CATALOG.legacy_machine("complex_model_m_gpu")
    assert legacy.machine_type == "n1-standard-16" and legacy.accelerator == ("NVIDIA_TESLA_K80", 4)
    basic_gpu = CATALOG.scale_tier("BASIC_GPU")
    assert basic_gpu.pools[0].accelerator == ("NVIDIA_TESLA_K80", 1)


def test_runtime_to_container_mapping_is_data_with_a_source() -> None:
    runtimes = CATALOG.runtimes()
    assert runtimes["runtime_to_container"]["map"]["2.4"] == {"cpu": "tf-cpu.2-4", "gpu": "tf-gpu.2-4", "python": "3.7"}
    assert runtimes["runtime_to_container"]["verified"] is False
    assert any("pre-built-containers" in s for s in runtimes["sources"])


def test_every_tpu_vertex_trains_on_has_a_machine_type() -> None:
    """Issue 11: the catalog lists no TPU accelerator that no machine type can train on."""
    tpus = [a for a in CATALOG.accelerators.values() if a.kind == "tpu"]
    implied = {CATALOG.implied_accelerator(m) for m in CATALOG.machine_types}
    cloud_tpu = set(CATALOG.counts("vertex", "cloud-tpu"))
    for acc in tpus:
        has_machine = acc.name in implied or acc.name in cloud_tpu
        assert has_machine == acc.vertex_training, acc.name
    v4 = CATALOG.accelerator("TPU_V4_POD")
    assert v4 is not None and not v4.vertex_training and v4.no_training_machine


def test_cloud_tpu_core_counts_come_from_the_curated_facts() -> None:
    curated = json.loads((ROOT / "tools" / "catalog" / "curated" / "tpu_training.json").read_text())
    assert CATALOG.counts("vertex", "cloud-tpu") == curated["cloud_tpu_counts"]
    v3 = curated["cloud_tpu_counts"]["TPU_V3"]
    # A v3 Pod is 1024 chips with two TensorCores each: slices are powers of two from v3-8 to v3-2048.
    assert v3 == [8] + [2 ** n for n in range(5, 12)] and max(v3) == 2 * 1024
    assert any("tpu/docs/v3" in s for s in curated["sources"])
