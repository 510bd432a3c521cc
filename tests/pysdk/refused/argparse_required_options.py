# source: find_string id 18576914740, a public TFX-style launcher whose options are all required=True: run with no
#   arguments, argparse exits before any job is built.
# adapted: shortened to two options and the job.
# expect: argparse_required_options.py:12:47: aiplatform.init(location=...) cannot be known without running the script: region is set from args
# expect: args is set from parse_args(), where argparse exits when the script runs with no arguments (the following arguments are required: --project, --region)
import argparse

from google.cloud import aiplatform


def create_training_pipeline(project: str, region: str) -> None:
    aiplatform.init(project=project, location=region, staging_bucket="gs://my-project-staging")
    job = aiplatform.CustomPythonPackageTrainingJob(display_name="taxi",
                                                    python_package_gcs_uri="gs://my-project-staging/trainer.tar.gz",
                                                    python_module_name="trainer.task",
                                                    container_uri="us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest")
    job.run(machine_type="n1-standard-4", replica_count=1)


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--project', required=True)
    parser.add_argument('--region', required=True)
    args = parser.parse_args()
    create_training_pipeline(project=args.project, region=args.region)
