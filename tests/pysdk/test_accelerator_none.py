"""run(accelerator_type=None): the SDK raises ValueError before sending anything; convert refuses it the same way
(it converted it silently as a job without GPUs). The oracle is the installed SDK's own check."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import no_traceback, run_cli

SCRIPT = """from google.cloud import aiplatform
aiplatform.init(project="p", location="us-central1", staging_bucket="gs://b")
job = aiplatform.CustomContainerTrainingJob(display_name="t", container_uri="gcr.io/p/i:1")
job.run(replica_count=1, machine_type="n1-standard-8", accelerator_type={gpu}, accelerator_count=1)
"""


def test_the_sdk_refuses_an_accelerator_type_of_none() -> None:
    from google.cloud.aiplatform.utils import worker_spec_utils

    spec = worker_spec_utils._WorkerPoolSpec(replica_count=1, machine_type="n1-standard-8", accelerator_count=1,
                                             accelerator_type=None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="Given accelerator_type `None` invalid"):
        spec.spec_dict  # noqa: B018


@pytest.mark.parametrize("gpu, refused", [("None", True), ("'NVIDIA_TESLA_T4'", False)])
def test_convert_refuses_it_where_it_is_written(tmp_path: Path, gpu: str, refused: bool) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "train.py").write_text(SCRIPT.format(gpu=gpu))
    proc = run_cli("convert", "train.py", "--output", "request", cwd=tmp_path)
    no_traceback(proc)
    if refused:
        assert proc.returncode != 0
        assert "train.py:4:" in proc.stderr and "(accelerator_type=None): the SDK raises ValueError" in proc.stderr
    else:
        assert proc.returncode == 0, proc.stderr
        assert '"acceleratorType": "NVIDIA_TESLA_T4"' in proc.stdout
