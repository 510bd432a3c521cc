"""A file holding only the worker pool specs (``json.dump(worker_pool_specs, f)``) converts as their CustomJobSpec.

The oracle is the installed SDK: ``aiplatform.CustomJob(worker_pool_specs=THE_LIST)`` is built (never
submitted) from the very list in the file, and its ``job_spec.worker_pool_specs`` must equal the
``workerPoolSpecs`` of ``trainjobs convert FILE --format request``, field by field, through the
aiplatform_v1 message types.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import no_traceback, run_cli

pytest.importorskip("google.cloud.aiplatform")

IMAGE = "us-docker.pkg.dev/acme/train/trainer:1"
# As SDK users write them: proto names, a GPU pool, a skipped pool ({}), and an evaluator.
CONTAINER: dict[str, Any] = {"image_uri": IMAGE, "args": ["--epochs", "3", "--lr", "0.001"],
                             "env": [{"name": "MODE", "value": "full"}]}
SNAKE: list[dict[str, Any]] = [
    {"machine_spec": {"machine_type": "n1-standard-8", "accelerator_type": "NVIDIA_TESLA_T4", "accelerator_count": 1},
     "replica_count": 1, "disk_spec": {"boot_disk_type": "pd-ssd", "boot_disk_size_gb": 200},
     "container_spec": CONTAINER},
    {"machine_spec": {"machine_type": "n1-standard-8"}, "replica_count": 2, "container_spec": CONTAINER},
    {},
    {"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1, "container_spec": CONTAINER},
]
# As a --config or REST body writes them: JSON names, int64 as strings.
CAMEL: list[dict[str, Any]] = [
    {"machineSpec": {"machineType": "a2-highgpu-1g", "acceleratorType": "NVIDIA_TESLA_A100", "acceleratorCount": 1},
     "replicaCount": "1",
     "pythonPackageSpec": {"executorImageUri": "us-docker.pkg.dev/acme/train/base:1",
                           "packageUris": ["gs://acme/trainer-0.1.tar.gz"], "pythonModule": "trainer.task"}},
]


def _google_pools(pools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pools as Google reads them: the SDK's CustomJob for proto names (the names it takes), protobuf's
    JSON reader (the REST API's, and gcloud's --config) for JSON names."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform, aiplatform_v1

    if all("machineSpec" in p for p in pools if p):
        return [json.loads(json.dumps(p)) for p in pools]  # what the REST API reads is the file itself
    job = aiplatform.CustomJob(display_name="x", worker_pool_specs=pools, project="p", location="us-central1",
                               staging_bucket="gs://acme-staging", credentials=AnonymousCredentials())
    assert isinstance(job.job_spec, aiplatform_v1.CustomJobSpec)
    spec = type(job.job_spec).to_json(job.job_spec, use_integers_for_enums=False,
                                      always_print_fields_with_no_presence=False)
    found: list[dict[str, Any]] = json.loads(spec)["workerPoolSpecs"]
    return found


def _ours(tmp_path: Path, name: str, text: str) -> tuple[list[dict[str, Any]], str]:
    path = tmp_path / name
    path.write_text(text)
    proc = run_cli("convert", str(path), "--region", "us-central1", "--format", "request")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    pools: list[dict[str, Any]] = json.loads(proc.stdout)["body"]["jobSpec"]["workerPoolSpecs"]
    return pools, proc.stderr


def _as_message(pools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from google.cloud import aiplatform_v1

    return [json.loads(aiplatform_v1.WorkerPoolSpec.to_json(aiplatform_v1.WorkerPoolSpec.from_json(json.dumps(p)),
                                                            use_integers_for_enums=False,
                                                            always_print_fields_with_no_presence=False))
            for p in pools]


@pytest.mark.parametrize("pools", [SNAKE, CAMEL], ids=["proto-names", "json-names"])
@pytest.mark.parametrize("suffix", ["json", "yaml"])
def test_a_list_of_worker_pool_specs_converts_as_the_sdk_builds_its_job(tmp_path: Path, pools: list[dict[str, Any]],
                                                                        suffix: str) -> None:
    text = json.dumps(pools) if suffix == "json" else yaml.safe_dump(pools, sort_keys=False)
    ours, said = _ours(tmp_path, f"pools.{suffix}", text)
    assert _as_message(ours) == _as_message(_google_pools(pools))
    assert f"a list of {len(pools)} worker pool spec(s)" in said, said


def test_a_list_that_is_not_worker_pools_stays_refused(tmp_path: Path) -> None:
    for text in ("[1, 2]", "[]", "[{}]", '[{"name": "x"}]', json.dumps([SNAKE[0], {"name": "x"}])):
        path = tmp_path / "list.json"
        path.write_text(text)
        proc = run_cli("convert", str(path), "--region", "us-central1")
        no_traceback(proc)
        assert proc.returncode == 1, (text, proc.stdout)
        assert "the top level of the file is a list, not a mapping" in proc.stderr, proc.stderr


def test_a_problem_in_a_pool_is_reported_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "pools.yaml"
    path.write_text("- machineSpec:\n    machineType: n1-standard-4\n    acceleratorType: NVIDIA_TESLA_T4\n"
                    "    acceleratorCount: 3\n  replicaCount: 1\n  containerSpec: {imageUri: gcr.io/p/i:1}\n")
    proc = run_cli("convert", str(path), "--region", "us-central1")
    no_traceback(proc)
    assert proc.returncode == 1, proc.stdout
    assert "pools.yaml:4:" in proc.stderr and "acceleratorCount" in proc.stderr, proc.stderr

