# source: find_string id 201293511, the SDK's own unit test of CustomJob
#   (googleapis/python-aiplatform tests/unit/aiplatform/test_custom_job.py, test_create_custom_job):
#   aiplatform.init(project, location, staging_bucket, encryption_spec_key_name), CustomJob(display_name,
#   worker_pool_specs, base_output_dir, labels), job.run(service_account, network, timeout,
#   restart_job_on_worker_restart, create_request_timeout, disable_retries...).
# adapted: the test's _TEST_* constants are literal values of our own choosing (a python_package_spec pool); the
#   mocks left out; enable_web_access and a persistent resource added to run().
from google.cloud import aiplatform

aiplatform.init(
    project="test-project",
    location="europe-west4",
    staging_bucket="gs://test-staging-bucket",
    encryption_spec_key_name="projects/test-project/locations/europe-west4/keyRings/kr/cryptoKeys/key",
)

job = aiplatform.CustomJob(
    display_name="my_job_display_name",
    worker_pool_specs=[{
        "machine_spec": {"machine_type": "n1-standard-8"},
        "replica_count": 1,
        "python_package_spec": {
            "executor_image_uri": "europe-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12.py310:latest",
            "package_uris": ["gs://test-staging-bucket/trainer-0.1.tar.gz"],
            "python_module": "trainer.task",
            "args": ["--epochs=2"],
        },
    }],
    base_output_dir="gs://test-staging-bucket/output",
    labels={"my_key": "my_value"},
)

job.run(
    service_account="vinnys@my-project.iam.gserviceaccount.com",
    network="projects/123456789/global/networks/my-network",
    timeout=7200,
    restart_job_on_worker_restart=True,
    create_request_timeout=None,
    disable_retries=True,
    enable_web_access=True,
)
