# source: find_string id 6387979642 (as corpus/gpu_test_function_main.py): main() returns early on --dry-run before
#   it submits the job.
# adapted: shortened; --dry-run read with argparse, as the script reads it, so whether main() returns before the
#   job is known only when the script runs (the parser, read as argparse builds it, has no --dry-run: Python raises
#   AttributeError there; with one, its default would be read, as `python FILE` runs it).
# expect: dry_run_return.py: the script launches no Vertex AI training job where it can be read
# expect: CustomJob at dry_run_return.py:20:11 is not read: the if at line 17, whose test is not known (args.dry_run: the parser has no argument dry_run (AttributeError))
# expect: may return before it
import argparse
import sys

from google.cloud import aiplatform


def main() -> int:
    args = argparse.ArgumentParser().parse_args()
    if args.dry_run:
        return 0
    aiplatform.init(project="b2b-recs", location="europe-central2")
    job = aiplatform.CustomJob(display_name="gpu-test", staging_bucket="gs://b2b-staging", worker_pool_specs=[{
        "machine_spec": {"machine_type": "n1-standard-8"}, "replica_count": 1,
        "container_spec": {"image_uri": "gcr.io/b2b-recs/gpu:latest"}}])
    job.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
