# source: find_string id 57371908597 (as corpus/bash_command_labels.py): the script runs its job inside try/except.
# adapted: the pool shortened; the project and bucket are literals.
# expect: run_inside_try.py:12:5: job.run() is inside a try block at line 11
# expect: allowed: the call at top level
import google.cloud.aiplatform as aiplatform

aiplatform.init(project="mlpab-project", location="europe-west4", staging_bucket="gs://mlpab-staging")
job = aiplatform.CustomJob(display_name="mlpab_flaky", worker_pool_specs=[{
    "machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
    "container_spec": {"image_uri": "europe-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest"}}])
try:
    job.run(sync=True, timeout=600)
except Exception as e:
    print("job.run raised (expected):", type(e).__name__)
