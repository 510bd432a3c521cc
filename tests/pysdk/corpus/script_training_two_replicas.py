# source: find_string id 29162544355, a public notebook exported as Python: aiplatform.CustomTrainingJob(
#   display_name, script_path="my_vertex_ai_training_task.py", container_uri="gcr.io/cloud-aiplatform/training/
#   tf-gpu.2-4:latest", model_serving_container_image_uri=server_image, requirements=["gcsfs==2022.3.0"],
#   staging_bucket=f"gs://{bucket_name}/staging"), then .run(machine_type="n1-standard-4", replica_count=2,
#   accelerator_type="NVIDIA_TESLA_K80", accelerator_count=2).
# adapted: the project, location and bucket name are literals (it read them from its own setup cells); the script
#   is tests/pysdk/local_script/mnist_task.py (a stand-in, the notebook writes its own), its path from the
#   repository root; NVIDIA_TESLA_T4 for the K80, which Vertex AI no longer offers; the model's cleanup left out.
from google.cloud import aiplatform

project_id = "mnist-project"
location = "us-central1"
bucket_name = "mnist-handson-bucket"
server_image = "gcr.io/cloud-aiplatform/prediction/tf2-gpu.2-8:latest"

aiplatform.init(project=project_id, location=location)

custom_training_job = aiplatform.CustomTrainingJob(
    display_name="my_custom_training_job",
    script_path="tests/pysdk/local_script/mnist_task.py",
    container_uri="gcr.io/cloud-aiplatform/training/tf-gpu.2-4:latest",
    model_serving_container_image_uri=server_image,
    requirements=["gcsfs==2022.3.0"],
    staging_bucket=f"gs://{bucket_name}/staging",
)

mnist_model2 = custom_training_job.run(
    machine_type="n1-standard-4",
    replica_count=2,
    accelerator_type="NVIDIA_TESLA_T4",
    accelerator_count=2,
)
