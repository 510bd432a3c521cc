# source: find_string id 2695694589, the SDK's own README: aiplatform.CustomTrainingJob(display_name, script_path=
#   "training_script.py", container_uri=..., requirements=["gcsfs==0.7.1"], model_serving_container_image_uri=...),
#   then job.run(my_dataset, replica_count=1, machine_type="n1-standard-4", accelerator_type, accelerator_count).
# adapted: init and the dataset (a TabularDataset by its resource name) are ours; NVIDIA_TESLA_T4 for the K80.
# expect: script_training_dataset.py:19:17: aiplatform.CustomTrainingJob.run(dataset=...): the TrainingPipeline exports a dataset
# expect: allowed: the trainer reading its data itself
from google.cloud import aiplatform

aiplatform.init(project="p", location="us-central1", staging_bucket="gs://b")
my_dataset = aiplatform.TabularDataset("projects/p/locations/us-central1/datasets/123")

job = aiplatform.CustomTrainingJob(
    display_name="my-training-job",
    script_path="training_script.py",
    container_uri="gcr.io/cloud-aiplatform/training/tf-cpu.2-2:latest",
    requirements=["gcsfs==0.7.1"],
    model_serving_container_image_uri="gcr.io/cloud-aiplatform/prediction/tf2-cpu.2-2:latest",
)
model = job.run(my_dataset, replica_count=1, machine_type="n1-standard-4", accelerator_type="NVIDIA_TESLA_T4",
                accelerator_count=1)
