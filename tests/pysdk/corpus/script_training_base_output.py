# source: find_string id 19191329514, a public deployment script: aiplatform.init(project, staging_bucket), then
#   aiplatform.CustomTrainingJob(display_name="RF for deployment", script_path="./fine-tune-RF.py",
#   container_uri="us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest"), then job.run(base_output_dir=
#   MODEL_DIR, sync=True, args=[f"--dataset-url=...", f"--staging_bucket=..."]) and a Model.upload of its output.
# adapted: its command-line arguments (project, bucket, dataset URL) and its random UUID are literals; the script
#   is tests/pysdk/local_script/fine_tune_rf.py (a stand-in), its path from the repository root, where the tests
#   run; a location in init; the Model upload left out (a spec runs the training only).
from google.cloud import aiplatform

project_id = "house-prices"
staging_bucket = "gs://house-prices-staging"
MODEL_DIR = f"{staging_bucket}/rf-0001"
train_docker_img = "us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest"

aiplatform.init(project=project_id, staging_bucket=staging_bucket, location="us-central1")

job = aiplatform.CustomTrainingJob(
    display_name="RF for deployment",
    script_path="tests/pysdk/local_script/fine_tune_rf.py",
    container_uri=train_docker_img,
)

job.run(base_output_dir=MODEL_DIR, sync=True,
        args=["--dataset-url=gs://house-prices-data/train.csv", f"--staging_bucket={staging_bucket}"])
