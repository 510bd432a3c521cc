"""python-aiplatform's end-to-end tabular system test: a tabular dataset from Cloud Storage, a
script training pipeline on it (``sync=False``, scheduling, web access), and an AutoML job beside.

Source: googleapis/python-aiplatform@91cc8ce4f015771b5d8c43c8764ea9dc9abdb216
tests/system/aiplatform/test_e2e_tabular.py and its trainer
tests/system/aiplatform/test_resources/california_housing_training_script.py. The trainer (Keras
on AIP_TRAINING/VALIDATION/TEST_DATA_URI) is replaced by one that counts each split's rows and
saves them in AIP_MODEL_DIR; the California housing CSV is 40 rows of the same columns, written to
the test's bucket (``cloud-samples-data`` is not reachable). ``requirements=["gcsfs==0.7.1"]`` is
left out: the real trainer needs it to read ``gs://``, the tiny one reads the paths it is given, and
installing it needs PyPI. AutoML training is not emulated: that job fails, saying so. Deploying,
online and batch prediction are out of the emulator's scope: each is refused, in Google's shape.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.vertex.notebooks.conftest import BUCKET_NAME, LOCATION, PROJECT_ID, Served, blob_text, upload_text

TRAINER = '''
import glob, json, os
rows = {s: sum(len(open(f).read().splitlines()) - 1 for f in glob.glob(os.environ[f"AIP_{s}_DATA_URI"]))
        for s in ("TRAINING", "VALIDATION", "TEST")}
os.makedirs(os.environ["AIP_MODEL_DIR"], exist_ok=True)
with open(os.path.join(os.environ["AIP_MODEL_DIR"], "rows.json"), "w") as f:
    json.dump({"format": os.environ["AIP_DATA_FORMAT"], "rows": rows}, f)
'''
COLUMNS = ("longitude,latitude,housing_median_age,total_rooms,total_bedrooms,population,households,"
           "median_income,median_house_value")


def test_end_to_end_tabular(aiplatform: Any, served: Served, tmp_path: Path) -> None:
    from google.cloud.aiplatform.compat.types import pipeline_state as gca_pipeline_state

    shared_state = {"staging_bucket_name": BUCKET_NAME}
    _DATASET_TRAINING_SRC = f"gs://{BUCKET_NAME}/california_housing/california-housing-data.csv"
    upload_text(served, _DATASET_TRAINING_SRC,
                COLUMNS + "\n" + "".join(f"-124.{i},40.5,52.0,1820.0,300.0,806,270.0,3.01,{90000 + i}\n"
                                         for i in range(40)))
    _LOCAL_TRAINING_SCRIPT_PATH = str(tmp_path / "california_housing_training_script.py")
    Path(_LOCAL_TRAINING_SCRIPT_PATH).write_text(TRAINER)

    aiplatform.init(
        project=PROJECT_ID,
        location=LOCATION,
        staging_bucket=shared_state["staging_bucket_name"],
    )
    ds = aiplatform.TabularDataset.create(
        display_name="temp-vertex-sdk-e2e-tabular-dataset",
        gcs_source=[_DATASET_TRAINING_SRC],
        sync=False,
        create_request_timeout=180.0,
    )
    custom_job = aiplatform.CustomTrainingJob(
        display_name="temp-vertex-sdk-e2e-tabular-train-housing-custom",
        script_path=_LOCAL_TRAINING_SCRIPT_PATH,
        container_uri="gcr.io/cloud-aiplatform/training/tf-cpu.2-2:latest",
        model_serving_container_image_uri="gcr.io/cloud-aiplatform/prediction/tf2-cpu.2-2:latest",
    )
    automl_job = aiplatform.AutoMLTabularTrainingJob(
        display_name="temp-vertex-sdk-e2e-tabular-train-housing-automl",
        optimization_prediction_type="regression",
        optimization_objective="minimize-rmse",
    )
    custom_model = custom_job.run(
        ds,
        replica_count=1,
        model_display_name="temp-vertex-sdk-e2e-tabular-custom-housing-model",
        timeout=1234,
        restart_job_on_worker_restart=True,
        enable_web_access=True,
        sync=False,
        create_request_timeout=None,
        disable_retries=True,
    )
    automl_model = automl_job.run(
        dataset=ds,
        target_column="median_house_value",
        model_display_name="temp-vertex-sdk-e2e-tabular-automl-housing-model",
        sync=False,
    )

    in_progress_done_check = custom_job.done()
    custom_job.wait_for_resource_creation()
    assert custom_job._gca_resource.training_task_inputs["scheduling"]["timeout"] == "1234s"
    assert custom_job._gca_resource.training_task_inputs["scheduling"]["restartJobOnWorkerRestart"] is True

    custom_model.wait()
    completion_done_check = custom_job.done()
    assert custom_job.state == gca_pipeline_state.PipelineState.PIPELINE_STATE_SUCCEEDED
    seen = json.loads(blob_text(served, custom_model.uri + "/rows.json"))
    assert seen == {"format": "csv", "rows": {"TRAINING": 32, "VALIDATION": 4, "TEST": 4}}
    assert in_progress_done_check is False
    assert completion_done_check is True

    with pytest.raises(Exception, match="not emulated") as automl_failed:
        automl_model.wait()
    assert "AutoML" in str(automl_failed.value) and "501" in str(automl_failed.value)

    # Deploying and batch prediction: not emulated, said so.
    with pytest.raises(Exception, match="not emulated"):
        custom_model.deploy(machine_type="n1-standard-4")
    with pytest.raises(Exception, match="not emulated"):
        custom_model.batch_predict(
            job_display_name="temp-vertex-sdk-e2e-tabular-custom-housing-model",
            instances_format="jsonl",
            machine_type="n1-standard-4",
            gcs_source=f"gs://{BUCKET_NAME}/batch.jsonl",
            gcs_destination_prefix=f'gs://{shared_state["staging_bucket_name"]}/bp_results/',
        )
