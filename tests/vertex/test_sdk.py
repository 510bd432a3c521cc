"""The high-level Vertex AI SDK (``aiplatform.CustomJob``) pointed at the emulator, as users would.

Seed 004's worker_pool_specs are submitted verbatim. They run containers, which cannot run here
(no container engine), so the job must end FAILED with that reason, through the SDK; a
python-package job runs to success.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from provider.backends.local.preflight import container_engine
from provider.emulator.server import Emulator
from provider.packaging.gcs import GcsStager, gcs_client
from provider.packaging.stage import stage
from tests.vertex.conftest import LOCATION, PROBE, PROJECT, ROOT

pytestmark = pytest.mark.slow

SEED_004 = ROOT / "tests" / "fixtures" / "seed_configs" / "seed004_worker_pool_specs.py.txt"
EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/pytorch-xla.2-4.py310:latest"


def seed_004_worker_pool_specs() -> list[dict[str, Any]]:
    """The ``worker_pool_specs=[...]`` of seed 004, read from the verbatim copy."""
    tree = ast.parse(SEED_004.read_text())
    assign = next(n for n in tree.body if isinstance(n, ast.Assign))
    assert isinstance(assign.targets[0], ast.Name) and assign.targets[0].id == "worker_pool_specs"
    value: list[dict[str, Any]] = ast.literal_eval(assign.value)
    return value


@pytest.fixture
def sdk(emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform
    from google.cloud.aiplatform import initializer, jobs

    # CustomJob.run() polls every 5 s; the emulator's jobs take about one, so poll faster.
    monkeypatch.setattr(jobs, "_JOB_WAIT_TIME", 0.2)
    aiplatform.init(project=PROJECT, location=LOCATION, api_endpoint=emulator.endpoint, api_transport="rest",
                    credentials=AnonymousCredentials())
    yield aiplatform
    initializer.global_config.__init__()  # type: ignore[misc]  # forget the endpoint for later tests


def test_seed_004_worker_pool_specs_verbatim(sdk: Any, emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    from google.cloud import aiplatform_v1

    if container_engine()[0] is not None:
        pytest.skip("a container engine answers here: this test shows the job failing without one")
    # The in-process emulator's local backend runs GPU specs on the CPU, so the refusal this test
    # shows is the container engine's (the GPU check, cheaper, would otherwise come first).
    monkeypatch.setenv("TRAINJOBS_LOCAL_GPU_MODE", "cpu")
    from google.api_core.exceptions import BadRequest

    verbatim = seed_004_worker_pool_specs()
    # As written, seed 004's image is a placeholder (gcr.io/{YOUR-PROJECT-ID}/...): refused at create.
    with pytest.raises(BadRequest, match="looks like an unfilled placeholder"):
        sdk.CustomJob(display_name="multiworker-cassava-sdk", worker_pool_specs=verbatim,
                      staging_bucket="gs://seeds-bucket").run()
    specs = json.loads(json.dumps(verbatim).replace("{YOUR-PROJECT-ID}", "seeds-project"))  # filled in, as users do
    job = sdk.CustomJob(display_name="multiworker-cassava-sdk", worker_pool_specs=specs,
                        staging_bucket="gs://seeds-bucket")
    with pytest.raises(RuntimeError, match="Job failed with") as failure:
        job.run()
    assert "no container engine is available here" in str(failure.value)

    # The SDK sees the failure, and why: FAILED_PRECONDITION (9), as a job Vertex AI could not start.
    assert job.state.name == "JOB_STATE_FAILED"
    assert job.error.code == 9
    assert "no container engine is available here" in job.error.message

    # The emulator received exactly seed 004's specs (what the SDK sends for them).
    expected = json.loads(aiplatform_v1.CustomJobSpec.to_json(
        aiplatform_v1.CustomJobSpec(worker_pool_specs=specs), use_integers_for_enums=False,
        always_print_fields_with_no_presence=False))["workerPoolSpecs"]
    record = emulator.store.job(job.name)
    assert record is not None
    assert record["body"]["jobSpec"]["workerPoolSpecs"] == expected
    assert expected[0] == {"replicaCount": "1", "containerSpec": {"imageUri": "gcr.io/seeds-project/multiworker:cassava"},
                           "machineSpec": {"machineType": "n1-standard-8", "acceleratorType": "NVIDIA_TESLA_V100",
                                           "acceleratorCount": 1}}
    assert record["body"]["jobSpec"]["baseOutputDirectory"]["outputUriPrefix"].startswith(
        "gs://seeds-bucket/aiplatform-custom-job-")
    assert sdk.CustomJob.get(job.resource_name).state.name == "JOB_STATE_FAILED"


def test_a_python_package_custom_job_runs_to_success(sdk: Any, emulator: Emulator, tmp_path: Path) -> None:
    uri = "gs://test-bucket/sdk/probe-0.1.0.tar.gz"
    stage(PROBE, uri, GcsStager(gcs_client(PROJECT, emulator.endpoint)))
    dump = tmp_path / "dump"
    specs = [{
        "replica_count": 1,
        "machine_spec": {"machine_type": "n1-standard-4"},
        "python_package_spec": {"executor_image_uri": EXECUTOR, "package_uris": [uri], "python_module": "probe.task",
                                "args": ["--dump", str(dump)]},
    }]
    job = sdk.CustomJob(display_name="sdk-probe", worker_pool_specs=specs, staging_bucket="gs://test-bucket",
                        labels={"team": "sdk"})
    job.run()
    assert job.state.name == "JOB_STATE_SUCCEEDED"
    seen = json.loads((dump / "workerpool0-0.json").read_text())
    assert seen["env"]["CLOUD_ML_JOB_ID"] == job.name  # the trainer ran under the job the SDK created
    assert seen["env"]["AIP_MODEL_DIR"].startswith(str(emulator.storage_root / "test-bucket" / "aiplatform-custom-job-"))

    listed = sdk.CustomJob.list(filter='labels.team="sdk" AND display_name:"sdk-*"')
    assert [j.resource_name for j in listed] == [job.resource_name]
    job.delete()  # waits on the delete operation
    assert sdk.CustomJob.list() == []
