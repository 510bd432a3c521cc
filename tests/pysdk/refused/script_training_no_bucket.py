# source: find_string id 55781943355, a public cloud services guide: aiplatform.init(project, location), then
#   aiplatform.CustomTrainingJob(display_name="training-job", script_path="train.py", container_uri=
#   "gcr.io/cloud-aiplatform/training/tf-cpu.2-8:latest") and job.run().
# adapted: nothing but the project name; the SDK raises RuntimeError here, as it has no staging bucket.
# expect: script_training_no_bucket.py:10:7: aiplatform.CustomTrainingJob has no staging bucket: the SDK raises RuntimeError
# expect: allowed: aiplatform.CustomTrainingJob(staging_bucket='gs://BUCKET') or aiplatform.init(staging_bucket=
from google.cloud import aiplatform

aiplatform.init(project="guide-project", location="us-central1")
job = aiplatform.CustomTrainingJob(
    display_name="training-job",
    script_path="train.py",
    container_uri="gcr.io/cloud-aiplatform/training/tf-cpu.2-8:latest"
)
job.run()
