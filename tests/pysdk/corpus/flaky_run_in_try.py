# source: find_string id 57371908597 (as corpus/bash_command_labels.py): the script runs its job inside try/except,
#   its except clause only printing the error, then prints the job's resource name, display name and state.
# adapted: the pool shortened; the project and bucket are literals (it read them from the environment).
import google.cloud.aiplatform as aiplatform

aiplatform.init(project="mlpab-project", location="europe-west4", staging_bucket="gs://mlpab-staging")
job = aiplatform.CustomJob(display_name="mlpab_flaky", worker_pool_specs=[{
    "machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
    "container_spec": {"image_uri": "europe-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest"}}])
print("Launching CustomJob (expected to FAIL)...", flush=True)
try:
    job.run(sync=True, timeout=600)
except Exception as e:
    print("job.run raised (expected):", type(e).__name__)

print("RESOURCE_NAME:", job.resource_name, flush=True)
print("STATE:", job.state, flush=True)
