# source: find_string id 54930317619, a public guide's Flex Start job: aiplatform.CustomJob(display_name,
#   worker_pool_specs=[a3-highgpu-8g, 8 x NVIDIA_H100_80GB, a container]) run with
#   scheduling_strategy=aiplatform.compat.types.Scheduling.Strategy.FLEX_START, a path the installed SDK lacks
#   (compat.types holds modules: custom_job.Scheduling), so Python raises AttributeError before the job is built.
# adapted: a staging bucket added to init.
# expect: strategy_through_compat_types.py:20:29: aiplatform.CustomJob.run(scheduling_strategy=...): google.cloud.aiplatform.compat.types.Scheduling.Strategy.FLEX_START names no enum of the installed client: Python raises AttributeError
# expect: allowed: aiplatform.compat.types.custom_job.Scheduling.Strategy.SPOT
from google.cloud import aiplatform

aiplatform.init(project="myco-fraud-dev", location="us-central1", staging_bucket="gs://myco-fraud-dev-staging")

job = aiplatform.CustomJob(
    display_name="fraud-train-flex",
    worker_pool_specs=[{
        "machine_spec": {"machine_type": "a3-highgpu-8g", "accelerator_type": "NVIDIA_H100_80GB", "accelerator_count": 8},
        "replica_count": 1,
        "container_spec": {"image_uri": "us-docker.pkg.dev/myco-fraud-dev/train/fraud:latest"},
    }],
)
job.run(scheduling_strategy=aiplatform.compat.types.Scheduling.Strategy.FLEX_START)
