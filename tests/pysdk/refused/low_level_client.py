# source: find_string id 32618458161, a public script that builds a custom_job dict ({display_name, job_spec:
#   {worker_pool_specs ...}}) and sends it with aiplatform.gapic.JobServiceClient(client_options=...), the low-level
#   client, not aiplatform.CustomJob (such a dict converts as a JSON or YAML file).
# adapted: values of our own, the client built at top level, the create call left out.
# expect: the script builds no Vertex AI training job
# expect: its calls into the SDK: google.cloud.aiplatform.gapic.JobServiceClient at low_level_client.py:11:10
from google.cloud import aiplatform

custom_job = {"display_name": "low-level", "job_spec": {"worker_pool_specs": [{
    "machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1, "container_spec": {"image_uri": "gcr.io/p/t:1"}}]}}
client = aiplatform.gapic.JobServiceClient(client_options={"api_endpoint": "us-central1-aiplatform.googleapis.com"})
