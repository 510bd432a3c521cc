# source: find_string id 62016883085, a public script (ULB fraud detection on Vertex AI) that builds
#   aiplatform.CustomJob.from_local_script(display_name, script_path, container_uri=tf-cpu.2-7, requirements=
#   ['gcsfs==0.7.1', 'cloudml-hypertune'], machine_type="n1-standard-4") and tunes it with
#   aiplatform.HyperparameterTuningJob(custom_job=job, metric_spec={'accuracy': 'maximize'}, parameter_spec={lr:
#   Double log, depth: Integer linear, activation: Categorical, batch_size: Discrete linear}, max_trial_count=16,
#   parallel_trial_count=4), run with service_account and tensorboard.
# adapted: the script is tests/pysdk/local_script/mnist_task.py (a stand-in), its path from the repository root;
#   the container tf-cpu.2-17.py310 (2.7 is no longer served); quotes as double quotes; project and names shortened.
from google.cloud import aiplatform
from google.cloud.aiplatform import hyperparameter_tuning as hpt

BUCKET = "gs://vertex-europewest4-bucket"
PROJECT_ID = "ulb-ml-dev"
LOCATION = "europe-west4"
SERVICE_ACCOUNT = "tensorboard-sa@ulb-ml-dev.iam.gserviceaccount.com"
TENSORBOARD_RESOURCE = "projects/989788194604/locations/europe-west4/tensorboards/6949581990614007808"

aiplatform.init(project=PROJECT_ID, staging_bucket=BUCKET, location=LOCATION)

job = aiplatform.CustomJob.from_local_script(
        display_name="ulb_custom_training_ht",
        script_path="tests/pysdk/local_script/mnist_task.py",
        container_uri="us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest",
        requirements=["gcsfs==0.7.1", "cloudml-hypertune"],
        machine_type="n1-standard-4",
)

hp_job = aiplatform.HyperparameterTuningJob(
    display_name="ulb_custom_training_ht",
    custom_job=job,
    metric_spec={"accuracy": "maximize"},
    parameter_spec={
        "lr": hpt.DoubleParameterSpec(min=0.01, max=0.1, scale="log"),
        "depth": hpt.IntegerParameterSpec(min=3, max=8, scale="linear"),
        "activation": hpt.CategoricalParameterSpec(values=["relu", "tanh"]),  # not used
        "batch_size": hpt.DiscreteParameterSpec(values=[32, 64, 128], scale="linear"),  # not used
    },
    max_trial_count=16,
    parallel_trial_count=4,
)

hp_job.run(
    service_account=SERVICE_ACCOUNT,
    tensorboard=TENSORBOARD_RESOURCE)
