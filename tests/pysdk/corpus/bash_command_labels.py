# source: find_string id 57371908597, a public script that launches a CustomJob expected to fail:
#   import google.cloud.aiplatform as aiplatform; aiplatform.init(..., staging_bucket=..., api_transport="rest");
#   a container_spec whose command is ["bash", "-c", SCRIPT]; CustomJob(labels={...}); job.run(sync=True).
# adapted: project, location and prefix are literals (it read os.environ[...]); the bash script is a short literal
#   (it read a local file into a heredoc); job.run(sync=True) at top level (it was inside try/except).
import google.cloud.aiplatform as aiplatform

PROJECT = "mlpab-project"
LOCATION = "europe-west4"
PREFIX = "mlpab"
STAGING = "gs://cloud-ai-platform-5dcfee9a-d8bf-457a-8b19-6d8f5db58035"

aiplatform.init(project=PROJECT, location=LOCATION, staging_bucket=STAGING, api_transport="rest")

bash_cmd = "cat > /tmp/failing_job.py << 'EOF'\nraise SystemExit(3)\nEOF\n" + "python /tmp/failing_job.py"
display_name = f"{PREFIX}_flakycdcd16"
container_uri = "europe-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest"

worker_pool_specs = [
    {
        "machine_spec": {"machine_type": "n1-standard-4"},
        "replica_count": 1,
        "container_spec": {"image_uri": container_uri, "command": ["bash", "-c", bash_cmd], "args": []},
    }
]

job = aiplatform.CustomJob(display_name=display_name, worker_pool_specs=worker_pool_specs,
                           labels={"job": "flakycdcd16"})
job.run(sync=True)
