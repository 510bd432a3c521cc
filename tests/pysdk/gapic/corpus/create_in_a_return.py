# source: find_string id 70254101249 (a course's lab launcher, 2025), as message_classes_print_name.py, here in its own
#   form: a method that ends `return client.create_custom_job(parent=parent, custom_job=job).name`, called for its
#   value.
# adapted: the method written as a module function of no parameters (its config values literals); the Scheduling
#   given in CustomJobSpec(...) rather than assigned after.
#   Before: "client.create_custom_job ... inside def submit ..., not called where it can be read", though it is
#   called as name = submit(): a call in a return was not read.
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


def submit() -> str:
    return client.create_custom_job(parent=parent, custom_job=job).name


name = submit()
