from google.cloud import aiplatform

project = "oracle-project"
display_name = "hpt-sample"
container_image_uri = "us-docker.pkg.dev/acme/train/trainer:1"
location = "us-central1"
api_endpoint = "us-central1-aiplatform.googleapis.com"

# The AI Platform services require regional API endpoints.
client_options = {"api_endpoint": api_endpoint}
client = aiplatform.gapic.JobServiceClient(client_options=client_options)
hyperparameter_tuning_job = {
    "display_name": display_name,
    "max_trial_count": 2,
    "parallel_trial_count": 1,
    "max_failed_trial_count": 1,
    "study_spec": {
        "metrics": [
            {
                "metric_id": "accuracy",
                "goal": aiplatform.gapic.StudySpec.MetricSpec.GoalType.MAXIMIZE,
            }
        ],
        "parameters": [
            {
                # Learning rate.
                "parameter_id": "lr",
                "double_value_spec": {"min_value": 0.001, "max_value": 0.1},
            },
        ],
    },
    "trial_job_spec": {
        "worker_pool_specs": [
            {
                "machine_spec": {
                    "machine_type": "n1-standard-4",
                    "accelerator_type": aiplatform.gapic.AcceleratorType.NVIDIA_TESLA_T4,
                    "accelerator_count": 1,
                },
                "replica_count": 1,
                "container_spec": {
                    "image_uri": container_image_uri,
                    "command": [],
                    "args": [],
                },
            }
        ]
    },
}
parent = f"projects/{project}/locations/{location}"
response = client.create_hyperparameter_tuning_job(
    parent=parent, hyperparameter_tuning_job=hyperparameter_tuning_job
)
print("response:", response)
