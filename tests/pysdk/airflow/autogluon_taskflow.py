# source: a chronos/autogluon forecasting repository's TaskFlow DAG with MLEngineStartTrainingJobOperator (find_string id 28837959311)
# ruff: noqa (a public DAG, kept as its authors wrote it)
# adapted: the @task functions after the training operator (predict, evaluate, visualize, save) left out, the first
# ones' bodies shortened; pendulum.datetime (pendulum is not installed here) written as datetime; the DAG function
# called at the end, as Airflow's TaskFlow needs
import logging
import os
import random
from datetime import datetime, timedelta

from airflow.decorators import dag, task
from airflow.providers.google.cloud.operators.mlengine import MLEngineStartTrainingJobOperator # Import the operator

# Global variables
PREDICTION_LENGTH = 24

PROJECT_ID = os.environ.get('GCP_PROJECT_ID', 'your-gcp-project-id') # Replace with your GCP Project ID
GCS_BUCKET_FOR_TRAINER = os.environ.get('GCS_BUCKET_FOR_TRAINER', 'your-trainer-bucket') # Replace with a GCS bucket for your trainer package
TRAINER_PACKAGE_PATH = 'trainer/autogluon_trainer-0.1.tar.gz' # Assuming you'll package your trainer and upload it here
TRAINER_URI = f"gs://{GCS_BUCKET_FOR_TRAINER}/{TRAINER_PACKAGE_PATH}"
TRAINER_PY_MODULE = 'trainer.task' # Corresponds to trainer/task.py

@dag(
    dag_id="chronos_train_dag_no_mlflow",
    schedule=None,
    start_date=datetime(2025, 9, 5),
    catchup=False,
    tags=["ml", "pipeline"],
    default_args={
        "owner": "airflow",
        "depends_on_past": False,
        "start_date": datetime(2023, 1, 1),
        "email_on_failure": False,
        "email_on_retry": False,
        "retries": 0,
        "retry_delay": timedelta(minutes=5),
    }
)
def chronos_train_dag_no_mlflow():
    """
    ### ML Pipeline DAG Documentation
    """

    @task()
    def load_data_gcs_info():
        BUCKET_NAME = os.environ.get('BUCKET_NAME')
        OBJECT_NAME = os.environ.get('OBJECT_NAME')
        return {"bucket_name": BUCKET_NAME, "object_name": OBJECT_NAME}

    @task(multiple_outputs=True)
    def train_test_split(data_df):
        logging.info("Starting train_test_split: Splitting data into train and test")
        return {"train_data": data_df, "test_data": data_df}

    # The train_model task is replaced by MLEngineStartTrainingJobOperator
    # This is defined outside the taskflow to be directly callable
    ai_platform_training_job_operator = MLEngineStartTrainingJobOperator(
        task_id="start_ai_platform_training",
        project_id=PROJECT_ID,
        region="us-central1", # You can make this configurable
        job_id=f"autogluon-training-job-{datetime.now().strftime('%Y%m%d%H%M%S')}-{random.randint(0, 10000)}", # Unique job ID
        runtime_version="2.11", # Use a recent runtime version that supports Python 3.9+
        python_version="3.9", # Match with your trainer's Python version
        job_dir=f"gs://{GCS_BUCKET_FOR_TRAINER}/ai_platform_jobs/autogluon_training_output/", # GCS path for job output
        package_uris=[TRAINER_URI],
        training_python_module=TRAINER_PY_MODULE,
        training_args=[
            f"--data-bucket-name={os.environ.get('BUCKET_NAME')}",
            f"--data-object-name={os.environ.get('OBJECT_NAME')}",
            f"--prediction-length={PREDICTION_LENGTH}"
        ],
        labels={"job_type": "autogluon_training"},
    )

    info = load_data_gcs_info()
    info >> ai_platform_training_job_operator


chronos_train_dag_no_mlflow()
