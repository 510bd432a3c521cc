# source: find_string id 13116973799, a public ARC-AGI pre-training launcher (2025): the accelerator's family read
#   from a dict, a `match` on it choosing run()'s extra options (kw = dict(tpu_topology=..., boot_disk_type=...) for a
#   TPU, kw = dict(scheduling_strategy=...SPOT) for a GPU, raise otherwise), run(machine_type=dict(...)[accelerator],
#   accelerator_type=dict(...).get(accelerator, "ACCELERATOR_TYPE_UNSPECIFIED"), **kw), args a list with a list
#   comprehension.
# adapted: the run name without the clock; args the file's tune_task (its pretraining args are a JSON dump of the
#   repository's config classes); the dry-run branch and a commented-out option shortened or left out.
#   Before: "run(**...) cannot be known: kw is set inside the match" (a match on a known value was not followed).
import sys

from google.cloud import aiplatform, aiplatform_v1

dry_run = False
accelerator = "L4"
accelerator_count = 4
run_name = f"vertex-ai-mae-tiny-{accelerator_count}x{accelerator}"

accelerator_type = dict(
    L4="gpu",
    H100="gpu",
    RTX6000="gpu",
    v6e="tpu",
)[accelerator]

match accelerator_type:
    case "tpu":
        kw = dict(
            tpu_topology={
                1: "1x1",
                4: "2x2",
                8: "2x4",
            }[accelerator_count],
            boot_disk_type="hyperdisk-balanced",  # needed for v6e
        )
    case "gpu":
        kw = dict(
            scheduling_strategy=aiplatform_v1.types.custom_job.Scheduling.Strategy.SPOT,
        )
    case _:
        raise KeyError(accelerator_type)

tune_task = (
    ["tune-batch-size"] + ["--resolution=0.01"] + [f"--image-sizes={n}" for n in [20]]
)
args = tune_task

env = dict(
    XLA_PYTHON_CLIENT_MEM_FRACTION="1.00",
    GCP_PROJECT_ID="deep-time-358505",
)

if dry_run:
    sys.exit(0)

job = aiplatform.CustomContainerTrainingJob(
    display_name=run_name,
    location="europe-west4",
    project="deep-time-358505",
    container_uri=f"europe-west4-docker.pkg.dev/deep-time-358505/arc-agi/arc25:{accelerator_type}",
    staging_bucket="gs://576e2361-arc-agi-2",
)

job.run(
    service_account="arc-agi-2-training@deep-time-358505.iam.gserviceaccount.com",
    machine_type=dict(
        v6e=f"ct6e-standard-{accelerator_count}t",
        L4=f"g2-standard-{12*accelerator_count}",
        H100="a3-highgpu-1g",
        RTX6000="g4-standard-48",
    )[accelerator],
    accelerator_type=dict(
        L4="NVIDIA_L4",
        H100="NVIDIA_H100_80GB",
        RTX6000="NVIDIA_RTX_PRO_6000",
    ).get(accelerator, "ACCELERATOR_TYPE_UNSPECIFIED"),
    accelerator_count=accelerator_count,
    sync=True,
    args=args,
    environment_variables=env,
    **kw,
)
