# source: find_string id 5632994, the SDK's own unit test of HyperparameterTuningJob
#   (googleapis/python-aiplatform tests/unit/aiplatform/test_hyperparameter_tuning_job.py): parameter_spec with
#   Double, Integer, Categorical and a DiscreteParameterSpec whose conditional_parameter_spec holds two children
#   (each with parent_values), max_failed_trial_count, search_algorithm, measurement_selection, labels; run() with
#   service_account, network, timeout, restart_job_on_worker_restart, create_request_timeout, disable_retries,
#   max_wait_duration.
# adapted: the test's _TEST_* constants are literal values of our own choosing; the mocks left out; run(sync=True)
#   instead of the parametrized sync; max_wait_duration left out (trainjobs refuses it without FLEX_START).
from google.cloud import aiplatform
from google.cloud.aiplatform import hyperparameter_tuning as hpt

aiplatform.init(project="test-project", location="us-central1", staging_bucket="gs://test-staging-bucket")

custom_job = aiplatform.CustomJob(
    display_name="my_job_display_name",
    worker_pool_specs=[{
        "machine_spec": {"machine_type": "n1-standard-4", "accelerator_type": "NVIDIA_TESLA_T4", "accelerator_count": 1},
        "replica_count": 1,
        "container_spec": {"image_uri": "gcr.io/test-project/trainer:latest", "command": [], "args": []},
    }],
    base_output_dir="gs://test-staging-bucket/base-output",
)

decay = hpt.DoubleParameterSpec(min=1e-07, max=1e-05, scale="linear", parent_values=[32, 64])
learning_rate = hpt.DoubleParameterSpec(min=1e-07, max=1e-05, scale="linear", parent_values=[4, 8, 16])

job = aiplatform.HyperparameterTuningJob(
    display_name="my_hp_job_display_name",
    custom_job=custom_job,
    metric_spec={"loss": "minimize"},
    parameter_spec={
        "lr": hpt.DoubleParameterSpec(min=0.001, max=0.1, scale="log"),
        "units": hpt.IntegerParameterSpec(min=4, max=1028, scale="linear"),
        "activation": hpt.CategoricalParameterSpec(values=["relu", "sigmoid", "elu", "selu", "tanh"]),
        "batch_size": hpt.DiscreteParameterSpec(
            values=[4, 8, 16, 32, 64],
            scale="linear",
            conditional_parameter_spec={"decay": decay, "learning_rate": learning_rate},
        ),
    },
    parallel_trial_count=3,
    max_trial_count=12,
    max_failed_trial_count=2,
    search_algorithm="random",
    measurement_selection="last",
    labels={"team": "ml"},
)

job.run(
    service_account="vinnys@my-project.iam.gserviceaccount.com",
    network="projects/123456789/global/networks/my-network",
    timeout=3600,
    restart_job_on_worker_restart=True,
    sync=True,
    create_request_timeout=None,
    disable_retries=False,
)
