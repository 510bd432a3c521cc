# source: find_string id 8130051598, a public reinforcement-learning launcher (rlarcworld) that calls its own
#   init_sample(experiment=...), which calls vertexai.init(project=, location=, experiment=, staging_bucket=, ...) with
#   values from the environment (typing.Optional annotations; written here as X | None), then job = create_job(...) (a CustomContainerTrainingJob a function returns) and
#   job.run(scheduling_strategy=...SPOT, timeout=600, ..., enable_web_access=True) inside try under __main__.
# adapted: the environment's values are literals (the oracle runs the script in no environment; PROJECT_ID and
#   REGION as the defaults it would read); the experiment is left out of init (an experiment needs the metadata
#   service the oracle does not stand in for); the run's environment_variables, read from the environment, left out.
import google.auth
import vertexai
from google.cloud import aiplatform


def init_sample(
    project: str | None = None,
    location: str | None = None,
    staging_bucket: str | None = None,
    credentials: google.auth.credentials.Credentials | None = None,
    service_account: str | None = None,
):
    if project is None:
        project = "oracle-project"
    if location is None:
        location = "us-central1"
    if staging_bucket is None:
        staging_bucket = "gs://rlarc-storage"
    vertexai.init(project=project, location=location, staging_bucket=staging_bucket, credentials=credentials,
                  service_account=service_account)


def create_job(config_key: str, continer_uri: str):
    job = aiplatform.CustomContainerTrainingJob(
        display_name=f"custom-train-job-{config_key}",
        container_uri=continer_uri,
        command=["poetry", "run", "python3", "rlarcworld/jobs/train.py"],
        labels={"job-config": config_key},
    )
    return job


if __name__ == "__main__":
    try:
        config_file = "rlarcworld/jobs/config.yaml"
        config_key = "test"
        continer_uri = "us-central1-docker.pkg.dev/rlarc/train/rlarcworld:latest"
        service_account = "trainer@rlarc.iam.gserviceaccount.com"
        init_sample()
        job = create_job(config_key=config_key, continer_uri=continer_uri)
        job.run(
            scheduling_strategy=aiplatform.compat.types.custom_job.Scheduling.Strategy.SPOT,
            timeout=600,
            machine_type="n1-standard-4",
            accelerator_type="NVIDIA_TESLA_T4",
            accelerator_count=1,
            replica_count=1,
            enable_web_access=True,
            args=["--config_file", config_file, "--config_key", config_key],
            service_account=service_account,
        )
    except Exception:
        exit(1)
