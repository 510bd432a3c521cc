import google.auth
from google.cloud import aiplatform

_, PROJECT_ID = google.auth.default()
REGION = "us-central1"
PARENT = "projects/" + PROJECT_ID + "/locations/" + REGION

client = aiplatform.gapic.JobServiceClient(client_options={"api_endpoint": f"{REGION}-aiplatform.googleapis.com"})
custom_job = {
    "display_name": "train-from-auth",
    "job_spec": {
        "worker_pool_specs": [
            {
                "machine_spec": {"machine_type": "n1-standard-4"},
                "replica_count": 1,
                "container_spec": {"image_uri": "us-docker.pkg.dev/acme/train/trainer:1", "args": ["--epochs=3"]},
            }
        ]
    },
}
client.create_custom_job(parent=PARENT, custom_job=custom_job)
