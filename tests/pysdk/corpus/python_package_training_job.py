# source: find_string id 19041551273, a public MLOps task script: aiplatform.init(project, location,
#   staging_bucket="gs://mlops_task_us_central1"), CustomPythonPackageTrainingJob(display_name,
#   python_package_gcs_uri="gs://mlops_task/my_training_package.zip", python_module_name="my_training_package.train",
#   container_uri=".../tf-cpu.2-11:latest").
# adapted: the job is run here, with machine arguments of our own (it went on to build a tuning job from it); the
#   package is a .tar.gz (Vertex AI installs a source distribution); args, a timeout and a Reduction Server left out.
from google.cloud import aiplatform
from google.cloud.aiplatform import CustomPythonPackageTrainingJob

PROJECT_ID = "mlops-task"
REGION = "us-central1"
aiplatform.init(project=PROJECT_ID, location=REGION, staging_bucket="gs://mlops_task_us_central1")

training_job = CustomPythonPackageTrainingJob(
    display_name="xgboost-training",
    python_package_gcs_uri="gs://mlops_task/my_training_package-0.1.tar.gz",
    python_module_name="my_training_package.train",
    container_uri="us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-11:latest",
)

training_job.run(
    args=["--n_estimators", "100", "--max_depth", "6"],
    replica_count=1,
    machine_type="n1-standard-8",
    boot_disk_size_gb=200,
    timeout=3600,
    sync=False,
)
