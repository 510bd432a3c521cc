"""pytorch_gcs_data_training: a script job whose trainer reads its data and writes its model through
Cloud Storage FUSE (gs:// arguments turned into /gcs/ paths), on a T4.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/official/training/pytorch_gcs_data_training.ipynb (cells 22-46). The trainer keeps the
notebook's arguments and its FUSE conversions (including the two whose result it drops, so it reads
the gs:// data paths through /gcs/ itself); PyTorch's training is replaced by reading the CSVs
and writing ``model.pth``. This machine has no GPU: the module's emulator runs with ``--cpu``,
which runs a GPU job on the CPU (without it the job fails, saying it needs a GPU this machine
lacks, and naming ``--cpu``).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID, Served, blob_text, upload_text

EMULATOR_ARGS = ("--cpu",)
TASK = '''
import argparse, os
parser = argparse.ArgumentParser()
parser.add_argument('--train_uri', type=str)
parser.add_argument('--test_uri', type=str)
parser.add_argument('--model-dir', dest='model_dir', default=os.getenv('AIP_MODEL_DIR'), type=str,
                    help='Model directory')
args = parser.parse_args()

gs_prefix = 'gs://'
gcsfuse_prefix = '/gcs/'
if args.train_uri.startswith(gs_prefix):
    args.train_uri.replace(gs_prefix, gcsfuse_prefix)
if args.test_uri.startswith(gs_prefix):
    args.test_uri.replace(gs_prefix, gcsfuse_prefix)
rows = [len(open(uri.replace(gs_prefix, gcsfuse_prefix)).read().splitlines()) for uri in (args.train_uri,
                                                                                         args.test_uri)]
gs_prefix = 'gs://'
gcsfuse_prefix = '/gcs/'
if args.model_dir.startswith(gs_prefix):
    args.model_dir = args.model_dir.replace(gs_prefix, gcsfuse_prefix)
    dirpath = os.path.split(args.model_dir)[0]
    if not os.path.isdir(dirpath):
        os.makedirs(dirpath)
gcs_model_path = os.path.join(os.path.join(args.model_dir, 'model.pth'))
with open(gcs_model_path, "w") as f:
    f.write("state_dict rows=%d,%d" % tuple(rows))
'''


def test_fuse_reads_and_writes_on_a_t4(aiplatform: Any, served: Served, tmp_path: Path) -> None:
    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    TRAIN_GPU, TRAIN_NGPU = (aiplatform.gapic.AcceleratorType.NVIDIA_TESLA_T4, 1)
    TRAIN_IMAGE = "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.1-13.py310:latest"
    TRAIN_COMPUTE = "n1-standard-8"
    BUCKET_PREFIX = "pytorch"
    TRAIN_URI = f"{BUCKET_URI}/data/train.csv"
    TEST_URI = f"{BUCKET_URI}/data/test.csv"
    upload_text(served, TRAIN_URI, "a\nb\nc\n")
    upload_text(served, TEST_URI, "d\n")
    (tmp_path / "trainer").mkdir()
    (tmp_path / "trainer" / "task.py").write_text(TASK)
    TIMESTAMP = datetime.now().strftime("%Y%m%d-%H%M%S")
    JOB_DISPLAY_NAME = "pytorch-custom-job"
    job = aiplatform.CustomTrainingJob(
        display_name=JOB_DISPLAY_NAME,
        script_path=str(tmp_path / "trainer/task.py"),
        container_uri=TRAIN_IMAGE,
    )
    job.run(
        replica_count=1,
        machine_type=TRAIN_COMPUTE,
        accelerator_type=TRAIN_GPU.name,
        accelerator_count=TRAIN_NGPU,
        args=[
            "--train_uri",
            TRAIN_URI,
            "--test_uri",
            TEST_URI,
            "--model-dir",
            f"{BUCKET_URI}/{BUCKET_PREFIX}/{TIMESTAMP}/",
        ],
    )
    assert job.state.name == "PIPELINE_STATE_SUCCEEDED"
    assert blob_text(served, f"{BUCKET_URI}/{BUCKET_PREFIX}/{TIMESTAMP}/model.pth") == "state_dict rows=3,1"
