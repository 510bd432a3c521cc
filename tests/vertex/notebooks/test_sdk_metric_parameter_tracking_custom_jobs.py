"""sdk-metric-parameter-tracking-for-custom-jobs: a tabular dataset from Cloud Storage, a script
job trained on it inside an experiment run, metrics logged after, then everything deleted.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/official/ml_metadata/sdk-metric-parameter-tracking-for-custom-jobs.ipynb (cells
26-54). The Keras trainer is replaced by one that reads the split files AIP_TRAINING_DATA_URI
names (as its ``tf.data.Dataset.list_files`` does) and writes a model to AIP_MODEL_DIR.
``requirements=["gcsfs==0.7.1"]`` is left out: the real trainer needs it, the tiny one does not,
and installing it needs PyPI, which tests may not reach. Deploying and predicting (cells 40-45)
are serving, which the emulator does not emulate: the deploy is refused, saying so, and the
metrics the notebook computes from predictions are given.
"""

from __future__ import annotations

import glob
import json
from pathlib import Path
from typing import Any

import pytest

from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID, Served, blob_text, upload_text

TASK = '''
import argparse, glob, json, os
parser = argparse.ArgumentParser()
parser.add_argument('--epochs', dest='epochs', default=10, type=int, help='Number of epochs.')
parser.add_argument('--num_units', dest='num_units', default=64, type=int, help='Number of unit for first layer.')
args = parser.parse_args()
rows = {}
for split in ("TRAINING", "VALIDATION", "TEST"):
    rows[split] = sum(len(open(f).read().splitlines()) - 1 for f in glob.glob(os.environ[f"AIP_{split}_DATA_URI"]))
os.makedirs(os.environ["AIP_MODEL_DIR"], exist_ok=True)
with open(os.path.join(os.environ["AIP_MODEL_DIR"], "model.json"), "w") as f:
    json.dump({"epochs": args.epochs, "num_units": args.num_units, "rows": rows,
               "format": os.environ["AIP_DATA_FORMAT"]}, f)
'''
EXPERIMENT_NAME = "my-experiment-unique"


def test_dataset_job_in_a_run_and_cleanup(aiplatform: Any, served: Served, tmp_path: Path) -> None:
    aiplatform.init(
        project=PROJECT_ID,
        location=LOCATION,
        staging_bucket=BUCKET_URI,
        experiment=EXPERIMENT_NAME,
    )
    header = "Length,Diameter,Height,Whole weight,Shucked weight,Viscera weight,Shell weight,Age"
    upload_text(served, f"{BUCKET_URI}/data/abalone_train.csv",
                "\n".join([header] + [f"0.{i},0.3,0.1,0.5,0.2,0.1,0.15,{i % 20}" for i in range(100)]) + "\n")
    gcs_csv_path = f"{BUCKET_URI}/data/abalone_train.csv"
    ds = aiplatform.TabularDataset.create(display_name="abalone", gcs_source=[gcs_csv_path])
    assert ds.resource_name.startswith(f"projects/{PROJECT_ID}/locations/{LOCATION}/datasets/")
    (tmp_path / "training_script.py").write_text(TASK)
    job = aiplatform.CustomTrainingJob(
        display_name="train-abalone-dist-1-replica",
        script_path=str(tmp_path / "training_script.py"),
        container_uri="us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-8:latest",
        model_serving_container_image_uri="us-docker.pkg.dev/vertex-ai/prediction/tf2-cpu.2-8:latest",
    )
    aiplatform.start_run(
        "custom-training-run-unique"
    )
    parameters = {"epochs": 10, "num_units": 64}
    aiplatform.log_params(parameters)
    model = job.run(
        ds,
        replica_count=1,
        model_display_name="abalone-model",
        args=[f"--epochs={parameters['epochs']}", f"--num_units={parameters['num_units']}"],
    )
    assert job.state.name == "PIPELINE_STATE_SUCCEEDED"
    written = json.loads(blob_text(served, model.uri + "/model.json"))
    assert written["epochs"] == 10 and written["format"] == "csv"
    assert sum(written["rows"].values()) == 100 and written["rows"]["TRAINING"] == 80  # 80/10/10 by default
    assert glob  # (the trainer's own glob reads the splits)

    with pytest.raises(Exception, match="not emulated"):
        model.deploy(machine_type="n1-standard-4")

    mse, mae = 4.25, 1.5
    aiplatform.log_metrics({"mse": mse, "mae": mae})
    (row,) = aiplatform.get_experiment_df().to_dict("records")
    assert row["run_name"] == "custom-training-run-unique" and row["param.num_units"] == 64
    assert row["metric.mse"] == 4.25

    ds.delete()
    experiment = aiplatform.Experiment(
        experiment_name=EXPERIMENT_NAME, project=PROJECT_ID, location=LOCATION
    )
    experiment.delete()
    job.delete()
    model.delete()
    assert aiplatform.TabularDataset.list(filter='display_name="abalone"') == []
    assert aiplatform.Model.list(filter='display_name="abalone-model"') == []
