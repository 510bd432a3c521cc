# source: find_string id 41434226263, a public trainer that runs aiplatform.CustomContainerTrainingJob(...).run(
#   replica_count, machine_type, accelerator_type, accelerator_count, base_output_dir, ...).
# adapted: literals of our own for its class attributes; the environment variables left out.
# expect: container_training_job.py:9:7: aiplatform.CustomContainerTrainingJob creates a TrainingPipeline
import google.cloud.aiplatform as aiplatform

aiplatform.init(project="p", location="us-central1", staging_bucket="gs://b")

job = aiplatform.CustomContainerTrainingJob(
    display_name="claude-trainer",
    container_uri="gcr.io/p/trainer:latest",
    model_serving_container_image_uri="us-docker.pkg.dev/vertex-ai/prediction/tf2-cpu.2-8:latest",
)
model = job.run(replica_count=1, machine_type="n1-standard-8", accelerator_type="NVIDIA_TESLA_T4",
                accelerator_count=1, base_output_dir="gs://b/training-output")
