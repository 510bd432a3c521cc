# source: find_string id 13656554681, a public ARC-AGI batch-size tuning launcher: CustomContainerTrainingJob on a
#   TPU v6e (machine_type ct6e-standard-1t, tpu_topology 1x1, boot_disk_type hyperdisk-balanced, accelerator_count
#   with no accelerator_type), its args a list plus a list comprehension over the image sizes.
# adapted: the image's sha256 digest and the service account's project shortened; a commented-out option left out.
#   Before: refused, "[f'--image-sizes={n}' for n in [...]], an expression trainjobs does not evaluate".
from google.cloud import aiplatform, aiplatform_v1  # noqa: F401

job = aiplatform.CustomContainerTrainingJob(
    display_name="arc-agi-vision2-batch-tuning-tpu-v6e",
    location="europe-west4",
    project="deep-time-358505",
    container_uri="europe-west4-docker.pkg.dev/deep-time-358505/arc-agi/arc25@sha256:9e9e6dead23ccbcb",
    staging_bucket="gs://576e2361-arc-agi-2",
)

job.run(
    service_account="arc-agi-2-training@deep-time-358505.iam.gserviceaccount.com",
    machine_type="ct6e-standard-1t",
    tpu_topology="1x1",
    boot_disk_type="hyperdisk-balanced",  # needed for v6e
    accelerator_count=1,
    args=["tune-batch-size"] + [f"--image-sizes={n}" for n in [12, 16, 20, 24, 30]],
)
