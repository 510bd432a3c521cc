# source: find_string id 1254762387, a public launcher that runs a CustomPythonPackageTrainingJob with its pool read
#   from the environment: ACCELERATOR_COUNT = os.environ.get('ACCELERATOR_COUNT', 4), NCCL_DEBUG in
#   environment_variables, service_account, sync=True.
# adapted: the variables it requires (project, region, bucket, job name, image, package) are literals, and the count
#   and disk size are str defaults (what os.environ.get gives when the variable is set: a str, which the
#   TrainingPipeline sends in its Struct as the string); dotenv and the prints left out; the image is PyTorch 2.5
import os

from google.cloud import aiplatform

PROJECT_ID = "my-project"
REGION = "us-central1"
BUCKET_URI = "gs://my-project-staging"
JOB_NAME = "resnet_reduction"
PRE_BUILT_TRAINING_CONTAINER_IMAGE_URI = "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-5.py310:latest"
PYTHON_PACKAGE_GCS_URI = "gs://my-project-staging/dist/trainer-0.1.tar.gz"
python_module_name = "trainer.task"

aiplatform.init(project=PROJECT_ID, location=REGION, staging_bucket=BUCKET_URI)

job = aiplatform.CustomPythonPackageTrainingJob(
    display_name=f"{JOB_NAME}",
    python_package_gcs_uri=PYTHON_PACKAGE_GCS_URI,
    python_module_name=python_module_name,
    container_uri=PRE_BUILT_TRAINING_CONTAINER_IMAGE_URI,
)

REPLICA_COUNT = 2
MACHINE_TYPE = os.environ.get("TRAINJOBS_CORPUS_UNSET_MACHINE_TYPE", "n1-standard-32")
ACCELERATOR_TYPE = os.environ.get("TRAINJOBS_CORPUS_UNSET_ACCELERATOR_TYPE", "NVIDIA_TESLA_T4")
ACCELERATOR_COUNT = os.environ.get("TRAINJOBS_CORPUS_UNSET_ACCELERATOR_COUNT", "4")
BOOT_DISK_SIZE_GB = os.environ.get("TRAINJOBS_CORPUS_UNSET_BOOT_DISK_SIZE_GB", "200")
SERVICE_ACCOUNT = "trainer@my-project.iam.gserviceaccount.com"
ENVIRONMENT_VARIABLES = {"NCCL_DEBUG": "INFO"}

model = job.run(
    replica_count=REPLICA_COUNT,
    machine_type=MACHINE_TYPE,
    accelerator_type=ACCELERATOR_TYPE,
    accelerator_count=ACCELERATOR_COUNT,
    boot_disk_size_gb=BOOT_DISK_SIZE_GB,
    environment_variables=ENVIRONMENT_VARIABLES,
    service_account=SERVICE_ACCOUNT,
    sync=True,
)
