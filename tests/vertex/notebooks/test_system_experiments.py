"""python-aiplatform's experiments system test: experiments with a backing TensorBoard, runs,
params, metrics, time series, classification metrics, artifacts and executions, the experiment's
data frame, and deleting runs and experiments.

Source: googleapis/python-aiplatform@91cc8ce4f015771b5d8c43c8764ea9dc9abdb216
tests/system/aiplatform/test_experiments.py. Its steps share one class and ``shared_state`` there;
here each is a function of this module, called in the file's order by one test, so the SDK's global
state carries from step to step as it does there. Left out: ``test_log_model`` (it needs
scikit-learn, not installed here) and ``test_add_pipeline_job_to_experiment`` (a KFP pipeline job,
not a training route), so the expected data frames have no pipeline row and no pipeline columns;
the XGBoost model file ``test_log_execution_and_artifact`` downloads is a file written here.
``_make_display_name`` is made concrete; ``tear_down_resources`` is not reproduced.
"""

from __future__ import annotations

import tempfile
import uuid
from typing import Any

import pytest

from tests.vertex.notebooks.conftest import LOCATION, PROJECT_ID, no_adc

_PROJECT, _LOCATION = PROJECT_ID, LOCATION
_RUN = "run-1"
_PARAMS = {"sdk-param-test-1": 0.1, "sdk-param-test-2": 0.2}
_METRICS = {"sdk-metric-test-1": 0.8, "sdk-metric-test-2": 100.0}
_RUN_2 = "run-2"
_PARAMS_2 = {"sdk-param-test-1": 0.2, "sdk-param-test-2": 0.4}
_METRICS_2 = {"sdk-metric-test-1": 1.6, "sdk-metric-test-2": 200.0}
_READ_TIME_SERIES_BATCH_SIZE = 20
_TIME_SERIES_METRIC_KEY = "accuracy"
_CLASSIFICATION_METRICS = {
    "display_name": "my-classification-metrics",
    "labels": ["cat", "dog"],
    "matrix": [[9, 1], [1, 9]],
    "fpr": [0.1, 0.5, 0.9],
    "tpr": [0.1, 0.7, 0.9],
    "threshold": [0.9, 0.5, 0.1],
}


def _make_display_name(key: str) -> str:
    return f"tmpvrtxsdk-e2e-{key}-{uuid.uuid4().hex[:8]}".replace("--", "-")


class State:
    _experiment_name = _make_display_name("")[:64]
    _experiment_name_2 = _make_display_name("")[:64]
    _dataset_artifact_name = _make_display_name("")[:64]
    _dataset_artifact_uri = _make_display_name("ds-uri")


def test_experiments_system_flow(aiplatform: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    no_adc(monkeypatch)
    self = State()
    for step in (create_experiment, get_experiment, start_run, get_run, list_experiment, list_experiment_filter,
                 list_experiment_filter_no_results, log_params, log_metrics, log_time_series_metrics,
                 get_time_series_data_frame_batch_read_success, log_classification_metrics, create_artifact,
                 get_artifact_by_uri, log_execution_and_artifact, end_run, run_context_manager,
                 get_experiments_df, get_experiments_df_include_time_series_false,
                 delete_run_does_not_exist_raises_exception, delete_run_success, reuse_run_success,
                 delete_run_then_tensorboard_success, delete_wout_backing_tensorboard_reuse_run_raises_exception,
                 delete_experiment_does_not_exist_raises_exception, init_associates_global_tensorboard_to_experiment,
                 get_backing_tensorboard_resource_returns_tensorboard, get_backing_tensorboard_resource_returns_none,
                 delete_backing_tensorboard_experiment_run_success):
        step(self, aiplatform)


def create_experiment(self: State, aiplatform: Any) -> None:
    tensorboard = aiplatform.Tensorboard.create(project=_PROJECT, location=_LOCATION,
                                                display_name=self._experiment_name)
    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=self._experiment_name,
                    experiment_tensorboard=tensorboard)


def get_experiment(self: State, aiplatform: Any) -> None:
    experiment = aiplatform.Experiment(experiment_name=self._experiment_name, project=_PROJECT, location=_LOCATION)
    assert experiment.name == self._experiment_name


def start_run(self: State, aiplatform: Any) -> None:
    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=self._experiment_name)
    run = aiplatform.start_run(_RUN)
    assert run.name == _RUN


def get_run(self: State, aiplatform: Any) -> None:
    run = aiplatform.ExperimentRun(run_name=_RUN, experiment=self._experiment_name, project=_PROJECT,
                                   location=_LOCATION)
    assert run.name == _RUN
    assert run.state == aiplatform.gapic.Execution.State.RUNNING


def list_experiment(self: State, aiplatform: Any) -> None:
    experiments = aiplatform.Experiment.list(project=_PROJECT, location=_LOCATION)
    assert isinstance(experiments, list)
    assert any(experiment.name == self._experiment_name for experiment in experiments)


def list_experiment_filter(self: State, aiplatform: Any) -> None:
    experiments = aiplatform.Experiment.list(filter=f"display_name = {self._experiment_name}", project=_PROJECT,
                                             location=_LOCATION)
    assert len(experiments) == 1
    assert any(experiment.name == self._experiment_name for experiment in experiments)


def list_experiment_filter_no_results(self: State, aiplatform: Any) -> None:
    experiments = aiplatform.Experiment.list(filter="display_name = not_mathcing_filter_name", project=_PROJECT,
                                             location=_LOCATION)
    assert len(experiments) == 0


def log_params(self: State, aiplatform: Any) -> None:
    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=self._experiment_name)
    aiplatform.start_run(_RUN, resume=True)
    aiplatform.log_params(_PARAMS)
    run = aiplatform.ExperimentRun(run_name=_RUN, experiment=self._experiment_name)
    assert run.get_params() == _PARAMS


def log_metrics(self: State, aiplatform: Any) -> None:
    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=self._experiment_name)
    aiplatform.start_run(_RUN, resume=True)
    aiplatform.log_metrics(_METRICS)
    run = aiplatform.ExperimentRun(run_name=_RUN, experiment=self._experiment_name)
    assert run.get_metrics() == _METRICS


def log_time_series_metrics(self: State, aiplatform: Any) -> None:
    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=self._experiment_name)
    aiplatform.start_run(_RUN, resume=True)
    for i in range(5):
        aiplatform.log_time_series_metrics({_TIME_SERIES_METRIC_KEY: i})
    run = aiplatform.ExperimentRun(run_name=_RUN, experiment=self._experiment_name)
    time_series_result = run.get_time_series_data_frame()[[_TIME_SERIES_METRIC_KEY, "step"]].to_dict("list")
    assert time_series_result == {
        "step": list(range(1, 6)),
        _TIME_SERIES_METRIC_KEY: [float(value) for value in range(5)],
    }


def get_time_series_data_frame_batch_read_success(self: State, aiplatform: Any) -> None:
    tensorboard = aiplatform.Tensorboard.create(project=_PROJECT, location=_LOCATION,
                                                display_name=self._experiment_name_2)
    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=self._experiment_name_2,
                    experiment_tensorboard=tensorboard)
    aiplatform.start_run(_RUN)
    for i in range(_READ_TIME_SERIES_BATCH_SIZE + 1):
        aiplatform.log_time_series_metrics({f"{_TIME_SERIES_METRIC_KEY}-{i}": 1})
    run = aiplatform.ExperimentRun(run_name=_RUN, experiment=self._experiment_name_2)
    time_series_result = run.get_time_series_data_frame()
    assert len(time_series_result) > _READ_TIME_SERIES_BATCH_SIZE


def log_classification_metrics(self: State, aiplatform: Any) -> None:
    from google.cloud.aiplatform.metadata.schema.google import artifact_schema as google_artifact_schema

    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=self._experiment_name)
    aiplatform.start_run(_RUN, resume=True)
    classification_metrics = aiplatform.log_classification_metrics(
        display_name=_CLASSIFICATION_METRICS["display_name"],
        labels=_CLASSIFICATION_METRICS["labels"],
        matrix=_CLASSIFICATION_METRICS["matrix"],
        fpr=_CLASSIFICATION_METRICS["fpr"],
        tpr=_CLASSIFICATION_METRICS["tpr"],
        threshold=_CLASSIFICATION_METRICS["threshold"],
    )
    run = aiplatform.ExperimentRun(run_name=_RUN, experiment=self._experiment_name)
    metrics = run.get_classification_metrics()[0]
    metric_artifact = aiplatform.Artifact(metrics.pop("id"))
    assert metrics == _CLASSIFICATION_METRICS
    assert isinstance(classification_metrics, google_artifact_schema.ClassificationMetrics)
    metric_artifact.delete()


def create_artifact(self: State, aiplatform: Any) -> None:
    ds = aiplatform.Artifact.create(schema_title="system.Dataset", resource_id=self._dataset_artifact_name,
                                    uri=self._dataset_artifact_uri, project=_PROJECT, location=_LOCATION)
    assert ds.uri == self._dataset_artifact_uri


def get_artifact_by_uri(self: State, aiplatform: Any) -> None:
    ds = aiplatform.Artifact.get_with_uri(uri=self._dataset_artifact_uri, project=_PROJECT, location=_LOCATION)
    assert ds.uri == self._dataset_artifact_uri
    assert ds.name == self._dataset_artifact_name


def log_execution_and_artifact(self: State, aiplatform: Any) -> None:
    from google.cloud.aiplatform.utils import rest_utils

    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=self._experiment_name)
    aiplatform.start_run(_RUN, resume=True)
    with aiplatform.start_execution(schema_title="system.ContainerExecution",
                                    resource_id=_make_display_name("execution")) as execution:
        ds = aiplatform.Artifact(artifact_name=self._dataset_artifact_name)
        execution.assign_input_artifacts([ds])
        model = aiplatform.Artifact.create(schema_title="system.Model")
        model_path = tempfile.mktemp() + ".my_model.xgb"
        with open(model_path, "wb") as f:
            f.write(b"a booster")
        vertex_model = aiplatform.Model.upload_xgboost_model_file(display_name=_make_display_name("model"),
                                                                  model_file_path=model_path)
        execution.assign_output_artifacts([model, vertex_model])

    input_artifacts = execution.get_input_artifacts()
    assert input_artifacts[0].name == ds.name
    output_artifacts = execution.get_output_artifacts()
    # system.Model, google.VertexModel
    output_artifacts.sort(key=lambda artifact: artifact.schema_title, reverse=True)
    assert output_artifacts[0].name == model.name
    assert output_artifacts[1].uri == rest_utils.make_gcp_resource_rest_url(resource=vertex_model)

    run = aiplatform.ExperimentRun(run_name=_RUN, experiment=self._experiment_name)
    executions = run.get_executions()
    assert executions[0].name == execution.name
    artifacts = run.get_artifacts()
    # system.Model, system.Dataset, google.VertexTensorboardRun, google.VertexModel
    artifacts.sort(key=lambda artifact: artifact.schema_title, reverse=True)
    assert artifacts.pop().uri == rest_utils.make_gcp_resource_rest_url(resource=vertex_model)
    # tensorboard run artifact is also included
    assert sorted([artifact.name for artifact in artifacts]) == sorted(
        [ds.name, model.name, run._tensorboard_run_id(run.resource_id)])


def end_run(self: State, aiplatform: Any) -> None:
    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=self._experiment_name)
    aiplatform.start_run(_RUN, resume=True)
    aiplatform.end_run()
    run = aiplatform.ExperimentRun(run_name=_RUN, experiment=self._experiment_name)
    assert run.state == aiplatform.gapic.Execution.State.COMPLETE


def run_context_manager(self: State, aiplatform: Any) -> None:
    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=self._experiment_name)
    with aiplatform.start_run(_RUN_2) as run:
        run.log_params(_PARAMS_2)
        run.log_metrics(_METRICS_2)
        assert run.state == aiplatform.gapic.Execution.State.RUNNING
    assert run.state == aiplatform.gapic.Execution.State.COMPLETE


def _expected_rows(self: State, aiplatform: Any, include_time_series: bool) -> list[dict[str, Any]]:
    rows = []
    for run_name, params, metrics, last in ((_RUN, _PARAMS, _METRICS, 4.0), (_RUN_2, _PARAMS_2, _METRICS_2, 0.0)):
        row: dict[str, Any] = {f"metric.{key}": value for key, value in metrics.items()}
        for key, value in params.items():
            row[f"param.{key}"] = value
        row["experiment_name"] = self._experiment_name
        row["run_name"] = run_name
        row["state"] = aiplatform.gapic.Execution.State.COMPLETE.name
        row["run_type"] = aiplatform.metadata.constants.SYSTEM_EXPERIMENT_RUN
        if include_time_series:
            row[f"time_series_metric.{_TIME_SERIES_METRIC_KEY}"] = last
        rows.append(row)
    return rows


def get_experiments_df(self: State, aiplatform: Any) -> None:
    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=self._experiment_name)
    df = aiplatform.get_experiment_df()
    assert sorted(_expected_rows(self, aiplatform, True), key=lambda d: d["run_name"]) == sorted(
        df.fillna(0.0).to_dict("records"), key=lambda d: d["run_name"])


def get_experiments_df_include_time_series_false(self: State, aiplatform: Any) -> None:
    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=self._experiment_name)
    df = aiplatform.get_experiment_df(include_time_series=False)
    assert sorted(_expected_rows(self, aiplatform, False), key=lambda d: d["run_name"]) == sorted(
        df.fillna(0.0).to_dict("records"), key=lambda d: d["run_name"])


def delete_run_does_not_exist_raises_exception(self: State, aiplatform: Any) -> None:
    from google.api_core import exceptions

    run = aiplatform.ExperimentRun(run_name=_RUN, experiment=self._experiment_name, project=_PROJECT,
                                   location=_LOCATION)
    run.delete(delete_backing_tensorboard_run=True)
    with pytest.raises(exceptions.NotFound):
        aiplatform.ExperimentRun(run_name=_RUN, experiment=self._experiment_name)


def delete_run_success(self: State, aiplatform: Any) -> None:
    from google.api_core import exceptions

    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=self._experiment_name)
    aiplatform.start_run(_RUN)
    run = aiplatform.ExperimentRun(run_name=_RUN, experiment=self._experiment_name, project=_PROJECT,
                                   location=_LOCATION)
    aiplatform.end_run()
    run.delete(delete_backing_tensorboard_run=True)
    with pytest.raises(exceptions.NotFound):
        aiplatform.ExperimentRun(run_name=_RUN, experiment=self._experiment_name, project=_PROJECT,
                                 location=_LOCATION)


def reuse_run_success(self: State, aiplatform: Any) -> None:
    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=self._experiment_name)
    aiplatform.start_run(_RUN)
    run = aiplatform.ExperimentRun(run_name=_RUN, experiment=self._experiment_name, project=_PROJECT,
                                   location=_LOCATION)
    aiplatform.end_run()
    run.delete(delete_backing_tensorboard_run=True)
    aiplatform.start_run(_RUN)
    aiplatform.end_run()
    run = aiplatform.ExperimentRun(run_name=_RUN, experiment=self._experiment_name, project=_PROJECT,
                                   location=_LOCATION)
    assert run.name == _RUN


def delete_run_then_tensorboard_success(self: State, aiplatform: Any) -> None:
    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=self._experiment_name)
    aiplatform.start_run(_RUN, resume=True)
    run = aiplatform.ExperimentRun(run_name=_RUN, experiment=self._experiment_name, project=_PROJECT,
                                   location=_LOCATION)
    aiplatform.end_run()
    run.delete()
    tensorboard_run_artifact = aiplatform.metadata.artifact.Artifact(
        artifact_name=f"{self._experiment_name}-{_RUN}-tb-run")
    tensorboard_run_resource = aiplatform.TensorboardRun(tensorboard_run_artifact.metadata["resourceName"])
    tensorboard_run_resource.delete()
    tensorboard_run_artifact.delete()
    aiplatform.start_run(_RUN)
    aiplatform.end_run()
    run = aiplatform.ExperimentRun(run_name=_RUN, experiment=self._experiment_name, project=_PROJECT,
                                   location=_LOCATION)
    assert run.name == _RUN


def delete_wout_backing_tensorboard_reuse_run_raises_exception(self: State, aiplatform: Any) -> None:
    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=self._experiment_name)
    aiplatform.start_run(_RUN, resume=True)
    run = aiplatform.ExperimentRun(run_name=_RUN, experiment=self._experiment_name, project=_PROJECT,
                                   location=_LOCATION)
    aiplatform.end_run()
    run.delete()
    with pytest.raises(ValueError):
        aiplatform.start_run(_RUN)


def delete_experiment_does_not_exist_raises_exception(self: State, aiplatform: Any) -> None:
    from google.api_core import exceptions

    experiment = aiplatform.Experiment(experiment_name=self._experiment_name, project=_PROJECT,
                                       location=_LOCATION)
    experiment.delete(delete_backing_tensorboard_runs=True)
    with pytest.raises(exceptions.NotFound):
        aiplatform.Experiment(experiment_name=self._experiment_name)


def init_associates_global_tensorboard_to_experiment(self: State, aiplatform: Any) -> None:
    tensorboard = aiplatform.Tensorboard.create(project=_PROJECT, location=_LOCATION,
                                                display_name=_make_display_name("")[:64])
    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment_tensorboard=tensorboard)
    assert aiplatform.metadata.metadata._experiment_tracker._global_tensorboard == tensorboard
    new_experiment_name = _make_display_name("")[:64]
    new_experiment_resource = aiplatform.Experiment.create(experiment_name=new_experiment_name)
    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=new_experiment_name)
    assert new_experiment_resource._lookup_backing_tensorboard().resource_name == tensorboard.resource_name
    assert new_experiment_resource._metadata_context.metadata.get(
        aiplatform.metadata.constants._BACKING_TENSORBOARD_RESOURCE_KEY) == tensorboard.resource_name


def get_backing_tensorboard_resource_returns_tensorboard(self: State, aiplatform: Any) -> None:
    tensorboard = aiplatform.Tensorboard.create(project=_PROJECT, location=_LOCATION,
                                                display_name=_make_display_name("")[:64])
    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=self._experiment_name,
                    experiment_tensorboard=tensorboard)
    experiment = aiplatform.Experiment(self._experiment_name, project=_PROJECT, location=_LOCATION)
    assert experiment.get_backing_tensorboard_resource().resource_name == tensorboard.resource_name


def get_backing_tensorboard_resource_returns_none(self: State, aiplatform: Any) -> None:
    new_experiment_name = f"example-{uuid.uuid1()}"
    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=new_experiment_name,
                    experiment_tensorboard=False)
    new_experiment = aiplatform.Experiment(new_experiment_name, project=_PROJECT, location=_LOCATION)
    assert new_experiment.get_backing_tensorboard_resource() is None


def delete_backing_tensorboard_experiment_run_success(self: State, aiplatform: Any) -> None:
    aiplatform.init(project=_PROJECT, location=_LOCATION, experiment=self._experiment_name)
    experiment = aiplatform.Experiment(self._experiment_name, project=_PROJECT, location=_LOCATION)
    experiment.get_backing_tensorboard_resource().delete()
    run = aiplatform.start_run(_RUN)
    aiplatform.end_run()
    assert experiment.get_backing_tensorboard_resource() is None
    assert run.name == _RUN
