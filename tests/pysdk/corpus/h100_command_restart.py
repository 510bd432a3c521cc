# source: find_string id 10979063304, a public script that trains a LoRA mixture of experts on Vertex AI:
#   aiplatform.init(project, location, staging_bucket=f"gs://{BUCKET_NAME}"), an a3-highgpu-1g pool with one
#   NVIDIA_H100_80GB, a 200 GB pd-ssd boot disk, the trainer's whole command line as container_spec.command,
#   CustomJob(display_name, worker_pool_specs), job.run(service_account=f"...", timeout=86400,
#   restart_job_on_worker_restart=True).
# adapted: its env held WANDB_API_KEY and HF_TOKEN read from the environment: here a non-secret env variable with a
#   literal value (a secret has no place in a spec); load_dotenv and GOOGLE_APPLICATION_CREDENTIALS left out; the
#   command line shortened.
from google.cloud import aiplatform

PROJECT_ID = "dylora"
BUCKET_NAME = "dy-lora-training-bucket"
REGION = "us-central1"
DOCKER_REPO_NAME = "dy-lora-training-repo"
IMAGE_NAME = "dy-lora-training-image"
IMAGE_TAG = "latest"
aiplatform.init(project=PROJECT_ID, location=REGION, staging_bucket=f"gs://{BUCKET_NAME}")

worker_pool_specs = [
    {
        "machine_spec": {
            "machine_type": "a3-highgpu-1g",
            "accelerator_type": "NVIDIA_H100_80GB",
            "accelerator_count": 1,
        },
        "replica_count": 1,
        "disk_spec": {"boot_disk_type": "pd-ssd", "boot_disk_size_gb": 200},
        "container_spec": {
            "image_uri": f"{REGION}-docker.pkg.dev/{PROJECT_ID}/{DOCKER_REPO_NAME}/{IMAGE_NAME}:{IMAGE_TAG}",
            "command": ["python", "train.py", "--datasets", "code_alpaca,mbpp", "--bf16", "--num_epochs", "10"],
            "args": [],
            "env": [{"name": "WANDB_PROJECT", "value": "dylora-moe"}],
        },
    }
]

job = aiplatform.CustomJob(display_name="full-software-development-training-job-spot",
                           worker_pool_specs=worker_pool_specs)
job.run(service_account=f"dylora-moe@{PROJECT_ID}.iam.gserviceaccount.com", timeout=86400,
        restart_job_on_worker_restart=True)
