"""An Airflow training operator's arguments, as its hook passes them on (apache-airflow-providers-google).

Each operator takes its job's arguments by keyword and its hook hands them on: the Vertex AI operators
(operators/vertex_ai/custom_job.py, hyperparameter_tuning_job.py; hooks of the same names) build the SDK's
CustomContainerTrainingJob / CustomPythonPackageTrainingJob / CustomTrainingJob with ``project=project_id``,
``location=region`` and the class's own arguments, then ``.run(...)`` with the run's (``dataset_id`` becomes the
run's dataset); CreateHyperparameterTuningJobOperator builds ``CustomJob(display_name, worker_pool_specs,
base_output_dir, labels=custom_job_labels, encryption_spec_key_name=custom_job_encryption_spec_key_name,
staging_bucket)`` and ``HyperparameterTuningJob(... labels=hyperparameter_tuning_job_labels, ...)``, then
``.run(service_account, network, timeout, restart_job_on_worker_restart, enable_web_access, tensorboard)``.
MLEngineStartTrainingJobOperator (and airflow.contrib's MLEngineTrainingOperator) sends AI Platform's
``projects.jobs.create`` body: ``{"jobId": job_id (normalized), "trainingInput": {...}, "labels": labels}``.
Here each written argument is put where the hook puts it (binding.Reader reads its value): the SDK's
``Call`` objects for provider/pysdk's mappings, or the request body for convert's legacy reading.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

# BaseOperator's own arguments, and the Google operators' connection and scheduling ones: how Airflow runs the
# task, not the job (accepted without a word).
AIRFLOW_ONLY = frozenset((
    "task_id", "owner", "email", "email_on_retry", "email_on_failure", "retries", "retry_delay",
    "retry_exponential_backoff", "max_retry_delay", "start_date", "end_date", "depends_on_past",
    "ignore_first_depends_on_past", "wait_for_past_depends_before_skipping", "wait_for_downstream", "dag", "params",
    "default_args", "priority_weight", "weight_rule", "queue", "pool", "pool_slots", "sla", "execution_timeout",
    "on_execute_callback", "on_failure_callback", "on_success_callback", "on_retry_callback", "on_skipped_callback",
    "pre_execute", "post_execute", "trigger_rule", "resources", "run_as_user", "task_concurrency",
    "max_active_tis_per_dag", "max_active_tis_per_dagrun", "executor", "executor_config", "do_xcom_push",
    "multiple_outputs", "inlets", "outlets", "task_group", "doc", "doc_md", "doc_json", "doc_yaml", "doc_rst",
    "logger_name", "allow_nested_operators", "map_index_template", "provide_context", "templates_dict",
    "gcp_conn_id", "google_cloud_conn_id", "impersonation_chain", "delegate_to", "deferrable", "poll_interval",
    "cancel_on_kill", "wait_job_completed", "sync"))

_MODEL_CTOR = ("model_serving_container_image_uri", "model_serving_container_predict_route",
               "model_serving_container_health_route", "model_serving_container_command",
               "model_serving_container_args", "model_serving_container_environment_variables",
               "model_serving_container_ports", "model_description", "model_instance_schema_uri",
               "model_parameters_schema_uri", "model_prediction_schema_uri", "model_encryption_spec_key_name")
# CustomTrainingJobBaseOperator's arguments the hook gives the class, and those it gives run()
_CTOR = ("display_name", "container_uri", *_MODEL_CTOR, "labels", "training_encryption_spec_key_name",
         "staging_bucket")
_RUN = ("annotation_schema_uri", "model_display_name", "model_labels", "base_output_dir", "service_account", "network",
        "bigquery_destination", "args", "environment_variables", "replica_count", "machine_type", "accelerator_type",
        "accelerator_count", "boot_disk_type", "boot_disk_size_gb", "training_fraction_split",
        "validation_fraction_split", "test_fraction_split", "training_filter_split", "validation_filter_split",
        "test_filter_split", "predefined_split_column_name", "timestamp_split_column_name", "tensorboard",
        "psc_interface_config", "parent_model", "is_default_version", "model_version_aliases",
        "model_version_description")
_OWN = {"CustomContainerTrainingJob": ("command",),
        "CustomPythonPackageTrainingJob": ("python_package_gcs_uri", "python_module_name"),
        "CustomTrainingJob": ("script_path", "requirements")}
# what reaches only the Model the TrainingPipeline uploads (named in a note, never sent): read only where known
MODEL_ONLY = frozenset((*_MODEL_CTOR, "model_display_name", "model_labels", "parent_model", "is_default_version",
                        "model_version_aliases", "model_version_description"))
# what only reaches the TrainingPipeline's dataset: not sent without a dataset (the SDK reads a split with one only)
SPLITS = ("annotation_schema_uri", "bigquery_destination", "training_fraction_split", "validation_fraction_split",
          "test_fraction_split", "training_filter_split", "validation_filter_split", "test_filter_split",
          "predefined_split_column_name", "timestamp_split_column_name")

# CreateHyperparameterTuningJobOperator: argument -> (the SDK call it reaches: job, tuning or run; its name there)
TUNING = {"display_name": ("tuning", "display_name"), "metric_spec": ("tuning", "metric_spec"),
          "parameter_spec": ("tuning", "parameter_spec"), "max_trial_count": ("tuning", "max_trial_count"),
          "parallel_trial_count": ("tuning", "parallel_trial_count"),
          "max_failed_trial_count": ("tuning", "max_failed_trial_count"),
          "search_algorithm": ("tuning", "search_algorithm"), "measurement_selection": ("tuning", "measurement_selection"),
          "hyperparameter_tuning_job_labels": ("tuning", "labels"),
          "hyperparameter_tuning_job_encryption_spec_key_name": ("tuning", "encryption_spec_key_name"),
          "worker_pool_specs": ("job", "worker_pool_specs"), "base_output_dir": ("job", "base_output_dir"),
          "custom_job_labels": ("job", "labels"),
          "custom_job_encryption_spec_key_name": ("job", "encryption_spec_key_name"),
          "staging_bucket": ("job", "staging_bucket"), "service_account": ("run", "service_account"),
          "network": ("run", "network"), "timeout": ("run", "timeout"),
          "restart_job_on_worker_restart": ("run", "restart_job_on_worker_restart"),
          "enable_web_access": ("run", "enable_web_access"), "tensorboard": ("run", "tensorboard")}

# MLEngineStartTrainingJobOperator: argument -> where execute() puts it in the body (a trainingInput key, or top level)
MLENGINE = {"job_id": ("jobId",), "region": ("trainingInput", "region"), "package_uris": ("trainingInput", "packageUris"),
            "training_python_module": ("trainingInput", "pythonModule"), "training_args": ("trainingInput", "args"),
            "scale_tier": ("trainingInput", "scaleTier"), "master_type": ("trainingInput", "masterType"),
            "master_config": ("trainingInput", "masterConfig"), "runtime_version": ("trainingInput", "runtimeVersion"),
            "python_version": ("trainingInput", "pythonVersion"), "job_dir": ("trainingInput", "jobDir"),
            "service_account": ("trainingInput", "serviceAccount"),
            "hyperparameters": ("trainingInput", "hyperparameters"), "labels": ("labels",)}


# Each operator's template_fields (the newest provider's): only these does Airflow render with Jinja before the hook
# reads them; a template in any other argument is sent as written.
_VERTEX_TEMPLATED = ("region", "parent_model", "dataset_id", "impersonation_chain", "display_name", "model_display_name")
TEMPLATED = {"CustomContainerTrainingJob": frozenset((*_VERTEX_TEMPLATED, "command")),
             "CustomPythonPackageTrainingJob": frozenset(_VERTEX_TEMPLATED),
             "CustomTrainingJob": frozenset((*_VERTEX_TEMPLATED, "script_path", "requirements")),
             "HyperparameterTuningJob": frozenset(("region", "project_id", "impersonation_chain")),
             "mlengine": frozenset(("project_id", "job_id", "region", "package_uris", "training_python_module",
                                    "training_args", "scale_tier", "master_type", "master_config", "runtime_version",
                                    "python_version", "job_dir", "service_account", "hyperparameters",
                                    "impersonation_chain"))}


def vertex_place(kind: str, name: str) -> tuple[str, str] | None:
    """Where a Vertex operator of ``kind`` (the SDK class its hook builds) puts its argument ``name``: ("ctor" or
    "run" or "job" or "tuning", the SDK's name); None when the operator takes no such argument."""
    if kind == "HyperparameterTuningJob":
        return TUNING.get(name) or ({"project_id": ("tuning", "project"), "region": ("tuning", "location")}.get(name))
    if name in _CTOR or name in _OWN[kind]:
        return "ctor", name
    if name in _RUN:
        return "run", name
    return {"project_id": ("ctor", "project"), "region": ("ctor", "location"),
            "dataset_id": ("run", "dataset")}.get(name)


def takes(kind: str) -> list[str]:
    """The job arguments an operator of ``kind`` takes (for the message refusing another)."""
    if kind == "mlengine":
        return ["project_id", *MLENGINE, "mode"]
    if kind == "HyperparameterTuningJob":
        return ["project_id", "region", *TUNING]
    return ["project_id", "region", *_CTOR, *_OWN[kind], "dataset_id", *_RUN]


def job_id(written: str) -> str:
    """The operator's _normalize_mlengine_job_id: "z_" before a leading digit, each run of other characters than
    letters and digits as "_" (a template, already refused, aside)."""
    job = f"z_{written}" if written[:1].isdigit() else written
    return re.sub(r"[^0-9a-zA-Z]+", "_", job)


def templated(value: object) -> str | None:
    """The first Jinja template in a value (a str, or inside a list or dict), else None."""
    if isinstance(value, str):
        found = re.search(r"\{\{.*?\}\}|\{%.*?%\}", value, re.S)
        return found.group(0) if found else None
    items = list(value.items()) if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else []
    for item in items:
        inner = templated(item)
        if inner:
            return inner
    return None


def rendered(value: object, variables: Mapping[str, str]) -> object:
    """``value`` with each ``{{ var.value.NAME }}`` (Airflow's Variable NAME, as Jinja renders it) that ``variables``
    (--var) gives as that value; ``{{ var.json.NAME }}`` alone in a str as its JSON."""
    import json

    if isinstance(value, str):
        whole = re.fullmatch(r"\{\{\s*var\.json\.(\w+)\s*\}\}", value)
        if whole is not None and whole.group(1) in variables:
            return json.loads(variables[whole.group(1)])
        return re.sub(r"\{\{\s*var\.value\.(\w+)\s*\}\}",
                      lambda m: variables.get(m.group(1), m.group(0)), value)
    if isinstance(value, dict):
        return {k: rendered(v, variables) for k, v in value.items()}
    if isinstance(value, list):
        return [rendered(v, variables) for v in value]
    return value


def reads_variable(node: ast.AST) -> str | None:
    """The name of the Airflow Variable ``node`` reads (``Variable.get("NAME", ...)``), else None."""
    for sub in ast.walk(node):
        if (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "get"
                and ast.unparse(sub.func.value).endswith("Variable") and sub.args
                and isinstance(sub.args[0], ast.Constant)):
            return str(sub.args[0].value)
    return None
