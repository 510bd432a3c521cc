# source: find_string id 6387979642 (as gpu_test_disk_spec.py), a public script that submits a GPU test job
#   (submit_test_job.py), kept in its own shape: a table of GPU configurations; submit_gpu_test_job(gpu_type,
#   gpu_count, use_spot) that picks the machine type through nested if/elif on the GPU and its count, raises
#   ValueError for an unknown GPU, sets spot only if asked, builds aiplatform.CustomJob and job.run(sync=False);
#   main() that returns early on --dry-run and calls the submit function inside try/except; sys.exit(main())
#   under the main guard.
# adapted: main() takes the values its argparse flags gave as parameters with defaults (two T4 GPUs, no dry run,
#   no spot); the project and region are literals (it read them from the environment with these defaults); the
#   display name is fixed (it added datetime.now()); the upload of the test script and the prints left out;
#   the configuration table shortened to three GPUs.
import sys

from google.cloud import aiplatform

PROJECT_ID = "b2b-recs"
REGION = "europe-central2"
STAGING_BUCKET = f"gs://{PROJECT_ID}-pipeline-staging"
IMAGE_URI = f"{REGION}-docker.pkg.dev/{PROJECT_ID}/tfx-builder/tfx-trainer-gpu:latest"

GPU_CONFIGS = {
    "NVIDIA_TESLA_T4": {"machine_type": "n1-standard-8", "accelerator_count": 1},
    "NVIDIA_L4": {"machine_type": "g2-standard-12", "accelerator_count": 1},
    "NVIDIA_TESLA_A100": {"machine_type": "a2-highgpu-1g", "accelerator_count": 1},
}


def submit_gpu_test_job(gpu_type: str = "NVIDIA_TESLA_T4", gpu_count: int = 1, use_spot: bool = False) -> str:
    aiplatform.init(project=PROJECT_ID, location=REGION)
    job_id = f"gpu-test-{gpu_type.lower().replace('_', '-')}-x{gpu_count}"

    if gpu_type not in GPU_CONFIGS:
        raise ValueError(f"Unknown GPU type: {gpu_type}")
    config = GPU_CONFIGS[gpu_type]
    machine_type = config["machine_type"]

    if gpu_count > 1:
        if gpu_type == "NVIDIA_L4":
            if gpu_count == 2:
                machine_type = "g2-standard-24"
            elif gpu_count == 4:
                machine_type = "g2-standard-48"
        elif gpu_type == "NVIDIA_TESLA_T4":
            machine_type = "n1-standard-16"

    worker_pool_specs = [
        {
            "machine_spec": {"machine_type": machine_type, "accelerator_type": gpu_type, "accelerator_count": gpu_count},
            "replica_count": 1,
            "container_spec": {"image_uri": IMAGE_URI, "command": ["python"], "args": ["/gcs_script/test_gpu.py"]},
            "disk_spec": {"boot_disk_type": "pd-ssd", "boot_disk_size_gb": 100},
        }
    ]
    if use_spot:
        worker_pool_specs[0]["machine_spec"]["spot"] = True

    job = aiplatform.CustomJob(display_name=job_id, worker_pool_specs=worker_pool_specs,
                               staging_bucket=STAGING_BUCKET)
    job.run(service_account=f"{PROJECT_ID}@appspot.gserviceaccount.com", sync=False)
    return job.display_name


def main(gpu_type: str = "NVIDIA_TESLA_T4", gpu_count: int = 2, spot: bool = False, dry_run: bool = False) -> int:
    if dry_run:
        print(f"[DRY RUN] would submit {gpu_type} x{gpu_count}")
        return 0
    try:
        name = submit_gpu_test_job(gpu_type=gpu_type, gpu_count=gpu_count, use_spot=spot)
        print(f"submitted {name}")
        return 0
    except Exception as e:
        print(f"Error submitting job: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(main())
