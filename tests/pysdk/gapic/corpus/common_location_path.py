# A public job-submission helper (find_string id 18585893335; repository not named), adapted: submit_job is called at
# the end with sample values (its CLI calls it); the data upload and the log streaming left out. Its parent is
# client.common_location_path(project, region), the client's own format.
from typing import Dict, List, Optional

from google.cloud import aiplatform_v1


def submit_job(
    project: str,
    region: str,
    image_uri: str,
    bucket: str,
    prefix: str,
    entry_point: Optional[str],
    source_dir: Optional[str],
    args: Dict[str, str],
    machine_type: str,
    accelerator_type: Optional[str] = None,
    accelerator_count: Optional[int] = None,
    replica_count: int = 1,
    job_name: Optional[str] = None,
    service_account: Optional[str] = None,
    network: Optional[str] = None,
    subnet: Optional[str] = None,
) -> str:
    job_display_name = job_name or "jobber"
    arg_list: List[str] = []
    for k, v in args.items():
        arg_list.extend([f"--{k}", str(v)])

    container_spec = {
        "image_uri": image_uri,
        "args": arg_list,
    }
    if entry_point:
        container_spec["command"] = ["python", entry_point]

    worker_pool_spec = {
        "machine_spec": {"machine_type": machine_type},
        "replica_count": replica_count,
        "container_spec": container_spec,
    }
    if accelerator_type and accelerator_count:
        worker_pool_spec["machine_spec"]["accelerator_type"] = accelerator_type
        worker_pool_spec["machine_spec"]["accelerator_count"] = accelerator_count

    custom_job = {
        "display_name": job_display_name,
        "job_spec": {
            "worker_pool_specs": [worker_pool_spec],
            "base_output_directory": {"output_uri_prefix": f"gs://{bucket}/{prefix}/outputs"},
        },
    }
    if service_account:
        custom_job["job_spec"]["service_account"] = service_account
    if network:
        custom_job["job_spec"]["network"] = network
    if subnet:
        custom_job["job_spec"]["subnetwork"] = subnet

    client = aiplatform_v1.JobServiceClient(client_options={"api_endpoint": f"{region}-aiplatform.googleapis.com"})
    parent = client.common_location_path(project, region)
    resp = client.create_custom_job(parent=parent, custom_job=custom_job)
    name = resp.name
    return name


submit_job("acme", "us-central1", "gcr.io/acme/jobber:1", "acme-jobs", "exp1", "train.py", None,
           {"lr": "0.1", "epochs": "3"}, "n1-standard-8", "NVIDIA_TESLA_T4", 1, job_name="jobber-exp1",
           service_account="trainer@acme.iam.gserviceaccount.com")
