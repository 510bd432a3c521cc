import os

from google.cloud import aiplatform

location = "us-east1"
project_id = "genai-dev-454121"
container_image_uri = f"{location}-docker.pkg.dev/genai-dev-454121/deeplearning-us-east1/hftrain:v0"
api_endpoint = f"{location}-aiplatform.googleapis.com"
base_output_dir = "gs://genai-dev-tmp-useast4"
experiments_metadata_gspath = "gs://genai-dev-tmp/experiments_metadata"
timestamp = "20261127-101500"
experiment_id = f"experiment-{timestamp}"
run_id = f"run-{timestamp}"
job_id = f"job-{timestamp}"
experiment_metadata_gspath = f"{experiments_metadata_gspath}/{location}--{experiment_id}--{run_id}"

if not base_output_dir.startswith("gs://"):
    raise ValueError("base_output_dir must start with gs://")

if "HF_TOKEN" in os.environ.keys():
    hf_token = os.environ["HF_TOKEN"]
else:
    print("WARNING!!! no HF_TOKEN found in environment variables")
    hf_token = "NO_TOKEN_FOUND"

experiment_src_gspath = f"{experiment_metadata_gspath}/src.zip"

client_options = {"api_endpoint": api_endpoint}
client = aiplatform.gapic.JobServiceClient(client_options=client_options)

custom_job = {
    "display_name": job_id,
    "job_spec": {
        "worker_pool_specs": [
            {
                "machine_spec": {
                    "machine_type": "n1-standard-4",
                    "reservation_affinity": {
                        "reservation_affinity_type": "SPECIFIC_RESERVATION",
                        "key": "compute.googleapis.com/reservation-name",
                        "values": ["projects/mlplabs/zones/us-east1-b/reservations/test-reservation-20251127"],
                    },
                },
                "replica_count": 1,
                "container_spec": {
                    "image_uri": container_image_uri,
                    "command": [],
                    "args": [],
                    "env": [{"name": "ZIP_WITH_RUNSCRIPT_GSPATH", "value": experiment_src_gspath},
                            {"name": "GCLOUD_PROJECT_ID", "value": project_id},
                            {"name": "LOCATION", "value": location},
                            {"name": "JOB_ID", "value": job_id},
                            {"name": "RUN_ID", "value": run_id},
                            {"name": "EXPERIMENT_ID", "value": experiment_id},
                            {"name": "EXPERIMENT_METADATA_GSPATH", "value": experiment_metadata_gspath},
                            {"name": "HF_TOKEN", "value": hf_token},
                            {"name": "BASE_OUTPUT_DIR", "value": base_output_dir}],
                },
            }
        ],
    },
}
parent = f"projects/{project_id}/locations/{location}"
response = client.create_custom_job(parent=parent, custom_job=custom_job)
print("response:", response)
