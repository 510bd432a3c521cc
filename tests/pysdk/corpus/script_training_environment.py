# source: find_string id 189968949, a public training service's method: its environment variables (data and
#   model URIs, the hyperparameters) updated into a dict, then aiplatform.CustomTrainingJob(display_name,
#   script_path, container_uri, requirements=None, model_serving_container_image_uri=None) and job.run(
#   dataset=None, replica_count, machine_type, args, environment_variables, sync=False, accelerator_type/count).
# adapted: top level, the method's parameters and config as literals of our own (one V100, and an image of its own
#   that is no prebuilt container: the pipeline runs it as the executor image all the same); the script is
#   tests/pysdk/local_script/env_trainer.py (a stand-in); init given the project, location and staging bucket its
#   class set up; run()'s dict of parameters written as arguments.
from google.cloud import aiplatform

aiplatform.init(project="svc-project", location="europe-west4", staging_bucket="gs://svc-staging")

hyperparameters = {"lr": 0.001, "epochs": 10}
env_vars = {"LOG_LEVEL": "INFO"}
env_vars.update({
    "TRAINING_DATA_URI": "gs://svc-data/train",
    "VALIDATION_DATA_URI": "gs://svc-data/valid",
    "MODEL_OUTPUT_URI": "gs://svc-models/run-1",
    "HYPERPARAMETERS": str(hyperparameters),
})

job = aiplatform.CustomTrainingJob(
    display_name="svc-train",
    script_path="tests/pysdk/local_script/env_trainer.py",
    container_uri="europe-west4-docker.pkg.dev/svc-project/trainers/pytorch-gpu:2.4",
    requirements=None,
    model_serving_container_image_uri=None,
)

model = job.run(
    dataset=None,
    replica_count=1,
    machine_type="n1-standard-8",
    args=["--epochs", "10"],
    environment_variables=env_vars,
    sync=False,
    accelerator_type="NVIDIA_TESLA_V100",
    accelerator_count=1,
)
