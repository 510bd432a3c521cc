# source: find_string id 34962911214 (as spot_restart_base_output.py), a public launcher (submit_vertex_training.py)
#   kept in its own shape: submit_training_job(project_id, region, bucket_name, image_uri, machine_type,
#   accelerator_type, accelerator_count, replica_count, display_name=None, use_spot=False) that calls
#   aiplatform.init with a staging bucket, names the job when no name is given, adds the accelerator to the machine
#   spec only when accelerator_count > 0, appends --ddp to the trainer's args when it is above 1, builds one pool or
#   a distributed one by replica_count, then CustomJob(base_output_dir=...) and job.submit(
#   restart_job_on_worker_restart=True, scheduling_strategy=SPOT if use_spot else None); main() calls it with
#   keyword arguments; main() under the main guard.
# adapted: main() passes literals where argparse gave the flags (two A100s, one replica, spot); the timestamp is a
#   literal (it read the clock); the config upload and its /gcs/ path are a fixed config argument; prints left out.
from google.cloud import aiplatform
from google.cloud.aiplatform_v1.types.custom_job import Scheduling


def submit_training_job(project_id: str, region: str, bucket_name: str, image_uri: str,
                        machine_type: str = "n1-standard-16", accelerator_type: str = "NVIDIA_TESLA_V100",
                        accelerator_count: int = 4, replica_count: int = 1, display_name: str | None = None,
                        use_spot: bool = False):
    aiplatform.init(project=project_id, location=region, staging_bucket=f"gs://{bucket_name}")
    timestamp = "20251117_214059"
    if display_name is None:
        display_name = f"saxgpt-train-{timestamp}"

    machine_spec = {"machine_type": machine_type}
    if accelerator_count > 0:
        machine_spec["accelerator_type"] = accelerator_type
        machine_spec["accelerator_count"] = accelerator_count

    args = ["--config", f"/gcs/{bucket_name}/configs/medium.yaml"]
    if accelerator_count > 1:
        args.append("--ddp")

    if replica_count > 1:
        worker_pool_specs = [{"machine_spec": machine_spec, "replica_count": replica_count,
                              "container_spec": {"image_uri": image_uri, "args": args}}]
    else:
        worker_pool_specs = [{"machine_spec": machine_spec, "replica_count": 1,
                              "container_spec": {"image_uri": image_uri, "args": args}}]

    job = aiplatform.CustomJob(display_name=display_name, worker_pool_specs=worker_pool_specs,
                               base_output_dir=f"gs://{bucket_name}/models/{timestamp}")
    job.submit(restart_job_on_worker_restart=True,
               scheduling_strategy=Scheduling.Strategy.SPOT if use_spot else None)
    return job


def main():
    submit_training_job(
        project_id="saxgpt-project",
        region="us-central1",
        bucket_name="saxgpt-training",
        image_uri="us-central1-docker.pkg.dev/saxgpt-project/train/saxgpt:latest",
        machine_type="a2-highgpu-2g",
        accelerator_type="NVIDIA_TESLA_A100",
        accelerator_count=2,
        use_spot=True,
    )


if __name__ == "__main__":
    main()
