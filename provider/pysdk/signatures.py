"""The SDK's callables trainjobs reads, with their parameters in the SDK's order (positional binding).

Each table is the installed SDK's own signature (google-cloud-aiplatform 2.7: jobs.py, initializer.py,
hyperparameter_tuning.py, training_jobs.py); tests/pysdk/test_signatures.py compares them with
``inspect.signature`` so a new SDK argument is noticed, not dropped.
"""

from __future__ import annotations

import ast

AIP = "google.cloud.aiplatform"
HPT = f"{AIP}.hyperparameter_tuning"

INIT = ("project", "location", "experiment", "experiment_description", "experiment_tensorboard", "staging_bucket",
        "credentials", "encryption_spec_key_name", "network", "service_account", "api_endpoint", "api_key",
        "api_transport", "request_metadata")
CUSTOM_JOB = ("display_name", "worker_pool_specs", "base_output_dir", "project", "location", "credentials", "labels",
              "encryption_spec_key_name", "staging_bucket", "persistent_resource_id")
CUSTOM_JOB_RUN = ("service_account", "network", "timeout", "restart_job_on_worker_restart", "enable_web_access",
                  "experiment", "experiment_run", "tensorboard", "sync", "create_request_timeout", "disable_retries",
                  "persistent_resource_id", "scheduling_strategy", "max_wait_duration", "psc_interface_config")
CUSTOM_JOB_SUBMIT = tuple(p for p in CUSTOM_JOB_RUN if p != "sync")  # keyword-only in the SDK
TUNING_JOB = ("display_name", "custom_job", "metric_spec", "parameter_spec", "max_trial_count", "parallel_trial_count",
              "max_failed_trial_count", "search_algorithm", "measurement_selection", "project", "location",
              "credentials", "labels", "encryption_spec_key_name")
TUNING_JOB_RUN = ("service_account", "network", "timeout", "restart_job_on_worker_restart", "enable_web_access",
                  "tensorboard", "sync", "create_request_timeout", "disable_retries", "scheduling_strategy",
                  "max_wait_duration")
LOCAL_SCRIPT = ("display_name", "script_path", "container_uri", "enable_autolog", "args", "requirements",
                "environment_variables", "replica_count", "machine_type", "accelerator_type", "accelerator_count",
                "boot_disk_type", "boot_disk_size_gb", "reduction_server_replica_count",
                "reduction_server_machine_type", "reduction_server_container_uri", "base_output_dir", "project",
                "location", "credentials", "labels", "encryption_spec_key_name", "staging_bucket",
                "persistent_resource_id", "tpu_topology")
# Parameters without a default: the SDK raises TypeError when one is missing.
REQUIRED = {"CustomJob": ("display_name", "worker_pool_specs"),
            "CustomJob.from_local_script": ("display_name", "script_path", "container_uri"),
            "HyperparameterTuningJob": ("display_name", "custom_job", "metric_spec", "parameter_spec",
                                        "max_trial_count", "parallel_trial_count"),
            "DoubleParameterSpec": ("min", "max", "scale"), "IntegerParameterSpec": ("min", "max", "scale"),
            "DiscreteParameterSpec": ("values", "scale"), "CategoricalParameterSpec": ("values",),
            "CustomTrainingJob": ("display_name", "script_path", "container_uri"),
            "CustomContainerTrainingJob": ("display_name", "container_uri"),
            "CustomPythonPackageTrainingJob": ("display_name", "python_package_gcs_uri", "python_module_name",
                                               "container_uri")}
# Parameters taken by keyword only (aiplatform.init and CustomJob.submit take no positional argument).
KEYWORD_ONLY = ("init", "CustomJob.submit")
# Arguments only named in a note (no spec carries them: how the SDK's own tracking and client are set up), whose
# value may be one known only when the code runs (PROJECT_ID from the environment); by signature, else "project".
NOTED = {"init": ("project", "experiment", "experiment_description", "experiment_tensorboard")}
# Arguments trainjobs names in a note without reading their value (how the script reaches Vertex AI).
NOT_READ = ("credentials", "sync", "create_request_timeout", "api_endpoint", "api_key", "api_transport",
            "request_metadata")

_MODEL_ARGS = ("model_serving_container_image_uri", "model_serving_container_predict_route",
               "model_serving_container_health_route", "model_serving_container_command",
               "model_serving_container_args", "model_serving_container_environment_variables",
               "model_serving_container_ports", "model_description", "model_instance_schema_uri",
               "model_parameters_schema_uri", "model_prediction_schema_uri", "explanation_metadata",
               "explanation_parameters", "project", "location", "credentials", "labels",
               "training_encryption_spec_key_name", "model_encryption_spec_key_name", "staging_bucket")
CONTAINER_TRAINING_JOB = ("display_name", "container_uri", "command", *_MODEL_ARGS)
SCRIPT_TRAINING_JOB = ("display_name", "script_path", "container_uri", "requirements", *_MODEL_ARGS)
PACKAGE_TRAINING_JOB = ("display_name", "python_package_gcs_uri", "python_module_name", "container_uri", *_MODEL_ARGS)
PIPELINE_RUN = ("dataset", "annotation_schema_uri", "model_display_name", "model_labels", "model_id", "parent_model",
                "is_default_version", "model_version_aliases", "model_version_description", "base_output_dir",
                "service_account", "network", "bigquery_destination", "args", "environment_variables",
                "replica_count", "machine_type", "accelerator_type", "accelerator_count", "boot_disk_type",
                "boot_disk_size_gb", "reduction_server_replica_count", "reduction_server_machine_type",
                "reduction_server_container_uri", "training_fraction_split", "validation_fraction_split",
                "test_fraction_split", "training_filter_split", "validation_filter_split", "test_filter_split",
                "predefined_split_column_name", "timestamp_split_column_name", "timeout",
                "restart_job_on_worker_restart", "enable_web_access", "enable_dashboard_access", "tensorboard", "sync",
                "create_request_timeout", "disable_retries", "persistent_resource_id", "tpu_topology",
                "scheduling_strategy", "reservation_affinity_type", "reservation_affinity_key",
                "reservation_affinity_values", "max_wait_duration", "psc_interface_config")

# A TrainingPipeline's dataset arguments: refused by name (pipelines.py), their values never read.
DATASET_ARGS = ("dataset", "annotation_schema_uri", "bigquery_destination", "training_fraction_split",
                "validation_fraction_split", "test_fraction_split", "training_filter_split", "validation_filter_split",
                "test_filter_split", "predefined_split_column_name", "timestamp_split_column_name")

PARAMETER_SPECS = {
    "DoubleParameterSpec": ("min", "max", "scale", "conditional_parameter_spec", "parent_values"),
    "IntegerParameterSpec": ("min", "max", "scale", "conditional_parameter_spec", "parent_values"),
    "DiscreteParameterSpec": ("values", "scale", "conditional_parameter_spec", "parent_values"),
    "CategoricalParameterSpec": ("values", "conditional_parameter_spec", "parent_values"),
}

# Where the SDK exports each class: aiplatform.X, and the module that defines it.
_HOMES = {"CustomJob": ("jobs",), "HyperparameterTuningJob": ("jobs",),
          "CustomTrainingJob": ("training_jobs",), "CustomContainerTrainingJob": ("training_jobs",),
          "CustomPythonPackageTrainingJob": ("training_jobs",)}
TRAINING_PIPELINES = ("CustomTrainingJob", "CustomContainerTrainingJob", "CustomPythonPackageTrainingJob")


SIGNATURES = {"init": INIT, "CustomJob": CUSTOM_JOB, "CustomJob.run": CUSTOM_JOB_RUN,
              "CustomJob.submit": CUSTOM_JOB_SUBMIT, "CustomJob.from_local_script": LOCAL_SCRIPT,
              "HyperparameterTuningJob": TUNING_JOB, "HyperparameterTuningJob.run": TUNING_JOB_RUN,
              "CustomTrainingJob": SCRIPT_TRAINING_JOB, "CustomTrainingJob.run": PIPELINE_RUN,
              "CustomTrainingJob.submit": PIPELINE_RUN,
              "CustomContainerTrainingJob": CONTAINER_TRAINING_JOB, "CustomContainerTrainingJob.run": PIPELINE_RUN,
              "CustomContainerTrainingJob.submit": PIPELINE_RUN, "CustomPythonPackageTrainingJob": PACKAGE_TRAINING_JOB,
              "CustomPythonPackageTrainingJob.run": PIPELINE_RUN, **PARAMETER_SPECS}


def sdk_class(qualified: str | None) -> str | None:
    """``CustomJob`` for google.cloud.aiplatform.CustomJob (or .jobs.CustomJob); None for anything else."""
    if qualified is None:
        return None
    for name, modules in _HOMES.items():
        if qualified == f"{AIP}.{name}" or any(qualified == f"{AIP}.{m}.{name}" for m in modules):
            return name
    return None


def parameter_class(qualified: str | None) -> str | None:
    """``DoubleParameterSpec`` for hpt.DoubleParameterSpec (or aiplatform.hyperparameter_tuning...); else None."""
    if qualified is None or not qualified.startswith(HPT + "."):
        return None
    name = qualified.removeprefix(HPT + ".")
    return name if name in PARAMETER_SPECS else None


def is_init(qualified: str | None) -> bool:
    """``aiplatform.init`` by any of its names (``vertexai.init`` is the same method of the same config)."""
    return qualified in (f"{AIP}.init", f"{AIP}.initializer.global_config.init", "vertexai.init")


def imported_in(block: ast.stmt, func: ast.expr) -> str | None:
    """``func``'s dotted name through an import inside ``block`` (a function that imports aiplatform itself, as a
    Kubeflow component's body does), so that a job it builds, never run, is named where it is."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.insert(0, func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    for sub in ast.walk(block):
        for alias in getattr(sub, "names", []) if isinstance(sub, (ast.Import, ast.ImportFrom)) else []:
            bound = alias.asname or alias.name.split(".")[0]
            if bound == func.id and isinstance(sub, ast.ImportFrom) and sub.module and not sub.level:
                return ".".join([sub.module, alias.name, *parts])
            if bound == func.id and isinstance(sub, ast.Import):
                return ".".join([alias.name if alias.asname else bound, *parts])
    return None
