"""Names assigned again after they are used: Python's values at each use, never the last assignment's."""

from google.cloud import aiplatform

client = aiplatform.gapic.JobServiceClient()
image = "gcr.io/acme/train:1"
pool = {"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1, "container_spec": {"image_uri": image}}
image = "gcr.io/acme/train:2"
job = {"display_name": "first", "job_spec": {"worker_pool_specs": [pool]}}
pool = {"machine_spec": {"machine_type": "n1-standard-8"}, "replica_count": 1, "container_spec": {"image_uri": image}}
labels = {}
labels = {"team": "ml", "before": str(len(labels))}
job["labels"] = labels
client.create_custom_job(parent="projects/acme/locations/us-central1", custom_job=job)
