"""Submits a Vertex AI custom training job with the client's own message classes."""

import logging

from google.cloud.aiplatform_v1 import (
    CustomJob,
    CustomJobSpec,
    DiskSpec,
    JobServiceClient,
    MachineSpec,
    PythonPackageSpec,
    WorkerPoolSpec,
)

logger = logging.getLogger(__name__)

PROJECT_ID = "gdelt-stock-sentiment-analysis"
REGION = "us-west1"
BUCKET_NAME = "og-gdelt-main-data-dev"
PROJECT_NUMBER = "41778621396"
TRAINING_PACKAGE_URI = f"gs://{BUCKET_NAME}/scripts/training_package.tar.gz"
PYTHON_MODULE = "trainer.train"
CONTAINER_URI = "us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-6:latest"
MACHINE_TYPE = "e2-standard-4"
SERVICE_ACCOUNT = f"{PROJECT_NUMBER}-compute@developer.gserviceaccount.com"

ticker = "AMZN"
input_data_path = "cleaned_data/combined_data_clean_000000000000.csv"
safe_name = "amzn"
display_name = f"train-{safe_name}-custom-job"
output_dir = f"gs://{BUCKET_NAME}/train_results/vertex/model/{safe_name}/"
training_args = [ticker, BUCKET_NAME, input_data_path]

client = JobServiceClient(client_options={"api_endpoint": f"{REGION}-aiplatform.googleapis.com"})
custom_job = CustomJob(
    display_name=display_name,
    job_spec=CustomJobSpec(
        worker_pool_specs=[
            WorkerPoolSpec(
                machine_spec=MachineSpec(machine_type=MACHINE_TYPE),
                replica_count=1,
                disk_spec=DiskSpec(
                    boot_disk_type="pd-standard",
                    boot_disk_size_gb=100,
                ),
                python_package_spec=PythonPackageSpec(
                    executor_image_uri=CONTAINER_URI,
                    package_uris=[TRAINING_PACKAGE_URI],
                    python_module=PYTHON_MODULE,
                    args=training_args,
                ),
            )
        ],
        service_account=SERVICE_ACCOUNT,
        base_output_directory={"output_uri_prefix": output_dir},
    ),
)
parent = f"projects/{PROJECT_ID}/locations/{REGION}"
response = client.create_custom_job(parent=parent, custom_job=custom_job)
logger.info("Job name: %s", response.name)
