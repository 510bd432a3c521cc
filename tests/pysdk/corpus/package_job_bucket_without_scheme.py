# source: find_string id 68849840684, a public launcher (aic_risk_modeling) that runs
#   aiplatform.CustomPythonPackageTrainingJob(display_name, python_package_gcs_uri, python_module_name,
#   container_uri).run(machine_type, accelerator_type, accelerator_count, boot_disk_size_gb, args, sync=False) after
#   aiplatform.init(project=google.auth.default()[1], location='us-east1', staging_bucket='aic-amazon'): a staging
#   bucket named without gs://, which the SDK reads as gs://aic-amazon.
# adapted: the two argparse positionals (config_json, display_name) are literals; the project is a literal (the
#   oracle runs the script without credentials; an unknown project is tests/pysdk/test_mapping.py's); the
#   wait_for_resource_creation / print / os._exit lines after run() are left out.
from google.cloud import aiplatform

location = 'us-east1'
bucket = 'aic-amazon'
config_json = 'gs://aic-amazon/configs/risk.json'
display_name = 'risk-train'

aiplatform.init(project='aic-project', location=location, staging_bucket=bucket)

job = aiplatform.CustomPythonPackageTrainingJob(
    display_name=display_name,
    python_package_gcs_uri="gs://aic-amazon/python_packages/aic_risk_modeling-0.3.3.tar.gz",
    python_module_name="aic_risk_modeling.train.trainer",
    container_uri="us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-5.py310:latest",
)
job.run(
    machine_type="n1-highmem-16",
    accelerator_type="NVIDIA_TESLA_T4",
    accelerator_count=1,
    boot_disk_size_gb=200,
    args=[
        f"--config_path={config_json}",
    ],
    sync=False,
)
