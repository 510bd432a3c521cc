# source: find_string id 7968162698, a public emotion-model trainer: its create_custom_job() builds worker_pool_specs
#   (the GPU added under `if accelerator_type and accelerator_count:`) and `return aiplatform.CustomJob(display_name,
#   worker_pool_specs, base_output_dir=f"gs://{project}-bucket/model_output")`; main() runs
#   `custom_job = trainer.create_custom_job(...)` then `custom_job.run()`.
# adapted: the class's method written as a module function (its self.* values as parameters); init given a
#   staging_bucket; the model upload and deploy after the run left out.
#   Before: "CustomJob ... inside def create_custom_job ..., not called where it can be read (alone, x = f(...))", though
#   it is called as x = f(...): a job given by `return` was not read.
from google.cloud import aiplatform


def init_vertex_ai(project_id: str = "vibe-team", location: str = "us-east1", staging_bucket: str | None = None) -> None:
    aiplatform.init(project=project_id, location=location, staging_bucket=staging_bucket)


def create_custom_job(project_id: str, image_uri: str, display_name: str, machine_type: str = "n1-standard-4",
                      accelerator_type: str | None = None, accelerator_count: int | None = None) -> aiplatform.CustomJob:
    worker_pool_specs = [{
        "machine_spec": {"machine_type": machine_type},
        "replica_count": 1,
        "container_spec": {"image_uri": image_uri, "command": [], "args": []},
    }]
    if accelerator_type and accelerator_count:
        worker_pool_specs[0]["machine_spec"]["accelerator_type"] = accelerator_type
        worker_pool_specs[0]["machine_spec"]["accelerator_count"] = accelerator_count
    return aiplatform.CustomJob(
        display_name=display_name,
        worker_pool_specs=worker_pool_specs,
        base_output_dir=f"gs://{project_id}-bucket/model_output",
    )


def main():
    PROJECT_ID = "vibe-team"
    init_vertex_ai(PROJECT_ID, "us-east1", "gs://vibe-team-staging")
    custom_job = create_custom_job(PROJECT_ID, f"gcr.io/{PROJECT_ID}/emotion-training:latest",
                                   display_name="emotion_model_training", machine_type="n1-standard-4",
                                   accelerator_type="NVIDIA_TESLA_T4", accelerator_count=1)
    custom_job.run()


if __name__ == "__main__":
    main()
