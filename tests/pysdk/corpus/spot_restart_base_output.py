# source: find_string id 34962911214, a public training launcher: CustomJob(display_name, worker_pool_specs,
#   base_output_dir=f"gs://{bucket_name}/models/{timestamp}"), job.submit(restart_job_on_worker_restart=True,
#   scheduling_strategy=Scheduling.Strategy.SPOT if use_spot else None).
# adapted: top level; bucket, timestamp and use_spot are literals (argparse and the clock gave them); the pool is
#   one L4 GPU machine of our own (its pool was built from flags); aiplatform.init added with a staging bucket.
from google.cloud import aiplatform
from google.cloud.aiplatform_v1.types import custom_job as gca_custom_job

Scheduling = gca_custom_job.Scheduling
bucket_name = "chess-models"
timestamp = "20260101-000000"
use_spot = True
display_name = f"chess-train-{timestamp}"

aiplatform.init(project="chess-project", location="us-east4", staging_bucket=f"gs://{bucket_name}")

worker_pool_specs = [{
    "machine_spec": {"machine_type": "g2-standard-8", "accelerator_type": "NVIDIA_L4", "accelerator_count": 1},
    "replica_count": 1,
    "container_spec": {"image_uri": "us-east4-docker.pkg.dev/chess-project/train/chess:latest",
                       "args": ["--epochs", "20", "--output", f"gs://{bucket_name}/models/{timestamp}"]},
}]

job = aiplatform.CustomJob(
    display_name=display_name,
    worker_pool_specs=worker_pool_specs,
    base_output_dir=f"gs://{bucket_name}/models/{timestamp}",
)
job.submit(
    restart_job_on_worker_restart=True,
    scheduling_strategy=Scheduling.Strategy.SPOT if use_spot else None,
)
