# source: apache/airflow airflow/providers/google/cloud/example_dags/example_vertex_ai.py, 2021 (find_string id 6965666902)
# ruff: noqa (a public DAG, kept as its authors wrote it)
# adapted: the license header and the second DAG (the dataset operators) left out; names as written (DISPLAY_NAME
# is a uuid4 made when the DAG is parsed: known only then)
import os
from random import randint
from uuid import uuid4

from airflow import models
from airflow.providers.google.cloud.operators.vertex_ai.custom_job import (
    CreateCustomContainerTrainingJobOperator,
    CreateCustomPythonPackageTrainingJobOperator,
    CreateCustomTrainingJobOperator,
)
from airflow.utils.dates import days_ago

PROJECT_ID = os.environ.get("GCP_PROJECT_ID", "an-id")
REGION = os.environ.get("GCP_LOCATION", "us-central1")
BUCKET = os.environ.get("GCP_VERTEX_AI_BUCKET", "vertex-ai-system-tests")

STAGING_BUCKET = f"gs://{BUCKET}"
BASE_OUTPUT_DIR = f"{STAGING_BUCKET}/models"
DISPLAY_NAME = str(uuid4())  # Create random display name
DISPLAY_NAME_2 = str(uuid4())
DISPLAY_NAME_3 = str(uuid4())
DISPLAY_NAME_4 = str(uuid4())
ARGS = ["--tfds", "tf_flowers:3.*.*"]
CONTAINER_URI = "gcr.io/cloud-aiplatform/training/tf-cpu.2-2:latest"
RESOURCE_ID = str(randint(10000000, 99999999))  # Create random resource ID
REPLICA_COUNT = 1
MACHINE_TYPE = "n1-standard-4"
ACCELERATOR_TYPE = "ACCELERATOR_TYPE_UNSPECIFIED"
ACCELERATOR_COUNT = 0
TRAINING_FRACTION_SPLIT = 0.7
TEST_FRACTION_SPLIT = 0.15
VALIDATION_FRACTION_SPLIT = 0.15
COMMAND = ['python3', 'run_script.py']
COMMAND_2 = ['echo', 'Hello World']
GCS_DESTINATION = f"gs://{BUCKET}/output-dir/"
PYTHON_PACKAGE = "/files/trainer-0.1.tar.gz"
PYTHON_PACKAGE_CMDARGS = f"--model-dir={GCS_DESTINATION}"
PYTHON_PACKAGE_GCS_URI = "gs://test-vertex-ai-bucket/trainer-0.1.tar.gz"
PYTHON_MODULE_NAME = "trainer.task"

with models.DAG(
    "example_gcp_vertex_ai_custom_jobs",
    start_date=days_ago(1),
    schedule_interval="@once",
) as custom_jobs_dag:
    create_custom_container_training_job = CreateCustomContainerTrainingJobOperator(
        task_id="custom_container_task",
        staging_bucket=STAGING_BUCKET,
        display_name=DISPLAY_NAME,
        args=ARGS,
        container_uri=CONTAINER_URI,
        model_serving_container_image_uri=CONTAINER_URI,
        command=COMMAND_2,
        model_display_name=DISPLAY_NAME_2,
        replica_count=REPLICA_COUNT,
        machine_type=MACHINE_TYPE,
        accelerator_type=ACCELERATOR_TYPE,
        accelerator_count=ACCELERATOR_COUNT,
        training_fraction_split=TRAINING_FRACTION_SPLIT,
        validation_fraction_split=VALIDATION_FRACTION_SPLIT,
        test_fraction_split=TEST_FRACTION_SPLIT,
        region=REGION,
        project_id=PROJECT_ID,
        base_output_dir=BASE_OUTPUT_DIR,
    )

    create_custom_python_package_training_job = CreateCustomPythonPackageTrainingJobOperator(
        task_id="python_package_task",
        staging_bucket=STAGING_BUCKET,
        display_name=DISPLAY_NAME_3,
        python_package_gcs_uri=PYTHON_PACKAGE_GCS_URI,
        python_module_name=PYTHON_MODULE_NAME,
        container_uri=CONTAINER_URI,
        args=ARGS,
        model_serving_container_image_uri=CONTAINER_URI,
        model_display_name=DISPLAY_NAME_4,
        replica_count=REPLICA_COUNT,
        machine_type=MACHINE_TYPE,
        accelerator_type=ACCELERATOR_TYPE,
        accelerator_count=ACCELERATOR_COUNT,
        training_fraction_split=TRAINING_FRACTION_SPLIT,
        validation_fraction_split=VALIDATION_FRACTION_SPLIT,
        test_fraction_split=TEST_FRACTION_SPLIT,
        region=REGION,
        project_id=PROJECT_ID,
    )

    create_custom_training_job = CreateCustomTrainingJobOperator(
        task_id="custom_task",
        staging_bucket=STAGING_BUCKET,
        display_name=DISPLAY_NAME,
        script_path=PYTHON_PACKAGE,
        args=PYTHON_PACKAGE_CMDARGS,
        container_uri=CONTAINER_URI,
        model_serving_container_image_uri=CONTAINER_URI,
        requirements=[],
        replica_count=1,
        region=REGION,
        project_id=PROJECT_ID,
    )
