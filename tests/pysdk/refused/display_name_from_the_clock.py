# source: find_string id 71088940149 (as corpus/spot_submit_main_guard.py): its display name adds int(time.time()).
# adapted: top level, the pool shortened.
# expect: display_name_from_the_clock.py:14:18: aiplatform.CustomJob(display_name=...) cannot be known without running the script
# expect: the time
import time

from google.cloud import aiplatform

aiplatform.init(project="p", location="us-central1", staging_bucket="gs://edge-artifacts")
spec = [{"machine_spec": {"machine_type": "n1-standard-8"}, "replica_count": 1,
         "container_spec": {"image_uri": "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12.py310:latest"}}]
job = aiplatform.CustomJob(
    worker_pool_specs=spec,
    display_name=f"directional-bakeoff-v2-{int(time.time())}",
)
job.submit()
