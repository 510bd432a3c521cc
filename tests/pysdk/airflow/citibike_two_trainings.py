# source: GoogleCloudPlatform data-science-onramp, a Composer DAG orchestrating the pipeline (find_string id 16010893028)
# ruff: noqa (a public DAG, kept as its authors wrote it)
# adapted: the commented-out tasks left out; GKE and model-deployment tasks kept as written
import datetime

from airflow import models
from airflow.contrib.operators.gcp_container_operator import GKEPodOperator
from airflow.providers.google.cloud.operators.kubernetes_engine import GKECreateClusterOperator, GKEDeleteClusterOperator
from airflow.providers.google.cloud.operators.mlengine import MLEngineStartTrainingJobOperator, MLEngineCreateModelOperator

import uuid

SESSION, VERSION = 34, 6

# Get Airflow varibles
PROJECT_ID = models.Variable.get('gcp_project')
BUCKET_NAME = models.Variable.get('gcs_bucket')
REGION = models.Variable.get('gce_region')
ZONE = models.Variable.get('gce_zone')
GKE_CLUSTER_NAME = f'auth-tiego-v{SESSION}-{VERSION}'

# Set AI Platform variables
AIPLATFORM_JOB_DIR = 'gs://citibikevd/aiplatform/output'
TFKERAS_MODEL = f"tfkeras_model_tiego"

yesterday = datetime.datetime.now() - datetime.timedelta(days=1)

default_args = {
    'depends_on_past': False,
    'email': [''],
    'email_on_failure': False,
    'email_on_retry': False,
    'retries': 0,
    'retry_delay': datetime.timedelta(minutes=5),
    'start_date': yesterday
}

with models.DAG(
        f'diego-tushar-v{SESSION}-{VERSION}',
        'catchup=False',
        default_args=default_args,
        schedule_interval=datetime.timedelta(days=1)) as dag:

    create_gke_job = GKECreateClusterOperator(
        task_id='gke_cluster_create',
        project_id=PROJECT_ID,
        location=ZONE,
        body={"name": GKE_CLUSTER_NAME, "initial_node_count": 1},
        gcp_conn_id='google_cloud_default'
    )

    feature_eng_job = GKEPodOperator(
        task_id='feature_engineering',
        project_id=PROJECT_ID,
        location=ZONE,
        cluster_name=GKE_CLUSTER_NAME,
        name=f'feature-engineering-{SESSION}-{VERSION}',
        namespace='default',
        image='gcr.io/data-science-onramp/tiego'
    )

    train_tfkeras_job = MLEngineStartTrainingJobOperator(
        task_id='tfkeras_training',
        project_id=PROJECT_ID,
        job_id=f'tfkeras_train_job_{uuid.uuid4()}',
        package_uris='gs://citibikevd/aiplatform/trainer-0.1.tar.gz',
        training_python_module='trainer.tfkeras_model.task',
        training_args=[],
        region=REGION,
        job_dir=AIPLATFORM_JOB_DIR,
        runtime_version = '2.1',
        python_version='3.7'
    )

    train_sklearn_job = MLEngineStartTrainingJobOperator(
        task_id='sklearn_training',
        project_id=PROJECT_ID,
        job_id=f'sklearn_train_job_{uuid.uuid4()}',
        package_uris='gs://citibikevd/aiplatform/trainer-0.1.tar.gz',
        training_python_module='trainer.sklearn_model.task',
        training_args=[],
        region=REGION,
        job_dir=AIPLATFORM_JOB_DIR,
        runtime_version = '2.1',
        python_version='3.7'
    )

    create_tfkeras_model = MLEngineCreateModelOperator(
        task_id="tfkeras_model_create",
        project_id=PROJECT_ID,
        model={
            "name": TFKERAS_MODEL
        }
    )

    create_gke_job >> feature_eng_job
    feature_eng_job >> train_tfkeras_job
    feature_eng_job >> train_sklearn_job
    train_tfkeras_job >> create_tfkeras_model
