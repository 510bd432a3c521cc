# source: find_string id 43538061582, a public run_vertex_training script that builds its job under
#   if __name__ == "__main__": from a tyro CLI config.
# adapted: the config's fields as literals at the guard, the display name with a uuid suffix (as many launchers name
#   jobs), so the place named is inside the guard: its column is the script's own, indentation included.
# expect: guarded_random_name.py:15:22: aiplatform.CustomJob(display_name=...) cannot be known without running the script
import uuid

from google.cloud import aiplatform

if __name__ == "__main__":
    aiplatform.init(project="p", location="us-central1", staging_bucket="gs://b")
    pools = [{"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
              "container_spec": {"image_uri": "us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-3:latest"}}]
    job = aiplatform.CustomJob(
        display_name=f"training-{uuid.uuid4().hex[:8]}",
        worker_pool_specs=pools,
    )
    job.run()
