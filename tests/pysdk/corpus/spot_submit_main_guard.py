# source: find_string id 71088940149, a public script that submits a "directional bake-off" on Vertex AI:
#   from google.cloud.aiplatform_v1.types import Scheduling; aiplatform.init(project, location, staging_bucket);
#   a pool with accelerator_type ACCELERATOR_TYPE_UNSPECIFIED and accelerator_count 0, a pd-standard disk, command
#   ["bash", "-c"] with the script as args; job.submit(timeout=7_200, restart_job_on_worker_restart=False,
#   scheduling_strategy=Scheduling.Strategy.SPOT).
# adapted: the submit function's body is under if __name__ == "__main__": (it was a subcommand of argparse); the
#   display name is fixed (it added int(time.time())); the remote command is shortened; os.getenv defaults are
#   literals; the package build and upload are left out; init also names a network and a service account (submit()
#   takes init's service account, and not its network).
from google.cloud import aiplatform
from google.cloud.aiplatform_v1.types import Scheduling

PROJECT_ID = "gen-lang-client-0699310395"
REGION = "us-central1"
BUCKET_NAME = "edge-artifacts-gen-lang-client-0699310395"
BUCKET_URI = f"gs://{BUCKET_NAME}"
PACKAGE_URI = f"{BUCKET_URI}/packages/edge_directional_bakeoff_v2.tar.gz"
CONTAINER_URI = "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-12.py310:latest"

if __name__ == "__main__":
    command = (
        "set -euo pipefail && "
        f"gsutil cp {PACKAGE_URI} /tmp/package.tar.gz && "
        "python3 edge/tools/run_directional_bakeoff.py"
    )
    spec = [{
        "machine_spec": {
            "machine_type": "n1-standard-8",
            "accelerator_type": "ACCELERATOR_TYPE_UNSPECIFIED",
            "accelerator_count": 0,
        },
        "replica_count": 1,
        "disk_spec": {"boot_disk_type": "pd-standard", "boot_disk_size_gb": 100},
        "container_spec": {"image_uri": CONTAINER_URI, "command": ["bash", "-c"], "args": [command]},
    }]
    aiplatform.init(project=PROJECT_ID, location=REGION, staging_bucket=BUCKET_URI,
                    network="projects/123456789/global/networks/edge-vpc",
                    service_account=f"edge-runner@{PROJECT_ID}.iam.gserviceaccount.com")
    job = aiplatform.CustomJob(display_name="directional-bakeoff-v2", worker_pool_specs=spec)
    job.submit(timeout=7_200, restart_job_on_worker_restart=False, scheduling_strategy=Scheduling.Strategy.SPOT)
