# source: find_string id 23014150014, a public hyperparameter_tuning.py (XGBoost): aiplatform.init(project,
#   location, staging_bucket), HyperparameterTuningJob(custom_job=aiplatform.CustomJob(...) written inline, with
#   env in its container_spec), hpt.IntegerParameterSpec / DoubleParameterSpec with scale="UNIT_LINEAR_SCALE" (a
#   proto enum name the SDK's scale map lacks: it sends no scaleType), max_trial_count=4, parallel_trial_count=4.
# adapted: project, location and bucket are literals (it imported them from its custom_utils); the trial-results
#   code after run() left out.
from google.cloud import aiplatform
from google.cloud.aiplatform import hyperparameter_tuning as hpt

project_id = "xgb-project"
location = "us-central1"
bucket = "gs://xgb-project-bucket"

aiplatform.init(project=project_id, location=location, staging_bucket=bucket)

hp_job = aiplatform.HyperparameterTuningJob(
    display_name="xgboost-hp-tuning-job",
    custom_job=aiplatform.CustomJob(
        display_name="xgboost-hp-tuning",
        worker_pool_specs=[
            {
                "machine_spec": {"machine_type": "n1-standard-4"},
                "replica_count": 1,
                "container_spec": {
                    "image_uri": f"gcr.io/{project_id}/xgboost-trainer:latest",
                    "env": [
                        {"name": "GCP_PROJECT_ID", "value": project_id},
                        {"name": "GCP_LOCATION", "value": location},
                        {"name": "GCP_BUCKET_NAME", "value": bucket},
                    ],
                    "args": [],
                },
            }
        ],
    ),
    metric_spec={"r2_score": "maximize"},
    parameter_spec={
        "n_estimators": hpt.IntegerParameterSpec(min=50, max=100, scale="UNIT_LINEAR_SCALE"),
        "max_depth": hpt.IntegerParameterSpec(min=3, max=5, scale="UNIT_LINEAR_SCALE"),
        "learning_rate": hpt.DoubleParameterSpec(min=0.01, max=0.1, scale="UNIT_LINEAR_SCALE"),
        "subsample": hpt.DoubleParameterSpec(min=0.8, max=1.0, scale="UNIT_LINEAR_SCALE"),
    },
    max_trial_count=4,
    parallel_trial_count=4,
)

hp_job.run()
