# source: find_string id 70254101249 (a course's lab launcher, 2025): a CustomJobSpec built of aiplatform_v1 message
#   classes (WorkerPoolSpec, MachineSpec, ContainerSpec, GcsDestination), Scheduling(strategy=SPOT,
#   restart_job_on_worker_restart=True), CustomJob(display_name, labels, job_spec), a regional JobServiceClient,
#   and `return client.create_custom_job(parent=parent, custom_job=job).name`.
# adapted: the method's body at top level, its config values literals, the return written as print(...); the
#   Scheduling given in CustomJobSpec(...) rather than assigned after (job_spec.scheduling = ... is refused by name).
#   Before: "the script builds no Vertex AI training job" (a create call inside print(...) or behind .name was not
#   seen).
from google.cloud import aiplatform_v1

region = "us-central1"
project_id = "itcs355"
job_spec = aiplatform_v1.CustomJobSpec(
    worker_pool_specs=[
        aiplatform_v1.WorkerPoolSpec(
            machine_spec=aiplatform_v1.MachineSpec(machine_type="e2-standard-4"),
            replica_count=1,
            container_spec=aiplatform_v1.ContainerSpec(image_uri="us-docker.pkg.dev/itcs355/lab/train:1",
                                                       args=["--epochs", "3"]),
        )
    ],
    base_output_directory=aiplatform_v1.GcsDestination(output_uri_prefix="gs://itcs355-blob/training-jobs"),
    service_account="trainer@itcs355.iam.gserviceaccount.com",
    scheduling=aiplatform_v1.Scheduling(
        strategy=aiplatform_v1.Scheduling.Strategy.SPOT,
        restart_job_on_worker_restart=True,
    ),
)
job = aiplatform_v1.CustomJob(display_name="itcs355-lab2", labels={"course": "itcs355"}, job_spec=job_spec)
client = aiplatform_v1.JobServiceClient(client_options={"api_endpoint": f"{region}-aiplatform.googleapis.com"})
parent = f"projects/{project_id}/locations/{region}"
print(client.create_custom_job(parent=parent, custom_job=job).name)
