# written here: a dict of hpt parameter specs given one more parameter after its assignment; trainjobs reads such a
# value from its one assignment, so the change is refused by name (before, the second parameter was left out).
# expect: hpt_params_changed_after.py:15:60: aiplatform.HyperparameterTuningJob(parameter_spec=...): params holds the SDK's forms
# expect: is changed after its assignment at hpt_params_changed_after.py:12:10: params is changed at hpt_params_changed_after.py, line 13
from google.cloud import aiplatform
from google.cloud.aiplatform import hyperparameter_tuning as hpt

aiplatform.init(project="p", location="us-central1", staging_bucket="gs://b")
job = aiplatform.CustomJob(display_name="j", worker_pool_specs=[{
    "machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
    "container_spec": {"image_uri": "us-docker.pkg.dev/p/r/i:1"}}])
params = {"lr": hpt.DoubleParameterSpec(min=0.001, max=0.1, scale="log")}
params["batch"] = hpt.DiscreteParameterSpec(values=[16, 32], scale=None)
hp_job = aiplatform.HyperparameterTuningJob(display_name="h", custom_job=job, metric_spec={"acc": "maximize"},
                                            parameter_spec=params, max_trial_count=4, parallel_trial_count=2)
hp_job.run()
