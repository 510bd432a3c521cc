# source: find_string id 18576914740, a public TFX-style launcher (Google LLC, Apache 2.0): create_training_pipeline()
#   runs a CustomPythonPackageTrainingJob with args, service_account, tensorboard, base_output_dir, machine_type and
#   replica_count=1, its values from argparse options read under `if __name__ == '__main__':`.
# adapted: every option, required there, given a default (so the script runs with no arguments); the license header
#   left out; typing.List written as list.
import argparse

from google.cloud import aiplatform


def create_training_pipeline(project: str,
                             region: str,
                             job_name: str,
                             staging_bucket: str,
                             python_package_gcs_uri: str,
                             python_module_name: str,
                             module_args: list[str],
                             container_uri: str,
                             service_account: str,
                             tensorboard: str,
                             base_output_dir: str,
                             machine_type: str):
    aiplatform.init(project=project, location=region, staging_bucket=staging_bucket)

    job = aiplatform.CustomPythonPackageTrainingJob(display_name=job_name,
                                                    python_package_gcs_uri=python_package_gcs_uri,
                                                    python_module_name=python_module_name,
                                                    container_uri=container_uri)

    job.run(args=module_args,
            service_account=service_account,
            tensorboard=tensorboard,
            base_output_dir=base_output_dir,
            machine_type=machine_type,
            replica_count=1)


if __name__ == '__main__':
    parser = argparse.ArgumentParser()

    parser.add_argument('--job-name', default='chicago-taxi-tips')
    parser.add_argument('--project', default='my-project')
    parser.add_argument('--region', default='europe-west4')
    parser.add_argument('--staging-bucket', default='gs://my-project-staging')
    parser.add_argument('--package-gcs-location', default='gs://my-project-staging/dist/trainer-0.1.tar.gz')
    parser.add_argument('--python-module-name', default='trainer.task')
    parser.add_argument('--base-output-dir', default='gs://my-project-staging/output')
    parser.add_argument('--service-account', default='trainer@my-project.iam.gserviceaccount.com')
    parser.add_argument('--tensorboard', default='projects/123/locations/europe-west4/tensorboards/456')
    parser.add_argument('--worker-type', default='n1-highmem-8')
    parser.add_argument('--container-image', default='europe-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12.py310:latest')
    parser.add_argument('--data-location', default='gs://my-project-staging/data')
    parser.add_argument('--tft-location', default='gs://my-project-staging/tft')
    parser.add_argument('--epochs', type=int, default=5)
    parser.add_argument('--batch-size', type=int, default=512)

    args = parser.parse_args()

    module_args = [f'--data-location={args.data_location}',
                   f'--tft-location={args.tft_location}',
                   f'--epochs={args.epochs}',
                   f'--batch-size={args.batch_size}']

    create_training_pipeline(job_name=args.job_name,
                             project=args.project,
                             region=args.region,
                             staging_bucket=args.staging_bucket,
                             python_package_gcs_uri=args.package_gcs_location,
                             python_module_name=args.python_module_name,
                             module_args=module_args,
                             base_output_dir=args.base_output_dir,
                             service_account=args.service_account,
                             tensorboard=args.tensorboard,
                             machine_type=args.worker_type,
                             container_uri=args.container_image)
