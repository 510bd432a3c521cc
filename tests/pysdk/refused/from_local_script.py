# source: the SDK's docstring of CustomJob.from_local_script (google/cloud/aiplatform/jobs.py), as public notebooks
#   call it: display_name, script_path, container_uri, requirements, replica_count.
# adapted: values of our own.
# expect: from_local_script.py:8:7: aiplatform.CustomJob.from_local_script packages the script
from google.cloud import aiplatform

aiplatform.init(project="p", location="us-central1", staging_bucket="gs://b")
job = aiplatform.CustomJob.from_local_script(
    display_name="local-script",
    script_path="task.py",
    container_uri="us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12.py310:latest",
    requirements=["pandas"],
    replica_count=1,
)
job.run()
