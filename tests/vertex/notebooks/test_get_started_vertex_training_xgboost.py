"""get_started_vertex_training_xgboost: a Python package job that returns a Model (``sync=False``),
listed by an unquoted display-name filter, then deleted with its model.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/official/custom/get_started_vertex_training_xgboost.ipynb (cells 21-51). The trainer
keeps the notebook's arguments, its hypertune report (as cloudml-hypertune writes it: a JSON line
in $CLOUD_ML_HP_METRIC_FILE) and its /gcs/ save; XGBoost's training is replaced by writing files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID, Served, blob_text, write_package

TASK = '''
import argparse, json, logging, os, time

parser = argparse.ArgumentParser()
parser.add_argument('--model-dir', dest='model_dir',
                    default=os.getenv('AIP_MODEL_DIR'), type=str, help='Model dir.')
parser.add_argument("--dataset-data-url", dest="dataset_data_url",
                    type=str, help="Download url for the training data.")
parser.add_argument("--dataset-labels-url", dest="dataset_labels_url",
                    type=str, help="Download url for the training data labels.")
parser.add_argument("--boost-rounds", dest="boost_rounds",
                    default=20, type=int, help="Number of boosted rounds")
args = parser.parse_args()

accuracy = min(1.0, args.boost_rounds / 100)
# hypertune.HyperTune().report_hyperparameter_tuning_metric(hyperparameter_metric_tag='accuracy', ...)
path = os.environ.get("CLOUD_ML_HP_METRIC_FILE", "/tmp/hypertune/output.metrics")
os.makedirs(os.path.dirname(path), exist_ok=True)
with open(path, "a") as f:
    f.write(json.dumps({"accuracy": accuracy, "global_step": 1, "timestamp": time.time()}) + "\\n")

gs_prefix = 'gs://'
gcsfuse_prefix = '/gcs/'
if args.model_dir.startswith(gs_prefix):
    args.model_dir = args.model_dir.replace(gs_prefix, gcsfuse_prefix)
    dirpath = os.path.split(args.model_dir)[0]
    if not os.path.isdir(dirpath):
        os.makedirs(dirpath)
os.makedirs(args.model_dir, exist_ok=True)
gcs_model_path = os.path.join(args.model_dir, 'model.bst')
with open(gcs_model_path, "w") as f:
    f.write("booster rounds=%d" % args.boost_rounds)
gcs_metrics_path = os.path.join(args.model_dir, 'metrics.json')
with open(gcs_metrics_path, "w") as f:
    f.write(f"{'accuracy: {accuracy}'}")
'''

TRAIN_VERSION = "xgboost-cpu.1-1"
DEPLOY_VERSION = "xgboost-cpu.1-1"
TRAIN_IMAGE = "{}-docker.pkg.dev/vertex-ai/training/{}:latest".format(LOCATION.split("-")[0], TRAIN_VERSION)
DEPLOY_IMAGE = "{}-docker.pkg.dev/vertex-ai/prediction/{}:latest".format(LOCATION.split("-")[0], DEPLOY_VERSION)
TRAIN_COMPUTE = "n1-standard-4"


def test_package_job_returns_a_model_then_list_and_delete(aiplatform: Any, served: Served, tmp_path: Path) -> None:
    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    write_package(tmp_path, TASK, served, f"{BUCKET_URI}/trainer_iris.tar.gz")
    DISPLAY_NAME = "iris"
    job = aiplatform.CustomPythonPackageTrainingJob(
        display_name=DISPLAY_NAME,
        python_package_gcs_uri=f"{BUCKET_URI}/trainer_iris.tar.gz",
        python_module_name="trainer.task",
        container_uri=TRAIN_IMAGE,
        model_serving_container_image_uri=DEPLOY_IMAGE,
        project=PROJECT_ID,
    )
    MODEL_DIR = "{}/{}".format(BUCKET_URI, "model")
    DATASET_DIR = "gs://cloud-samples-data/ai-platform/iris"
    ROUNDS = 20
    CMDARGS = [
        "--dataset-data-url=" + DATASET_DIR + "/iris_data.csv",
        "--dataset-labels-url=" + DATASET_DIR + "/iris_target.csv",
        "--boost-rounds=" + str(ROUNDS),
    ]
    model = job.run(
        model_display_name="iris",
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
    assert model.display_name == "iris" and model.uri == MODEL_DIR + "/model"
    assert blob_text(served, MODEL_DIR + "/model/model.bst") == "booster rounds=20"
    assert model.gca_resource.container_spec.image_uri == DEPLOY_IMAGE
    job.delete()
    model.delete()
    assert job.list(filter=f"display_name={DISPLAY_NAME}") == []
    assert aiplatform.Model.list(filter='display_name="iris"') == []


def test_hyperparameter_tuning_job_of_the_same_package(aiplatform: Any, served: Served, tmp_path: Path) -> None:
    """notebooks/official/training/hyperparameter_tuning_xgboost.ipynb (cells 21-54), same repository
    and commit; the trainer is the one above (the notebook's is the same task.py)."""
    from google.cloud.aiplatform import hyperparameter_tuning as hpt

    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    write_package(tmp_path, TASK, served, f"{BUCKET_URI}/trainer_iris.tar.gz")
    machine_spec = {"machine_type": TRAIN_COMPUTE, "accelerator_count": 0}
    DISK_TYPE = "pd-ssd"
    DISK_SIZE = 100
    disk_spec = {"boot_disk_type": DISK_TYPE, "boot_disk_size_gb": DISK_SIZE}
    MODEL_DIR = "{}/aiplatform-custom-job".format(BUCKET_URI)  # noqa: UP032  (the notebook's own)
    DATASET_DIR = "gs://cloud-samples-data/ai-platform/iris"
    CMDARGS = [
        "--dataset-data-url=" + DATASET_DIR + "/iris_data.csv",
        "--dataset-labels-url=" + DATASET_DIR + "/iris_target.csv",
    ]
    worker_pool_spec = [
        {
            "replica_count": 1,
            "machine_spec": machine_spec,
            "disk_spec": disk_spec,
            "python_package_spec": {
                "executor_image_uri": TRAIN_IMAGE,
                "package_uris": [BUCKET_URI + "/trainer_iris.tar.gz"],
                "python_module": "trainer.task",
                "args": CMDARGS,
            },
        }
    ]
    job = aiplatform.CustomJob(
        display_name="iris",
        worker_pool_specs=worker_pool_spec,
        base_output_dir=MODEL_DIR,
    )
    hpt_job = aiplatform.HyperparameterTuningJob(
        display_name="iris",
        custom_job=job,
        metric_spec={
            "accuracy": "maximize",
        },
        parameter_spec={
            "boost-rounds": hpt.IntegerParameterSpec(min=10, max=100, scale="linear"),
        },
        search_algorithm=None,
        max_trial_count=3,
        parallel_trial_count=1,
    )
    hpt_job.run()
    assert hpt_job.state.name == "JOB_STATE_SUCCEEDED" and len(hpt_job.trials) == 3
    best: tuple[Any, ...] = (None, None, None, 0.0)
    for trial in hpt_job.trials:
        if float(trial.final_measurement.metrics[0].value) > best[3]:
            try:
                best = (
                    trial.id,
                    float(trial.parameters[0].value),
                    float(trial.parameters[1].value),
                    float(trial.final_measurement.metrics[0].value),
                )
            except Exception:
                best = (
                    trial.id,
                    float(trial.parameters[0].value),
                    None,
                    float(trial.final_measurement.metrics[0].value),
                )
    assert best[3] == min(1.0, best[1] / 100)
    BEST_MODEL_DIR = MODEL_DIR + "/" + best[0] + "/model"
    assert blob_text(served, BEST_MODEL_DIR + "/model.bst") == f"booster rounds={int(best[1])}"
    hpt_job.delete()
