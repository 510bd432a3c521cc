"""sdk-custom-scikit-learn-prebuilt-container: a script job with ``base_output_dir`` whose trainer
writes its model to AIP_MODEL_DIR, then ``Model.upload(sync=False)`` and ``model.wait()``.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/official/migration/sdk-custom-scikit-learn-prebuilt-container.ipynb (cells 16-43). The
trainer writes ``model.joblib`` into AIP_MODEL_DIR; scikit-learn's training (and the census data
it downloads) is replaced by writing the file. The notebook's trainer uploads it with
google-cloud-storage to the bucket and path it parses out of ``gs://BUCKET/PATH``: here
AIP_MODEL_DIR is the emulated storage's local path (the local backend's choice, so that ``open``
works), which that parsing cannot take. ``requirements=["gcsfs", "tensorflow-datasets"]`` is left
out: the real trainer needs them, the tiny one does not, and installing them needs PyPI, which
tests may not reach.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tests.vertex.notebooks.conftest import BUCKET_URI, PROJECT_ID, Served, blob_text

TASK = '''
import argparse, os

parser = argparse.ArgumentParser()
parser.add_argument('--model-dir', dest='model_dir',
                    default=os.getenv('AIP_MODEL_DIR'), type=str, help='Model dir.')
args = parser.parse_args()
os.makedirs(args.model_dir, exist_ok=True)
with open(os.path.join(args.model_dir, 'model.joblib'), 'w') as f:
    f.write('a pipeline')
'''


def test_script_job_then_upload_async(aiplatform: Any, served: Served, tmp_path: Path) -> None:
    aiplatform.init(project=PROJECT_ID, staging_bucket=BUCKET_URI)
    UUID = "a1b2c3d4"
    TRAIN_VERSION = "scikit-learn-cpu.0-23"
    DEPLOY_VERSION = "sklearn-cpu.1-0"
    TRAIN_IMAGE = "us-docker.pkg.dev/vertex-ai/training/{}:latest".format(TRAIN_VERSION)  # noqa: UP032  (the notebook's own)
    DEPLOY_IMAGE = "us-docker.pkg.dev/vertex-ai/prediction/{}:latest".format(DEPLOY_VERSION)  # noqa: UP032  (the notebook's own)
    TRAIN_COMPUTE = "n1-standard-4"
    os.makedirs(tmp_path / "custom" / "trainer")
    (tmp_path / "custom" / "trainer" / "task.py").write_text(TASK)
    job = aiplatform.CustomTrainingJob(
        display_name="census_" + UUID,
        script_path=str(tmp_path / "custom/trainer/task.py"),
        container_uri=TRAIN_IMAGE,
    )
    MODEL_DIR = "{}/{}".format(BUCKET_URI, UUID)  # noqa: UP032  (the notebook's own)
    job.run(
        replica_count=1, machine_type=TRAIN_COMPUTE, base_output_dir=MODEL_DIR, sync=True
    )
    assert job.state.name == "PIPELINE_STATE_SUCCEEDED"
    MODEL_DIR = MODEL_DIR + "/model"
    assert blob_text(served, MODEL_DIR + "/model.joblib") == "a pipeline"
    model = aiplatform.Model.upload(
        display_name="census_" + UUID,
        artifact_uri=MODEL_DIR,
        serving_container_image_uri=DEPLOY_IMAGE,
        sync=False,
    )
    model.wait()
    assert model.uri == MODEL_DIR and model.display_name == "census_" + UUID
