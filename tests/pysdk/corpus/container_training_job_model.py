# source: find_string id 41434226263, a public trainer that runs aiplatform.CustomContainerTrainingJob(...).run(
#   replica_count, machine_type, accelerator_type, accelerator_count, base_output_dir, ...).
# adapted: literals of our own for its class attributes; its environment variables are literals (it read an API
#   key from the environment); two replicas, so a worker pool beside the chief; service_account and timeout given.
import google.cloud.aiplatform as aiplatform

aiplatform.init(project="p", location="us-central1", staging_bucket="gs://b")

job = aiplatform.CustomContainerTrainingJob(
    display_name="claude-trainer",
    container_uri="gcr.io/p/trainer:latest",
    model_serving_container_image_uri="us-docker.pkg.dev/vertex-ai/prediction/tf2-cpu.2-8:latest",
)
model = job.run(replica_count=2, machine_type="n1-standard-8", accelerator_type="NVIDIA_TESLA_T4",
                accelerator_count=1, base_output_dir="gs://b/training-output", service_account=None, network=None,
                timeout=None, restart_job_on_worker_restart=False, enable_web_access=False,
                environment_variables={"PROJECT_ID": "p", "BUCKET_NAME": "b"})
