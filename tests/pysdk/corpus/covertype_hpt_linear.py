# source: find_string id 9908411, a public Kubeflow component (covertype, asl-ml-immersion style) that tunes
#   scikit-learn: a container_spec with the dataset paths and --hptune as args, CustomJob(display_name,
#   worker_pool_specs), HyperparameterTuningJob(metric_spec={"accuracy": "maximize"}, parameter_spec={"alpha":
#   hpt.DoubleParameterSpec(min=1.0e-4, max=1.0e-1, scale="linear"), "max_iter": hpt.DiscreteParameterSpec(
#   values=[1, 2], scale="linear")}, max_trial_count, parallel_trial_count), hp_job.run().
# adapted: the component's body at top level; its parameters (project, region, paths, image, counts) are literals;
#   aiplatform.init(staging_bucket=...) added, as the component's environment set it.
from google.cloud import aiplatform
from google.cloud.aiplatform import hyperparameter_tuning as hpt

project = "my-project"
location = "us-central1"
training_file_path = "gs://my-project-kfp-artifact-store/data/training/dataset.csv"
validation_file_path = "gs://my-project-kfp-artifact-store/data/validation/dataset.csv"
max_trial_count = 5
parallel_trial_count = 5

aiplatform.init(project=project, location=location, staging_bucket="gs://my-project-kfp-artifact-store/staging")

worker_pool_specs = [
    {
        "machine_spec": {"machine_type": "n1-standard-4"},
        "replica_count": 1,
        "container_spec": {
            "image_uri": f"gcr.io/{project}/trainer_image_covertype_vertex:latest",
            "args": [
                f"--training_dataset_path={training_file_path}",
                f"--validation_dataset_path={validation_file_path}",
                "--hptune",
            ],
        },
    }
]

custom_job = aiplatform.CustomJob(display_name="covertype_kfp_trial_job", worker_pool_specs=worker_pool_specs)

hp_job = aiplatform.HyperparameterTuningJob(
    display_name="covertype_kfp_tuning_job",
    custom_job=custom_job,
    metric_spec={"accuracy": "maximize"},
    parameter_spec={
        "alpha": hpt.DoubleParameterSpec(min=1.0e-4, max=1.0e-1, scale="linear"),
        "max_iter": hpt.DiscreteParameterSpec(values=[1, 2], scale="linear"),
    },
    max_trial_count=max_trial_count,
    parallel_trial_count=parallel_trial_count,
)

hp_job.run()
