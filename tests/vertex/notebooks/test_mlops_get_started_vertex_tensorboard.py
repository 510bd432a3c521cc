"""get_started_vertex_tensorboard (ML Ops stage 2): local logs uploaded with the ``tb-gcp-uploader``
command to a new TensorBoard, then a script training job on a GPU machine with ``tensorboard=``,
``base_output_dir`` and a service account; the TensorBoard and the job deleted.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/community/ml_ops/stage2/get_started_vertex_tensorboard.ipynb (cells 39-72). The local
Keras fit of cell 48 (its TensorBoard callback writing ``./logs``) and the job's Keras trainer are
replaced by the project's curves trainer (tests/fixtures/trainers/curves: event files written by
hand, read back by TensorBoard's own reader); the trainer saves its model to AIP_MODEL_DIR (the
notebook's ``--model-dir`` is ``gs://``, which only TensorFlow's file API writes to).
``tb-gcp-uploader`` (cell 54) is run as its console script runs it, ``uploader_main.main`` with its
flags, in this process: the command talks gRPC to the ``--api_uri`` with Application Default
Credentials and has no flag for a REST endpoint, so it can only reach the emulator through the
SDK's global config, which this process points there. ``requirements=["gcsfs==0.7.1",
"tensorflow-datasets==4.4"]`` is left out: the tiny trainer needs neither, and installing them
needs PyPI. The notebook trains on one NVIDIA_TESLA_K80 (its default, cell 41), which Vertex AI no longer
offers for training: that run is refused as Vertex refuses it, and cell 67's CPU branch is run.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.vertex.notebooks.conftest import BUCKET_URI, PROJECT_ID, Served, blob_text

CURVES = ROOT / "tests" / "fixtures" / "trainers" / "curves" / "curves" / "task.py"
SAVE = '''
out = os.environ["AIP_MODEL_DIR"]
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "saved_model.pb"), "wb") as f:
    f.write(b"mnist")
'''


def _local_fit(log_dir: Path) -> None:
    """Cell 48's ``model.fit(..., callbacks=[TensorBoard(log_dir=LOG_DIR)])``: 4 epochs of scalars."""
    curves: dict[str, Any] = {}
    exec(compile(CURVES.read_text().replace('if __name__ == "__main__":', "if False:"), str(CURVES), "exec"),
         curves)
    curves["write"](str(log_dir / "train"), [(s, "epoch_loss", 1 / (s + 1)) for s in range(4)])


def _setup(aiplatform: Any) -> tuple[Any, Any, int, str, str]:
    """Cells 39-52: the SDK initialised, the GPU and machine chosen, a TensorBoard made."""
    aiplatform.init(project=PROJECT_ID, staging_bucket=BUCKET_URI)
    if os.getenv("IS_TESTING_TRAIN_GPU"):
        TRAIN_GPU, TRAIN_NGPU = (
            aiplatform.gapic.AcceleratorType.NVIDIA_TESLA_K80,
            int(os.getenv("IS_TESTING_TRAIN_GPU")),  # type: ignore[arg-type]
        )
    else:
        TRAIN_GPU, TRAIN_NGPU = (aiplatform.gapic.AcceleratorType.NVIDIA_TESLA_K80, 1)
    TF = "2.1".replace(".", "-")
    TRAIN_VERSION = "tf-gpu.{}".format(TF) if TRAIN_GPU else "tf-cpu.{}".format(TF)  # noqa: UP032  (the notebook's own)
    REGION = "us-central1"
    TRAIN_IMAGE = "{}-docker.pkg.dev/vertex-ai/training/{}:latest".format(
        REGION.split("-")[0], TRAIN_VERSION
    )
    MACHINE_TYPE = "n1-standard"
    VCPU = "4"
    TRAIN_COMPUTE = MACHINE_TYPE + "-" + VCPU
    TENSORBOARD_DISPLAY_NAME = "example"
    tensorboard = aiplatform.Tensorboard.create(display_name=TENSORBOARD_DISPLAY_NAME)
    return tensorboard, TRAIN_GPU, TRAIN_NGPU, TRAIN_IMAGE, TRAIN_COMPUTE


def test_local_logs_uploaded_with_tb_gcp_uploader(aiplatform: Any, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # The uploader reads event files with TensorFlow's file API (tensorboard/logdir_loader.py
    # imports tensorflow), as cell 48's local fit needs TensorFlow: not installed here.
    pytest.importorskip("tensorflow", reason="tb-gcp-uploader imports tensorflow (logdir_loader), not installed")
    monkeypatch.chdir(tmp_path)
    TIMESTAMP = "20261126"
    tensorboard, *_ = _setup(aiplatform)
    tensorboard_resource_name = tensorboard.gca_resource.name
    LOG_DIR = "./logs"
    _local_fit(Path(LOG_DIR))
    EXPERIMENT_NAME = "example-" + TIMESTAMP
    from absl import flags
    from google.cloud.aiplatform.tensorboard import uploader_main

    argv = ["tb-gcp-uploader", f"--tensorboard_resource_name={tensorboard_resource_name}",
            f"--logdir={LOG_DIR}", f"--experiment_name={EXPERIMENT_NAME}", "--one_shot=True"]
    flags.FLAGS(argv)
    try:
        uploader_main.main(argv[:1])
    finally:
        flags.FLAGS.unparse_flags()
    uploaded = aiplatform.TensorboardExperiment(EXPERIMENT_NAME, tensorboard_id=tensorboard.name)
    runs = aiplatform.TensorboardRun.list(tensorboard_experiment_name=uploaded.resource_name)
    assert [r.display_name for r in runs] == ["train"]
    loss = runs[0].read_time_series_data()["epoch_loss"]
    assert [(p.step, round(p.scalar.value, 4)) for p in loss.values] == [(0, 1.0), (1, 0.5), (2, 0.3333), (3, 0.25)]
    tensorboard.delete()


def test_script_job_on_a_gpu_with_a_tensorboard(aiplatform: Any, served: Served, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tensorboard", reason="reading event files needs the tensorboard extra")
    monkeypatch.chdir(tmp_path)
    TIMESTAMP = "20261126"
    tensorboard, TRAIN_GPU, TRAIN_NGPU, TRAIN_IMAGE, TRAIN_COMPUTE = _setup(aiplatform)
    tensorboard_resource_name = tensorboard.gca_resource.name
    SERVICE_ACCOUNT = "trainer@nb-project.iam.gserviceaccount.com"

    os.makedirs("custom/trainer")
    Path("custom/trainer/task.py").write_text(CURVES.read_text() + SAVE)
    job = aiplatform.CustomTrainingJob(
        display_name="example_" + TIMESTAMP,
        script_path="custom/trainer/task.py",
        container_uri=TRAIN_IMAGE,
    )
    MODEL_DIR = "{}/{}".format(BUCKET_URI, TIMESTAMP)  # noqa: UP032  (the notebook's own)
    EPOCHS = 20
    STEPS = 100
    CMDARGS = [
        "--model-dir=" + MODEL_DIR,
        "--epochs=" + str(EPOCHS),
        "--steps=" + str(STEPS),
    ]
    # The notebook's default GPU, the K80, is no longer offered for training: Vertex AI refuses the
    # pipeline (400, the same words), and so does the emulator, before anything runs.
    from google.api_core import exceptions

    with pytest.raises(exceptions.BadRequest, match='Accelerator "NVIDIA_TESLA_K80" is not supported'):
        job.run(
            args=CMDARGS,
            replica_count=1,
            machine_type=TRAIN_COMPUTE,
            accelerator_type=TRAIN_GPU.name,
            accelerator_count=TRAIN_NGPU,
            base_output_dir=MODEL_DIR,
            tensorboard=tensorboard_resource_name,
            service_account=SERVICE_ACCOUNT,
            sync=True,
        )
    # Cell 67's other branch (TRAIN_GPU unset), on a new job object as a user re-running the cell.
    job = aiplatform.CustomTrainingJob(
        display_name="example_" + TIMESTAMP,
        script_path="custom/trainer/task.py",
        container_uri=TRAIN_IMAGE,
    )
    job.run(
        args=CMDARGS,
        replica_count=1,
        machine_type=TRAIN_COMPUTE,
        base_output_dir=MODEL_DIR,
        tensorboard=tensorboard_resource_name,
        service_account=SERVICE_ACCOUNT,
        sync=True,
    )
    assert job.state.name == "PIPELINE_STATE_SUCCEEDED"
    assert blob_text(served, MODEL_DIR + "/model/saved_model.pb") == "mnist"
    backing = job.gca_resource.training_task_metadata["backingCustomJob"].rsplit("/", 1)[1]
    experiments = aiplatform.TensorboardExperiment.list(tensorboard_name=tensorboard_resource_name)
    assert [e.name for e in experiments] == [backing]
    job_runs = aiplatform.TensorboardRun.list(
        tensorboard_experiment_name=next(e for e in experiments if e.name == backing).resource_name)
    assert sorted(r.display_name for r in job_runs) == ["eval", "train"]
    train = next(r for r in job_runs if r.display_name == "train")
    assert len(train.read_time_series_data()["loss"].values) == STEPS

    tensorboard.delete()
    job.delete()
    assert aiplatform.Tensorboard.list(filter='display_name="example"') == []
