# source: find_string id 52855073041, a public pipeline component: aiplatform.init(project, location) with no
#   staging_bucket, CustomJob(base_output_dir=..., project, location): the SDK raises RuntimeError before anything.
# adapted: top level, the component's parameters as literals, the pool shortened.
# expect: no_staging_bucket.py:12:7: aiplatform.CustomJob has no staging bucket: the SDK raises RuntimeError
# expect: allowed: aiplatform.CustomJob(staging_bucket='gs://BUCKET') or aiplatform.init(staging_bucket='gs://BUCKET')
import google.cloud.aiplatform as aiplatform

aiplatform.init(project="fairguard", location="us-central1")
pools = [{"machine_spec": {"machine_type": "n1-standard-8"}, "replica_count": 1,
          "container_spec": {"image_uri": "us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-3:latest",
                             "command": ["python", "-m", "src.ml.task"]}}]
job = aiplatform.CustomJob(display_name="fairguard-train-v1", worker_pool_specs=pools,
                           base_output_dir="gs://fairguard-artifacts/models/v1", project="fairguard",
                           location="us-central1")
job.run(service_account="train@fairguard.iam.gserviceaccount.com", timeout=7200, sync=True)
