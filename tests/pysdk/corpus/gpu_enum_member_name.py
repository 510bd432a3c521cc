# source: find_string id 42625930575, a public script: `from google.cloud.aiplatform import gapic as aip`, then
#   `TRAIN_GPU, TRAIN_NGPU = (aip.AcceleratorType.NVIDIA_TESLA_K80, 1)` (commented out there, with
#   `(None, None)` in use), aiplatform.CustomTrainingJob(script_path="task.py", container_uri=TRAIN_IMAGE, ...)
#   and `if TRAIN_GPU: job.run(..., accelerator_type=TRAIN_GPU.name, accelerator_count=TRAIN_NGPU) else:
#   job.run(..., accelerator_count=0)`: the pattern of Google's vertex-ai-samples notebooks.
# adapted: the enum line is the one in use, with NVIDIA_TESLA_T4 for the K80, which Vertex AI no longer offers;
#   the start time is a literal (it came from the repository's own helper); the bucket is a gs:// URI;
#   bigquery_destination is left out (it needs a dataset); an `"IS_TESTING" in os.environ` test is added, as
#   Google's samples test their CI variables; the script is tests/pysdk/local_script/mnist_task.py (a stand-in).
import os

from google.cloud import aiplatform
from google.cloud.aiplatform import gapic as aip

PROJECT_ID = "stock-bot-320000"
BUCKET_NAME = "gs://bot_bucket"
REGION = "us-west1"

start_time = "20240105120000"

aiplatform.init(project=PROJECT_ID, location=REGION, staging_bucket=BUCKET_NAME)

TRAIN_GPU, TRAIN_NGPU = (aip.AcceleratorType.NVIDIA_TESLA_T4, 1)
DEPLOY_GPU, DEPLOY_NGPU = (None, None)

if "IS_TESTING_TRAINJOBS_NEVER_SET" in os.environ:
    TRAIN_VERSION = "tf-cpu.2-4"
else:
    TRAIN_VERSION = "tf-gpu.2-4"

TRAIN_IMAGE = "gcr.io/cloud-aiplatform/training/{}:latest".format(TRAIN_VERSION) # noqa: UP032 (as the source writes it)

MACHINE_TYPE = "n1-standard"
VCPU = "4"
TRAIN_COMPUTE = MACHINE_TYPE + "-" + VCPU

JOB_NAME = "custom_job_" + start_time

if not TRAIN_NGPU or TRAIN_NGPU < 2:
    TRAIN_STRATEGY = "single"
else:
    TRAIN_STRATEGY = "mirror"

EPOCHS = 20
STEPS = 100
BATCH_SIZE = 1024

CMDARGS = [
    "--epochs=" + str(EPOCHS),
    "--steps=" + str(STEPS),
    "--batch_size=" + str(BATCH_SIZE),
    "--distribute=" + TRAIN_STRATEGY,
]

job = aiplatform.CustomTrainingJob(
    display_name=JOB_NAME,
    script_path="tests/pysdk/local_script/mnist_task.py",
    container_uri=TRAIN_IMAGE,
    requirements=["google-cloud-bigquery>=2.20.0"],
)

if TRAIN_GPU:
    model = job.run(
        args=CMDARGS,
        replica_count=1,
        machine_type=TRAIN_COMPUTE,
        accelerator_type=TRAIN_GPU.name,
        accelerator_count=TRAIN_NGPU,
    )
else:
    model = job.run(
        args=CMDARGS,
        replica_count=1,
        machine_type=TRAIN_COMPUTE,
        accelerator_count=0,
    )
