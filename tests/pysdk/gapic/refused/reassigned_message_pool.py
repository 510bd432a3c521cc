from google.cloud import aiplatform, aiplatform_v1
c = aiplatform.gapic.JobServiceClient()
pool = aiplatform_v1.WorkerPoolSpec(machine_spec={"machine_type": "n1-standard-4"}, replica_count=1, container_spec={"image_uri": "gcr.io/p/i:1"})
job = {"display_name": "x", "job_spec": {"worker_pool_specs": [pool]}}
pool = aiplatform_v1.WorkerPoolSpec(machine_spec={"machine_type": "n1-standard-8"}, replica_count=1, container_spec={"image_uri": "gcr.io/p/i:2"})
c.create_custom_job(parent="projects/p/locations/us-central1", custom_job=job)
