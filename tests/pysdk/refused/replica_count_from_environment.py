# source: find_string id 1254762387, a public launcher whose CustomPythonPackageTrainingJob.run takes
#   replica_count=os.environ['NUM_NODES'], a str: the SDK compares it with 0 (chief_worker_pool) and raises TypeError.
# adapted: the other variables it reads from the environment are literals; NUM_NODES read with a str default, as
#   the environment gives it.
# expect: replica_count_from_environment.py:19:31: aiplatform.CustomPythonPackageTrainingJob.run(replica_count='2') is a str: the SDK compares it with 0 and raises TypeError
# expect: allowed: an int, 1 or more (one read from the environment: int(os.environ[...]))
import os

from google.cloud import aiplatform

aiplatform.init(project="my-project", location="us-central1", staging_bucket="gs://my-project-staging")
job = aiplatform.CustomPythonPackageTrainingJob(
    display_name="resnet_reduction",
    python_package_gcs_uri="gs://my-project-staging/dist/trainer-0.1.tar.gz",
    python_module_name="trainer.task",
    container_uri="us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-5.py310:latest",
)
REPLICA_COUNT = os.environ.get("TRAINJOBS_CORPUS_UNSET_NUM_NODES", "2")
model = job.run(replica_count=REPLICA_COUNT, machine_type="n1-standard-32", sync=True)
