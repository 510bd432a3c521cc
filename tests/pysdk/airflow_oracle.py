"""The oracle for Airflow DAGs: the DAG file run by Python with a stand-in ``airflow`` package and the real SDK.

Airflow is not installed: every ``airflow.*`` module is a stand-in whose names are inert (a DAG is a context
manager, an operator does nothing, ``>>`` chains), except the training operators. Each of those does what its hook
does with its arguments, written here from apache-airflow-providers-google's source (hooks/vertex_ai/custom_job.py
``create_custom_*_training_job`` -> ``get_custom_*_training_job`` + ``_run_job``; hooks/vertex_ai/
hyperparameter_tuning_job.py ``create_hyperparameter_tuning_job``; operators/mlengine.py
MLEngineStartTrainingJobOperator.execute's ``training_request``), the DAG's default_args given as Airflow gives them
(to the parameters the operator takes and the call does not write). The Vertex AI operators run the real SDK with
sdk_oracle's recording client: the request the SDK sends is the oracle. MLEngine's body is recorded as built, for
convert's own reading of a request file (the legacy path) to be compared with.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from .sdk_oracle import Sent, _Client, _pipelines_job

_CTOR = ("display_name", "container_uri", "model_serving_container_image_uri", "model_serving_container_predict_route",
         "model_serving_container_health_route", "model_serving_container_command", "model_serving_container_args",
         "model_serving_container_environment_variables", "model_serving_container_ports", "model_description",
         "model_instance_schema_uri", "model_parameters_schema_uri", "model_prediction_schema_uri", "labels",
         "training_encryption_spec_key_name", "model_encryption_spec_key_name", "staging_bucket")
_RUN = ("dataset_id", "annotation_schema_uri", "model_display_name", "model_labels", "base_output_dir",
        "service_account", "network", "bigquery_destination", "args", "environment_variables", "replica_count",
        "machine_type", "accelerator_type", "accelerator_count", "boot_disk_type", "boot_disk_size_gb",
        "training_fraction_split", "validation_fraction_split", "test_fraction_split", "training_filter_split",
        "validation_filter_split", "test_filter_split", "predefined_split_column_name", "timestamp_split_column_name",
        "tensorboard", "parent_model", "is_default_version", "model_version_aliases", "model_version_description",
        "psc_interface_config")
_OWN = {"CreateCustomContainerTrainingJobOperator": ("CustomContainerTrainingJob", ("command",)),
        "CreateCustomPythonPackageTrainingJobOperator": ("CustomPythonPackageTrainingJob",
                                                         ("python_package_gcs_uri", "python_module_name")),
        "CreateCustomTrainingJobOperator": ("CustomTrainingJob", ("script_path", "requirements"))}
_TUNING = ("display_name", "metric_spec", "parameter_spec", "max_trial_count", "parallel_trial_count",
           "worker_pool_specs", "base_output_dir", "custom_job_labels", "custom_job_encryption_spec_key_name",
           "staging_bucket", "max_failed_trial_count", "search_algorithm", "measurement_selection",
           "hyperparameter_tuning_job_labels", "hyperparameter_tuning_job_encryption_spec_key_name", "service_account",
           "network", "timeout", "restart_job_on_worker_restart", "enable_web_access", "tensorboard", "sync",
           "wait_job_completed")
_MLENGINE = ("job_id", "region", "package_uris", "training_python_module", "training_args", "scale_tier",
             "master_type", "master_config", "runtime_version", "python_version", "job_dir", "service_account",
             "labels", "hyperparameters", "mode")
_BASE = ("task_id", "dag", "gcp_conn_id", "impersonation_chain", "delegate_to", "deferrable", "poll_interval",
         "retries", "retry_delay", "trigger_rule", "default_args", "owner", "start_date", "cancel_on_kill",
         "execution_timeout")


class Built(Exception):
    """MLEngine's body, as the operator's execute() builds it."""

    def __init__(self, body: dict[str, Any]) -> None:
        super().__init__("built")
        self.body = body


class _State:
    target: str | None = None
    variables: dict[str, str] = {}  # noqa: RUF012
    dags: list[Any] = []  # noqa: RUF012


class _AnyMeta(type):
    def __getattr__(cls, name: str) -> Any:
        return _Any


class _Any(metaclass=_AnyMeta):
    """Anything Airflow: built with any arguments, chained with >>, a context manager."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.default_args = kwargs.get("default_args") or {}

    def __getattr__(self, name: str) -> Any:
        return _Any()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _Any()

    def __getitem__(self, key: Any) -> Any:
        return _Any()

    def __rshift__(self, other: Any) -> Any:
        return other

    def __rrshift__(self, other: Any) -> Any:
        return self

    __lshift__ = __rshift__
    __rlshift__ = __rrshift__

    def __iter__(self) -> Any:
        return iter(())

    def __enter__(self) -> Any:
        _State.dags.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _State.dags.pop()


def _dag(*args: Any, **kwargs: Any) -> Any:
    """@dag / @dag(...): calling the function builds its tasks inside the DAG (its default_args theirs)."""
    if args and callable(args[0]):
        return args[0]

    def decorate(function: Any) -> Any:
        def build(*a: Any, **k: Any) -> Any:
            with _Any(**kwargs):
                return function(*a, **k)
        return build
    return decorate


class _Variable:
    @staticmethod
    def get(key: str, default_var: Any = None, deserialize_json: bool = False) -> Any:
        value = _State.variables[key]
        return json.loads(value) if deserialize_json else value


def _arguments(kwargs: dict[str, Any], takes: tuple[str, ...], name: str) -> dict[str, Any]:
    """The operator's arguments with its DAG's default_args (Airflow's apply_defaults); TypeError for one not taken."""
    around = [kwargs["dag"]] if kwargs.get("dag") is not None else _State.dags  # its dag=, else the with blocks
    defaults: dict[str, Any] = {}
    for block in around:  # a TaskGroup's default_args over its DAG's
        defaults |= dict(getattr(block, "default_args", None) or {})
    defaults |= dict(kwargs.get("default_args") or {})
    given = {k: v for k, v in kwargs.items() if k not in _BASE}
    unknown = [k for k in given if k not in takes]
    if unknown:
        raise TypeError(f"{name}: Invalid arguments were passed: {unknown}")
    return {k: v for k, v in defaults.items() if k in takes} | given


def _launches(kwargs: dict[str, Any]) -> bool:
    return _State.target is None or kwargs.get("task_id") == _State.target


def _training_operator(name: str) -> type:
    kind, own = _OWN[name]

    class Operator(_Any):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__()
            if not _launches(kwargs):
                return
            from google.cloud import aiplatform

            given = _arguments(kwargs, ("project_id", "region", *_CTOR, *own, *_RUN), name)
            ctor = {k: given[k] for k in (*_CTOR, *own) if k in given}
            job = getattr(aiplatform, kind)(project=given["project_id"], location=given["region"], **ctor)
            run = {k: given[k] for k in _RUN if k in given and k not in ("dataset_id", "psc_interface_config")}
            job.run(dataset=None, sync=True, **run)

    Operator.__name__ = name
    return Operator


class _TuningOperator(_Any):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__()
        if not _launches(kwargs):
            return
        from google.cloud import aiplatform

        given = _arguments(kwargs, ("project_id", "region", *_TUNING), "CreateHyperparameterTuningJobOperator")
        project, location = given["project_id"], given["region"]
        job = aiplatform.CustomJob(project=project, location=location, display_name=given["display_name"],
                                   worker_pool_specs=given["worker_pool_specs"],
                                   base_output_dir=given.get("base_output_dir"), labels=given.get("custom_job_labels"),
                                   encryption_spec_key_name=given.get("custom_job_encryption_spec_key_name"),
                                   staging_bucket=given.get("staging_bucket"))
        tuning = aiplatform.HyperparameterTuningJob(
            project=project, location=location, display_name=given["display_name"], custom_job=job,
            metric_spec=given["metric_spec"], parameter_spec=given["parameter_spec"],
            max_trial_count=given["max_trial_count"], parallel_trial_count=given["parallel_trial_count"],
            max_failed_trial_count=given.get("max_failed_trial_count", 0),
            search_algorithm=given.get("search_algorithm"),
            measurement_selection=given.get("measurement_selection", "best"),
            labels=given.get("hyperparameter_tuning_job_labels"),
            encryption_spec_key_name=given.get("hyperparameter_tuning_job_encryption_spec_key_name"))
        tuning.run(service_account=given.get("service_account"), network=given.get("network"),
                   timeout=given.get("timeout"),
                   restart_job_on_worker_restart=given.get("restart_job_on_worker_restart", False),
                   enable_web_access=given.get("enable_web_access", False), tensorboard=given.get("tensorboard"),
                   sync=True)


def _normalized(job_id: str) -> str:
    job = f"z_{job_id}" if re.match(r"\d|\{{2}", job_id) else job_id
    return re.sub(r"[^0-9a-zA-Z]+", "_", job)


class _MLEngineOperator(_Any):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__()
        if not _launches(kwargs):
            return
        given = _arguments(kwargs, ("project_id", *_MLENGINE), "MLEngineStartTrainingJobOperator")
        training: dict[str, Any] = {"scaleTier": given.get("scale_tier"), "region": given["region"]}
        request = {"jobId": _normalized(given["job_id"]), "trainingInput": training}
        for name, key in (("package_uris", "packageUris"), ("training_python_module", "pythonModule"),
                          ("training_args", "args"), ("master_type", "masterType"), ("master_config", "masterConfig"),
                          ("runtime_version", "runtimeVersion"), ("python_version", "pythonVersion"),
                          ("job_dir", "jobDir"), ("service_account", "serviceAccount"),
                          ("hyperparameters", "hyperparameters")):
            if given.get(name):
                training[key] = given[name]
        if given.get("labels"):
            request["labels"] = given["labels"]
        raise Built(request)


def _days_ago(n: int, *args: Any, **kwargs: Any) -> Any:
    import datetime

    return datetime.datetime(2021, 1, 1) - datetime.timedelta(days=n)


class _Module(types.ModuleType):
    """A stand-in module: its training operators, DAG helpers, and for any other name a submodule (lowercase, as
    ``from airflow import models``) or an inert class; called (a function it stands for), it gives an inert value."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _Any()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name == "days_ago":
            return _days_ago
        if name[:1].islower() and name not in ("dag", "task"):
            import importlib

            return importlib.import_module(f"{self.__name__}.{name}")
        if name in _OWN:
            return _training_operator(name)
        special = {"CreateHyperparameterTuningJobOperator": _TuningOperator,
                   "MLEngineStartTrainingJobOperator": _MLEngineOperator, "MLEngineTrainingOperator": _MLEngineOperator,
                   "dag": _dag, "Variable": _Variable}
        if name in special:
            return special[name]
        return _Any


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname.split(".")[0] in ("airflow", "tests_common"):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = _Module(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        return None


def dag_request(path: Path, monkeypatch: pytest.MonkeyPatch, target: str | None = None,
                variables: dict[str, str] | None = None) -> dict[str, Any]:
    """What the DAG's training task sends: {kind, parent, body} (the SDK's request), or {"mlengine": body}."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud.aiplatform import base, initializer

    initializer.global_config.__init__()
    sent: list[Sent] = []
    monkeypatch.setattr(base.VertexAiResourceNoun, "_instantiate_client",
                        classmethod(lambda cls, *a, **k: _Client(sent)))
    for name in ("GOOGLE_CLOUD_REGION", "CLOUD_ML_REGION"):
        monkeypatch.delenv(name, raising=False)
    from google.cloud.aiplatform.utils import source_utils

    # CustomTrainingJob's upload of the script's package: its URI only (the comparison sets the package aside)
    monkeypatch.setattr(source_utils._TrainingScriptPythonPackager, "package_and_copy_to_gcs",
                        lambda self, gcs_staging_dir, project=None, credentials=None: f"{gcs_staging_dir}/sdk.tar.gz")
    monkeypatch.setattr(sys, "meta_path", [_Finder(), *sys.meta_path])
    for name in [m for m in sys.modules if m.split(".")[0] in ("airflow", "tests_common")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(_State, "target", target)
    monkeypatch.setattr(_State, "variables", dict(variables or {}))
    monkeypatch.setattr(_State, "dags", [])
    initializer.global_config.init(credentials=AnonymousCredentials())
    code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    try:
        exec(code, {"__name__": path.stem, "__file__": str(path)})  # Airflow imports a DAG file by its name
    except Built as built:
        return {"mlengine": built.body}
    except Sent:
        pass
    finally:
        initializer.global_config.__init__()
    assert len(sent) == 1, f"{path.name} sent {len(sent)} requests through the SDK"
    if sent[0].kind == "TrainingPipeline":
        return _pipelines_job(sent[0])
    return {"kind": sent[0].kind, "parent": sent[0].parent, "body": sent[0].body}

