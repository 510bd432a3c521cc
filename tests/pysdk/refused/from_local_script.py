# source: find_string id 42524858774, a public deployment script: aiplatform.CustomJob.from_local_script(
#   display_name, script_path="sample_script.py", container_uri="gcr.io/cloud-ml-algos/image:latest",
#   machine_type="n1-standard-4"), then job.run().
# adapted: project and bucket are literals (it read a config file and service-account credentials).
# expect: from_local_script.py:11:60: aiplatform.CustomJob.from_local_script(container_uri='gcr.io/cloud-ml-algos/image:latest') is not a prebuilt training container
# expect: allowed: a prebuilt container
from google.cloud import aiplatform

aiplatform.init(project="p", location="us-central1", staging_bucket="gs://b")
job = aiplatform.CustomJob.from_local_script(display_name="vertex-ai-deployment-job", script_path="sample_script.py",
                                             container_uri="gcr.io/cloud-ml-algos/image:latest",
                                             machine_type="n1-standard-4")
job.run()
