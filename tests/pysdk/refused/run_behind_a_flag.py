# source: find_string id 34962911214 (as corpus/ddp_submit_function_main.py): its main() reads the flags with
#   argparse and calls submit_training_job(...) with them.
# adapted: shortened; the job is run only when a --submit flag is given (a common form: `if args.submit:`), so
#   whether it runs is known only when the script runs.
# expect: run_behind_a_flag.py:20:5: job.submit() is inside the if at line 19, whose test is not known (args is set from parser
# expect: allowed: the call at top level, under an if whose test is known
import argparse

from google.cloud import aiplatform

parser = argparse.ArgumentParser(description="Submit training job to Vertex AI")
parser.add_argument("--submit", action="store_true")
args = parser.parse_args()

aiplatform.init(project="saxgpt-project", location="us-central1", staging_bucket="gs://saxgpt-training")
job = aiplatform.CustomJob(display_name="saxgpt-train", worker_pool_specs=[{
    "machine_spec": {"machine_type": "n1-standard-16"}, "replica_count": 1,
    "container_spec": {"image_uri": "us-central1-docker.pkg.dev/saxgpt-project/train/saxgpt:latest"}}])
if args.submit:
    job.submit()
