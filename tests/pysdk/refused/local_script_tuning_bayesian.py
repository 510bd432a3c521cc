# source: find_string id 24904560034, a public guide's run_hyperparameter_tuning(): CustomJob.from_local_script(
#   script_path='trainer/task.py', requirements, machine_type, a T4) tuned by HyperparameterTuningJob(...,
#   search_algorithm='bayesian', labels), run with timeout=7200. The SDK knows None (Bayesian), 'grid' and 'random':
#   'bayesian' raises KeyError before the job is built.
# adapted: the function's body at top level; the script a stand-in (tests/pysdk/local_script/mnist_task.py, next
#   to this folder); one metric.
# expect: local_script_tuning_bayesian.py:31:22: error: 'bayesian' is not allowed for search_algorithm
# expect: allowed: one of: null, grid, random
from google.cloud import aiplatform
from google.cloud.aiplatform import hyperparameter_tuning as hpt

aiplatform.init(project="my-project", location="us-central1", staging_bucket="gs://my-bucket")

custom_job = aiplatform.CustomJob.from_local_script(
    display_name="tf-hpt",
    script_path="../local_script/mnist_task.py",
    container_uri="us-docker.pkg.dev/vertex-ai/training/tf-gpu.2-17.py310:latest",
    requirements=["pandas", "scikit-learn"],
    replica_count=1,
    machine_type="n1-standard-4",
    accelerator_type="NVIDIA_TESLA_T4",
    accelerator_count=1,
)
hp_job = aiplatform.HyperparameterTuningJob(
    display_name="tf-hpt-hp-tuning",
    custom_job=custom_job,
    metric_spec={"accuracy": "maximize"},
    parameter_spec={"learning_rate": hpt.DoubleParameterSpec(min=0.0001, max=0.1, scale="log")},
    max_trial_count=20,
    parallel_trial_count=5,
    search_algorithm="bayesian",
    labels={"job-type": "hp-tuning"},
)
hp_job.run(sync=True, timeout=7200)
