# source: a recommendation_bespoke Composer DAG, rec_serve's training through a plugin's MLEngineTrainingOperator (find_string id 24810161627)
# ruff: noqa (a public DAG, kept as its authors wrote it)
# adapted: the commented-out BigQuery export task left out
"""DAG definition for recommendation_bespoke model training."""

import airflow
from airflow import DAG
from airflow.hooks.base_hook import BaseHook
from airflow.operators.ml_engine_plugin import MLEngineTrainingOperator

import datetime

def _get_project_id():
  """Get project ID from default GCP connection."""

  extras = BaseHook.get_connection('google_cloud_default').extra_dejson
  key = 'extra__google_cloud_platform__project'
  if key in extras:
    project_id = extras[key]
  else:
    raise ('Must configure project_id in google_cloud_default '
           'connection from Airflow Console')
  return project_id

PROJECT_ID = _get_project_id()

BUCKET = 'gs://recserve_' + PROJECT_ID
REGION = 'us-central1' #'europe-west2' #'us-east1'
JOB_DIR = BUCKET + '/jobs'

default_args = {
    'owner': 'airflow',
    'depends_on_past': False,
    'start_date': airflow.utils.dates.days_ago(2),
    'email': ['someone@example.com'],
    'email_on_failure': True,
    'email_on_retry': False,
    'retries': 5,
    'retry_delay': datetime.timedelta(minutes=5)
}

schedule_interval = '00 21 * * *'

dag = DAG('recommendations_model_training', default_args=default_args,
          schedule_interval=schedule_interval)

dag.doc_md = __doc__

# ML Engine training job
training_file = BUCKET + '/data/ratings_small.csv'
job_id = 'recserve_{0}'.format(datetime.datetime.now().strftime('%Y%m%d%H%M'))
job_dir = BUCKET + '/jobs/' + job_id
output_dir = BUCKET
delimiter=','
data_type='user_ratings'
master_image_uri='gcr.io/palringo-client/recommendation_bespoke_container:tf_rec_ur'

training_args = ['--job-dir', job_dir,
                 '--train-file', training_file,
                 '--output-dir', output_dir,
                 '--data-type', data_type]

master_config = {"imageUri": master_image_uri,}

t3 = MLEngineTrainingOperator(
    task_id='ml_engine_training_op',
    project_id=PROJECT_ID,
    job_id=job_id,
    training_args=training_args,
    region=REGION,
    scale_tier='CUSTOM',
    master_type='complex_model_m_gpu',
    master_config=master_config,
    dag=dag
)
