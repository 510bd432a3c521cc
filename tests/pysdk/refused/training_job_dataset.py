# source: find_string id 55192660859, a public comparison of cloud training services: a TrainingPipeline class's
#   run(dataset=None, replica_count=1, machine_type="a2-highgpu-8g", accelerator_type="NVIDIA_TESLA_A100",
#   accelerator_count=8, args=[...]).
# adapted: a CustomContainerTrainingJob of our own, given a dataset (a TabularDataset built earlier), which the
#   pipeline splits and exports for the trainer.
# expect: training_job_dataset.py:15:25: aiplatform.CustomContainerTrainingJob.run(dataset=...): the TrainingPipeline exports a dataset
from google.cloud import aiplatform

aiplatform.init(project="p", location="us-central1", staging_bucket="gs://b")
dataset = aiplatform.TabularDataset("projects/p/locations/us-central1/datasets/123")
job = aiplatform.CustomContainerTrainingJob(
    display_name="llama-sft",
    container_uri="us-docker.pkg.dev/p/train/sft:latest",
)
model = job.run(dataset=dataset, replica_count=1, machine_type="a2-highgpu-8g", accelerator_type="NVIDIA_TESLA_A100",
                accelerator_count=8, args=["--model_name", "meta-llama/Llama-3.2-3B", "--bf16", "true"])
