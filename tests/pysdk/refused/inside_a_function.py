# source: find_string id 6387979642 (as corpus/gpu_test_disk_spec.py): the job is built inside submit_gpu_test_job(),
#   called from main() under the main guard (corpus/gpu_test_function_main.py converts it, called once).
# adapted: shortened to the calls; the function is called in a loop over two GPUs, so it launches two jobs (the
#   loop's items are known: it is read turn by turn, as Python runs it).
# expect: the script launches several jobs
# expect: CustomJob at inside_a_function.py:15:11 (2 times: the code runs it more than once)
from google.cloud import aiplatform

aiplatform.init(project="b2b-recs", location="europe-central2")


def submit(gpu_type: str) -> None:
    pools = [{"machine_spec": {"machine_type": "n1-standard-8", "accelerator_type": gpu_type, "accelerator_count": 1},
              "replica_count": 1, "container_spec": {"image_uri": "gcr.io/b2b-recs/gpu:latest"}}]
    job = aiplatform.CustomJob(display_name="gpu-test", worker_pool_specs=pools, staging_bucket="gs://b2b-staging")
    job.run()


if __name__ == "__main__":
    for gpu in ("NVIDIA_TESLA_T4", "NVIDIA_L4"):
        submit(gpu)
