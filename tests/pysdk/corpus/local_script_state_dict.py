# source: find_string id 1081430129, a public script whose run_vertex_job() calls aiplatform.init(project,
#   staging_bucket, location), aiplatform.CustomJob.from_local_script(display_name, container_uri=
#   "us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.1-13:latest", script_path="load-state-dict.py", args=[...],
#   machine_type, boot_disk_size_gb, requirements=["transformers"]) and runs it.
# adapted: top level, the function's parameters as literals; the script is tests/pysdk/local_script/
#   load_state_dict.py (a stand-in), its path from the repository root, where the tests run; machine n1-highmem-2.
from google.cloud import aiplatform

model_name = "bert-base-uncased"
aiplatform.init(project="state-dict-project", staging_bucket="gs://state-dict-bucket", location="us-central1")

job = aiplatform.CustomJob.from_local_script(
    display_name="load-state-dict",
    container_uri="us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.1-13:latest",
    script_path="tests/pysdk/local_script/load_state_dict.py",
    args=[f"--model-name={model_name}", "--state-dict-path=gs://state-dict-bucket/state.pt"],
    machine_type="n1-highmem-2",
    boot_disk_size_gb=200,
    requirements=["transformers"],
)
job.run()
