from google.cloud import aiplatform
c = aiplatform.gapic.JobServiceClient()
pool = {"machine_spec": {"machine_type": "n1-standard-4", "accelerator_type": aiplatform.gapic.AcceleratorType.NVIDIA_TESLA_T4, "accelerator_count": 1}, "replica_count": 1, "container_spec": {"image_uri": "gcr.io/p/i:1"}}
job = {"display_name": "x", "job_spec": {"worker_pool_specs": [pool]}}
pool = {"machine_spec": {"machine_type": "n1-standard-8"}, "replica_count": 1, "container_spec": {"image_uri": "gcr.io/p/i:2"}}
c.create_custom_job(parent="projects/p/locations/us-central1", custom_job=job)
