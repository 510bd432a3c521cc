"""A create request built whole: request=CreateCustomJobRequest(...), a timedelta timeout and enum members."""

from datetime import timedelta

from google.cloud import aiplatform_v1

REGION = "europe-west4"
client = aiplatform_v1.JobServiceClient(client_options={"api_endpoint": f"{REGION}-aiplatform.googleapis.com"})

pool = aiplatform_v1.WorkerPoolSpec(
    machine_spec=aiplatform_v1.MachineSpec(
        machine_type="g2-standard-8",
        accelerator_type=aiplatform_v1.AcceleratorType.NVIDIA_L4,
        accelerator_count=1,
    ),
    replica_count=1,
    container_spec={"image_uri": "europe-docker.pkg.dev/acme/train/llm:3", "args": ["--epochs", "2"]},
)
job = aiplatform_v1.CustomJob(
    display_name="l4-finetune",
    labels={"team": "nlp"},
    job_spec=aiplatform_v1.CustomJobSpec(
        worker_pool_specs=[pool],
        scheduling=aiplatform_v1.Scheduling(
            timeout=timedelta(hours=2, minutes=30),
            strategy=aiplatform_v1.Scheduling.Strategy.SPOT,
            restart_job_on_worker_restart=True,
        ),
        enable_web_access=True,
    ),
)
request = aiplatform_v1.CreateCustomJobRequest(parent=f"projects/acme-nlp/locations/{REGION}", custom_job=job)
operation = client.create_custom_job(request=request, timeout=60.0)
