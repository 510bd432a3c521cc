# source: find_string id 4596482997 (a Kubeflow test passing reserved_ip_ranges to a custom training job): the
#   installed SDK's CustomJob.run takes no reserved_ip_ranges.
# adapted: the argument given to CustomJob.run, with a pool of our own.
# expect: unknown_argument.py:11:70: aiplatform.CustomJob.run() takes no argument 'reserved_ip_ranges' (the SDK raises TypeError)
# expect: allowed: service_account, network, timeout
from google.cloud import aiplatform

aiplatform.init(project="p", location="us-central1", staging_bucket="gs://b")
job = aiplatform.CustomJob(display_name="ips", worker_pool_specs=[{
    "machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1, "container_spec": {"image_uri": "gcr.io/p/t:1"}}])
job.run(network="projects/1/global/networks/vpc", reserved_ip_ranges=["vertex-ai-ip-range"])
