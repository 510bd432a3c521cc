"""Every example spec translates to the exact Vertex AI request in tests/golden/requests/.

The body goes through the real aiplatform_v1 message types (from_json rejects unknown fields),
and what they write back must equal the golden file. A staged package's content digest and a
built image's pushed reference are the only placeholders (${DIGEST}, ${IMAGE}).
Regenerate with: python -m tests.requests_util (then review the diff).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from provider.catalog import CATALOG

from .requests_util import GOLDEN, example_specs, golden_text, request_for

SPECS = example_specs()


@pytest.mark.parametrize("path", SPECS, ids=[f"{p.parent.name}/{p.stem}" for p in SPECS])
def test_exact_request(path: Path) -> None:
    kind, body, digest = request_for(path)
    golden = GOLDEN / f"{path.parent.name}__{path.stem}.json"
    assert golden.exists(), f"no golden request for {path}; run python -m tests.requests_util"
    assert golden_text(kind, body, digest) == golden.read_text(encoding="utf-8")


def test_every_golden_has_a_spec() -> None:
    names = {f"{p.parent.name}__{p.stem}.json" for p in SPECS}
    assert {p.name for p in GOLDEN.glob("*.json")} == names


def test_seed001_request_shape() -> None:
    """Spot-check the translation rules on seed 001's first example."""
    kind, body, _ = request_for(Path(__file__).resolve().parents[1] / "specs/seeds/gpu_compute_engine_t4.yaml")
    pools = body["jobSpec"]["workerPoolSpecs"]
    assert kind == "CustomJob" and len(pools) == 3
    assert [p["replicaCount"] for p in pools] == ["1", "9", "3"]  # int64 travels as a string
    assert pools[0]["machineSpec"] == {"machineType": "n1-highcpu-16", "acceleratorType": "NVIDIA_TESLA_T4",
                                       "acceleratorCount": 4}
    # No --runtime-version (as in the seed): GPU pools run the GPU build of the default container,
    # CPU pools the CPU build (issue 11).
    default = CATALOG.runtimes()["default_without_runtime"]
    assert pools[0]["pythonPackageSpec"]["executorImageUri"].endswith(f"/{default['gpu']}:latest")
    assert pools[2]["pythonPackageSpec"]["executorImageUri"].endswith(f"/{default['cpu']}:latest")
    # --job-dir is appended after the user args, as two items (like gcloud's local train).
    assert pools[0]["pythonPackageSpec"]["args"][-2:] == ["--job-dir", body["jobSpec"]["baseOutputDirectory"]["outputUriPrefix"]]


def test_parameter_server_without_workers_keeps_its_position() -> None:
    from provider.submission.request import build_request
    from provider.validation.validator import validate_data

    doc = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "ps_only"},
           "spec": {"region": "us-central1",
                    "workerPools": {"chief": {"machineType": "n1-standard-4"},
                                    "parameterServers": {"machineType": "n1-highmem-8", "replicas": 2}},
                    "application": {"container": {"image": "gcr.io/p/i:1"}}}}
    job = validate_data(doc).job
    assert job is not None
    body = build_request(job, "p").body
    assert body["jobSpec"]["workerPoolSpecs"][1] == {}
    assert body["jobSpec"]["workerPoolSpecs"][2]["replicaCount"] == "2"
    json.dumps(body)
