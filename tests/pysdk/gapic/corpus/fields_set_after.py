# Fields set on the client's messages after they are built, as proto-plus sets them: the spec's scheduling and
# output directory (a message, and a dict taken as one), a pool's accelerator through an item of a repeated field,
# a message's missing sub-message made on the way (job.job_spec.scheduling.timeout), and a change to the spec after
# the job copied it (not the job's). Written here (the forms of tests/pysdk/gapic/README.md).
from google.cloud import aiplatform_v1

client = aiplatform_v1.JobServiceClient(client_options={"api_endpoint": "us-central1-aiplatform.googleapis.com"})
spec = aiplatform_v1.CustomJobSpec(worker_pool_specs=[aiplatform_v1.WorkerPoolSpec(
    machine_spec=aiplatform_v1.MachineSpec(machine_type="n1-standard-8"), replica_count=1,
    container_spec=aiplatform_v1.ContainerSpec(image_uri="us-docker.pkg.dev/acme/train/trainer:3", args=["--epochs", "4"]))])
spec.worker_pool_specs[0].machine_spec.accelerator_type = aiplatform_v1.AcceleratorType.NVIDIA_TESLA_T4
spec.worker_pool_specs[0].machine_spec.accelerator_count = 2
spec.base_output_directory = {"output_uri_prefix": "gs://acme-train/runs/3"}
job = aiplatform_v1.CustomJob(display_name="trainer-3", job_spec=spec)
spec.service_account = "not-the-jobs@acme.iam.gserviceaccount.com"  # after CustomJob copied spec: not the job's
job.job_spec.scheduling = aiplatform_v1.Scheduling(timeout="7200s")
job.job_spec.scheduling.restart_job_on_worker_restart = True
job.labels = {"team": "nlp"}
job.labels["run"] = "three"
client.create_custom_job(parent="projects/acme/locations/us-central1", custom_job=job)
