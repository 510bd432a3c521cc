# source: a song-mood MLOps repository's Vertex AI training DAG (find_string id 8801089601)
# ruff: noqa (a public DAG, kept as its authors wrote it)
# adapted: the save_final PythonOperator task, its import (the repository's own src package) and the dag.cli() tail
# left out
from airflow import DAG
from airflow.providers.google.cloud.operators.vertex_ai.custom_job import CreateCustomTrainingJobOperator
from airflow import configuration as conf
from datetime import datetime, timedelta
import os

PROJECT_ID = "vibe-team"
REGION = "us-east1"
CONTAINER_URI = CONTAINER_URI
BUCKET_NAME = BUCKET_NAME
STAGING_BUCKET = f"gs://{BUCKET_NAME}/vertex-staging"

DAG_DIR = os.path.dirname(os.path.abspath(__file__))
TRAINER_PATH = os.path.join(DAG_DIR, "src", "trainer", "task.py")

conf.set('core', 'enable_xcom_pickling', 'True')

default_args = {
    'owner': 'Team_Vibe',
    'start_date': datetime(2024, 11, 2),
    'retries': 2,
    'retry_delay': timedelta(minutes=5),
    'email_on_failure': True,
    'email_on_retry': True,
}

dag = DAG(
    dag_id='model_pipeline_song_vertex',
    default_args=default_args,
    description='Song Model DAG with Vertex AI Training',
    schedule_interval=None,
    catchup=False,
    tags=['ml', 'vertex-ai', 'song-model']
)

vertex_training_task = CreateCustomTrainingJobOperator(
    task_id="vertex_train_model",
    project_id=PROJECT_ID,
    region=REGION,
    display_name="song_mood_clustering_{{ds}}",
    container_uri=CONTAINER_URI,
    python_package_gcs_uri=None,  # Remove this if not using package-based training
    python_module=None,  # Remove this if not using package-based training
    script_path=TRAINER_PATH,
    staging_bucket=STAGING_BUCKET,
    machine_type="n1-standard-4",
    args=[
        f"--input_data=gs://{BUCKET_NAME}/data/preprocessed/spotify/genres_v2.csv",
        f"--output_dir=gs://{BUCKET_NAME}/models/{{ds}}",
    ],
    dag=dag,
)
