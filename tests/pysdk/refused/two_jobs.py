# source: find_string id 24753262821, a public helper class that runs several CustomJobs (single and multi-node).
# adapted: two of its jobs at top level, with literal pools.
# expect: the script launches several jobs: aiplatform.CustomJob at two_jobs.py:10:10; aiplatform.CustomJob at two_jobs.py:12:9
# expect: allowed: one job per script
from google.cloud import aiplatform

aiplatform.init(project="p", location="us-central1", staging_bucket="gs://b")
pool = {"machine_spec": {"machine_type": "n1-standard-8"}, "replica_count": 1,
        "container_spec": {"image_uri": "gcr.io/p/train:1"}}
single = aiplatform.CustomJob(display_name="single", worker_pool_specs=[pool])
single.run(sync=True)
multi = aiplatform.CustomJob(display_name="multi", worker_pool_specs=[pool, {**pool, "replica_count": 3}])
multi.run(sync=True)
