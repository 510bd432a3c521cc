"""ML Ops stage 2, get_started_vertex_training_sklearn: a Python package training pipeline that
returns a Model (``sync=False``), listed by display name while it runs, its model exported through
Cloud Storage FUSE (/gcs/), then the model deleted.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/community/ml_ops/stage2/get_started_vertex_training_sklearn.ipynb (cells 32-59). The
trainer keeps the notebook's arguments and its export (``gs://`` turned into ``/gcs/``, only the
parent folder made, ``model.pkl`` and ``report.txt`` written there); its download and scikit-learn
training are replaced by a pickled dict. The package's ``install_requires`` (wget,
cloudml-hypertune) are left out: installing them needs PyPI.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID, Served, write_package

TASK = '''
import argparse, logging, os, pickle

parser = argparse.ArgumentParser()
parser.add_argument('--model-dir', dest='model_dir',
                    default=os.getenv('AIP_MODEL_DIR'), type=str, help='Model dir.')
parser.add_argument("--dataset-url", dest="dataset_url",
                    type=str, help="Download url for the training data.")
parser.add_argument('--alpha', dest='alpha',
                    default=1.0, type=float,
                    help='Alpha parameters for MultinomialNB')
args = parser.parse_args()

logging.getLogger().setLevel(logging.INFO)
model = {"alpha": args.alpha, "dataset_url": args.dataset_url}
score = 0.9

def export_model_to_gcs(fitted_pipeline, gcs_uri):
    artifact_filename = 'model.pkl'
    storage_path = os.path.join(gcs_uri, artifact_filename)
    with open(storage_path, 'wb') as model_file:
        pickle.dump(fitted_pipeline, model_file)

def export_evaluation_report_to_gcs(report, gcs_uri):
    artifact_filename = 'report.txt'
    storage_path = os.path.join(gcs_uri, artifact_filename)
    with open(storage_path, 'w') as report_file:
        report_file.write(report)

logging.info("Exporting model artifacts ...")
gs_prefix = 'gs://'
gcsfuse_prefix = '/gcs/'
if args.model_dir.startswith(gs_prefix):
    args.model_dir = args.model_dir.replace(gs_prefix, gcsfuse_prefix)
    dirpath = os.path.split(args.model_dir)[0]
    if not os.path.isdir(dirpath):
        os.makedirs(dirpath)

export_model_to_gcs(model, args.model_dir)
export_evaluation_report_to_gcs(str(score), args.model_dir)
logging.info(f"Exported model artifacts to GCS bucket: {args.model_dir}")
'''

REGION = LOCATION
TIMESTAMP = "20260101000000"
TRAIN_VERSION = "scikit-learn-cpu.0-23"
DEPLOY_VERSION = "sklearn-cpu.0-23"
TRAIN_IMAGE = "{}-docker.pkg.dev/vertex-ai/training/{}:latest".format(REGION.split("-")[0], TRAIN_VERSION)
DEPLOY_IMAGE = "{}-docker.pkg.dev/vertex-ai/prediction/{}:latest".format(REGION.split("-")[0], DEPLOY_VERSION)
TRAIN_COMPUTE = "n1-standard" + "-" + "4"


def test_package_pipeline_exports_through_gcsfuse(aiplatform: Any, served: Served, tmp_path: Path) -> None:
    from google.cloud import storage

    aip = aiplatform
    aip.init(project=PROJECT_ID, staging_bucket=BUCKET_URI)
    write_package(tmp_path, TASK, served, f"{BUCKET_URI}/trainer_newsaggr.tar.gz")
    DISPLAY_NAME = "newsaggr_" + TIMESTAMP
    job = aip.CustomPythonPackageTrainingJob(
        display_name=DISPLAY_NAME,
        python_package_gcs_uri=f"{BUCKET_URI}/trainer_newsaggr.tar.gz",
        python_module_name="trainer.task",
        container_uri=TRAIN_IMAGE,
        model_serving_container_image_uri=DEPLOY_IMAGE,
        project=PROJECT_ID,
    )
    MODEL_DIR = "{}/{}".format(BUCKET_URI, TIMESTAMP)  # noqa: UP032  (the notebook's own)
    DATASET_URL = "https://archive.ics.uci.edu/ml/machine-learning-databases/00359/NewsAggregatorDataset.zip"
    CMDARGS = ["--alpha=" + str(0.9), "--dataset-url=" + DATASET_URL]
    model = job.run(
        model_display_name="newsaggr_" + TIMESTAMP,
        args=CMDARGS,
        replica_count=1,
        machine_type=TRAIN_COMPUTE,
        base_output_dir=MODEL_DIR,
        sync=False,
    )
    job.wait_for_resource_creation()  # the notebook's next cell runs once the job exists
    _job = job.list(filter=f"display_name={DISPLAY_NAME}")
    assert [j.resource_name for j in _job] == [job.resource_name]
    model.wait()
    assert job.state.name == "PIPELINE_STATE_SUCCEEDED"
    assert model.display_name == "newsaggr_" + TIMESTAMP and model.uri == MODEL_DIR + "/model"
    assert model.gca_resource.container_spec.image_uri == DEPLOY_IMAGE
    bucket = storage.Client(project=PROJECT_ID).bucket(BUCKET_URI[len("gs://"):])
    assert pickle.loads(bucket.blob(f"{TIMESTAMP}/model/model.pkl").download_as_bytes()) == {
        "alpha": 0.9, "dataset_url": DATASET_URL}
    assert bucket.blob(f"{TIMESTAMP}/model/report.txt").download_as_text() == "0.9"

    model.delete()
    assert aip.Model.list(filter=f'display_name="newsaggr_{TIMESTAMP}"') == []
