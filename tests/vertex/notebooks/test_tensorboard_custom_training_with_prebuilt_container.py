"""tensorboard_custom_training_with_prebuilt_container: a TensorBoard instance, a Python package
job run with ``tensorboard=`` and its own ``staging_bucket``, then the job deleted.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/official/tensorboard/tensorboard_custom_training_with_prebuilt_container.ipynb
(cells 29-46). The Keras trainer's TensorBoard callback is replaced by the project's curves
trainer (tests/fixtures/trainers/curves: event files written by hand to AIP_TENSORBOARD_LOG_DIR,
read back by TensorBoard's own reader), and its SavedModel by a file in AIP_MODEL_DIR.
``gcloud ai tensorboards delete`` (cell 46) is the SDK's ``Tensorboard.delete``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID, Served, write_package

CURVES = ROOT / "tests" / "fixtures" / "trainers" / "curves" / "curves" / "task.py"
SAVE = '''
def save_model():
    out = os.environ["AIP_MODEL_DIR"]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "saved_model.pb"), "wb") as f:
        f.write(b"flowers")


save_model()
'''


def test_package_job_with_a_tensorboard(aiplatform: Any, served: Served, tmp_path: Path) -> None:
    pytest.importorskip("tensorboard", reason="reading event files needs the tensorboard extra")
    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    SERVICE_ACCOUNT = "trainer@nb-project.iam.gserviceaccount.com"
    GCS_BUCKET_TRAINING = f"{BUCKET_URI}/"
    write_package(tmp_path, CURVES.read_text() + SAVE, served,
                  f"{GCS_BUCKET_TRAINING}hello-custom-training-3.0.tar.gz")
    TENSORBOARD_NAME = PROJECT_ID + "-tb"
    tensorboard = aiplatform.Tensorboard.create(
        display_name=TENSORBOARD_NAME, project=PROJECT_ID, location=LOCATION
    )
    TENSORBOARD_RESOURCE_NAME = tensorboard.gca_resource.name
    JOB_NAME = "tensorboard-example-job"
    GCS_BUCKET_OUTPUT = BUCKET_URI
    BASE_OUTPUT_DIR = "{}/{}".format(GCS_BUCKET_OUTPUT, JOB_NAME)  # noqa: UP032  (the notebook's own)
    job = aiplatform.CustomPythonPackageTrainingJob(
        display_name=JOB_NAME,
        python_module_name="trainer.task",
        container_uri="us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-8:latest",
        python_package_gcs_uri=f"{GCS_BUCKET_TRAINING}hello-custom-training-3.0.tar.gz",
        project=PROJECT_ID,
        location=LOCATION,
        staging_bucket=BASE_OUTPUT_DIR,
    )
    job.run(
        service_account=SERVICE_ACCOUNT,
        tensorboard=TENSORBOARD_RESOURCE_NAME,
        machine_type="n1-standard-8",
        replica_count=1,
    )
    assert job.state.name == "PIPELINE_STATE_SUCCEEDED"
    base = job.gca_resource.training_task_inputs["baseOutputDirectory"]["outputUriPrefix"]
    assert base.startswith(BASE_OUTPUT_DIR + "/aiplatform-custom-training-")
    backing = job.gca_resource.training_task_metadata["backingCustomJob"].rsplit("/", 1)[1]
    # The curves the notebook opens in TensorBoard: the backing job's experiment, a run per log folder.
    experiments = aiplatform.TensorboardExperiment.list(tensorboard_name=TENSORBOARD_RESOURCE_NAME)
    assert [e.name for e in experiments] == [backing]
    runs = aiplatform.TensorboardRun.list(tensorboard_experiment_name=experiments[0].resource_name)
    assert sorted(r.display_name for r in runs) == ["eval", "train"]
    train = next(r for r in runs if r.display_name == "train")
    loss = train.read_time_series_data()["loss"]
    assert [round(v.scalar.value, 4) for v in loss.values] == [1.0, 0.5, 0.3333]

    aiplatform.Tensorboard(TENSORBOARD_RESOURCE_NAME).delete()
    job.delete()
    assert aiplatform.Tensorboard.list(filter=f'display_name="{TENSORBOARD_NAME}"') == []
