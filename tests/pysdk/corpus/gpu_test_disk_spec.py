# source: find_string id 6387979642, a public script that submits a GPU test job (submit_test_job.py):
#   aiplatform.init(project, location), worker_pool_specs with machine_spec, container_spec (command, args) and
#   disk_spec, CustomJob(staging_bucket=...), job.run(service_account=f"{PROJECT_ID}@appspot...", sync=False).
# adapted: the calls moved out of its submit function to top level; the project and region are literals (it
#   read them from the environment); the display name is fixed (it added datetime.now()); argparse and the
#   upload of the test script left out; a T4 with one GPU, as its default.
from google.cloud import aiplatform

PROJECT_ID = "b2b-recs"
REGION = "europe-central2"
STAGING_BUCKET = f"gs://{PROJECT_ID}-pipeline-staging"
IMAGE_URI = f"{REGION}-docker.pkg.dev/{PROJECT_ID}/tfx-builder/tfx-trainer-gpu:latest"

aiplatform.init(project=PROJECT_ID, location=REGION)

gpu_type = "NVIDIA_TESLA_T4"
job_id = f"gpu-test-{gpu_type.lower().replace('_', '-')}"

worker_pool_specs = [
    {
        "machine_spec": {"machine_type": "n1-standard-8", "accelerator_type": gpu_type, "accelerator_count": 1},
        "replica_count": 1,
        "container_spec": {"image_uri": IMAGE_URI, "command": ["python"], "args": ["/gcs_script/test_gpu.py"]},
        "disk_spec": {"boot_disk_type": "pd-ssd", "boot_disk_size_gb": 100},
    }
]

job = aiplatform.CustomJob(display_name=job_id, worker_pool_specs=worker_pool_specs, staging_bucket=STAGING_BUCKET)
job.run(service_account=f"{PROJECT_ID}@appspot.gserviceaccount.com", sync=False)
