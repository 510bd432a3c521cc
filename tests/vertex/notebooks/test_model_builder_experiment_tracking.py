"""google-cloud-aiplatform's own experiment-tracking samples, chained as a user would run them.

Source: googleapis/python-aiplatform@91cc8ce4f015771b5d8c43c8764ea9dc9abdb216
samples/model-builder/experiment_tracking/: create_experiment_sample, create_experiment_run_sample,
log_params_sample, log_metrics_sample, log_time_series_metrics_sample,
log_classification_metrics_sample, resume_experiment_run_sample, end_experiment_run_sample,
get_experiment_run_{params,metrics,classification_metrics,artifacts,time_series_metric_data_frame}_sample,
get_experiment_backing_tensorboard_sample, create_artifact_sample, get_artifact_with_uri_sample,
list_artifact_sample, create_execution_with_sdk_sample, get_execution_input_artifacts_sample,
list_execution_sample, create_context_with_sdk_sample,
delete_{artifact,execution,context,experiment_run}_sample. Each sample's body is called as it is,
with its arguments made concrete. (log_model_sample needs scikit-learn, XGBoost or TensorFlow,
none of which is installed here; list_context_sample passes ``resource_id`` to ``Context.list``,
which this SDK's does not take: a filter by display name stands for it.)
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from tests.vertex.notebooks.conftest import LOCATION, PROJECT_ID, no_adc

project, location = PROJECT_ID, LOCATION


def test_the_samples_one_after_another(aiplatform: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    no_adc(monkeypatch)
    from google.cloud.aiplatform.metadata.schema.system import context_schema, execution_schema

    experiment_name, run_name = "sample-experiment", "sample-run"
    tb = aiplatform.Tensorboard.create(display_name="samples", project=project, location=location)

    # create_experiment_sample
    aiplatform.init(experiment=experiment_name, experiment_description="my experiment",
                    experiment_tensorboard=tb, project=project, location=location)
    # create_experiment_run_sample
    aiplatform.init(experiment=experiment_name, project=project, location=location)
    aiplatform.start_run(run=run_name, tensorboard=None)
    # log_params_sample, log_metrics_sample
    aiplatform.init(experiment=experiment_name, project=project, location=location)
    aiplatform.start_run(run=run_name, resume=True)
    aiplatform.log_params({"learning_rate": 0.1, "dropout_rate": 0.2})
    aiplatform.log_metrics({"accuracy": 0.9, "recall": 0.8})
    # log_time_series_metrics_sample
    wall = datetime.datetime(2026, 11, 26, 5, 0, tzinfo=datetime.UTC)
    for step in (1, 2, 3):
        aiplatform.init(experiment=experiment_name, project=project, location=location)
        aiplatform.start_run(run=run_name, resume=True)
        aiplatform.log_time_series_metrics(metrics={"loss": 1.0 / step}, step=step,
                                           wall_time=wall + datetime.timedelta(seconds=step))
    # log_classification_metrics_sample
    aiplatform.init(experiment=experiment_name, project=project, location=location)
    aiplatform.start_run(run=run_name, resume=True)
    aiplatform.log_classification_metrics(labels=["cat", "dog"], matrix=[[9, 1], [1, 9]], fpr=[0.1, 0.5, 0.9],
                                          tpr=[0.1, 0.7, 0.9], threshold=[0.9, 0.5, 0.1],
                                          display_name="my-classification-metrics")
    # end_experiment_run_sample
    aiplatform.init(experiment=experiment_name, project=project, location=location)
    aiplatform.start_run(run=run_name, resume=True)
    aiplatform.end_run()

    # get_experiment_run_*_sample
    experiment_run = aiplatform.ExperimentRun(run_name=run_name, experiment=experiment_name, project=project,
                                              location=location)
    assert experiment_run.get_params() == {"learning_rate": 0.1, "dropout_rate": 0.2}
    assert experiment_run.get_metrics() == {"accuracy": 0.9, "recall": 0.8}
    (metric,) = experiment_run.get_classification_metrics()
    assert metric["display_name"] == "my-classification-metrics" and metric["labels"] == ["cat", "dog"]
    assert metric["matrix"] == [[9, 1], [1, 9]] and metric["fpr"] == [0.1, 0.5, 0.9]
    assert metric["threshold"] == [0.9, 0.5, 0.1]
    frame = experiment_run.get_time_series_data_frame()
    assert list(frame["step"]) == [1, 2, 3] and list(frame["loss"]) == [1.0, 0.5, 1.0 / 3]
    # the classification metrics, and the backing TensorBoard run the time series went to
    assert sorted(a.schema_title for a in experiment_run.get_artifacts()) == [
        "google.ClassificationMetrics", "google.VertexTensorboardRun"]
    assert experiment_run.get_state() == "COMPLETE"
    # get_experiment_backing_tensorboard_sample
    backing_tensorboard = aiplatform.Experiment(project=project, location=location,
                                                experiment_name=experiment_name).get_backing_tensorboard_resource()
    assert backing_tensorboard.name == tb.name
    assert aiplatform.Experiment(experiment_name).get_backing_tensorboard_resource().resource_name == tb.resource_name

    # create_artifact_sample, get_artifact_with_uri_sample, list_artifact_sample
    artifact = aiplatform.Artifact.create(schema_title="system.Model", uri="gs://my-bucket/my-model",
                                          resource_id="my-model-artifact", display_name="my_model_1",
                                          schema_version="0.0.1", description="a model",
                                          metadata={"framework": "sklearn"}, project=project, location=location)
    aiplatform.Artifact.create(schema_title="system.Dataset", uri="gs://my-bucket/data", display_name="my_data",
                               project=project, location=location)
    assert artifact.name == "my-model-artifact" and artifact.metadata == {"framework": "sklearn"}
    found = aiplatform.Artifact.get_with_uri(uri="gs://my-bucket/my-model", project=project, location=location)
    assert found.resource_name == artifact.resource_name
    aiplatform.init(project=project, location=location)
    display_name_filter = "display_name=\"my_model_*\""
    create_date_filter = "create_time>\"2022-06-11\""
    combined_filters = f"{display_name_filter} AND {create_date_filter}"
    listed = aiplatform.Artifact.list(filter=combined_filters, order_by=None)
    assert [a.resource_name for a in listed] == [artifact.resource_name]
    assert aiplatform.Artifact.list(filter=f"{display_name_filter} AND create_time>\"2099-01-01\"") == []

    # create_execution_with_sdk_sample, get_execution_input_artifacts_sample, list_execution_sample
    aiplatform.init(project=project, location=location)
    with execution_schema.ContainerExecution(
        display_name="my_execution_1",
        execution_id="my-execution",
        metadata={"step": "train"},
        schema_version=None,
        description="an execution",
    ).create() as execution:
        execution.assign_input_artifacts([artifact])
        execution.assign_output_artifacts([])
    assert [a.resource_name for a in execution.get_input_artifacts()] == [artifact.resource_name]
    assert aiplatform.Execution(execution.resource_name).state.name == "COMPLETE"
    display_name_filter = "display_name=\"my_execution_*\""
    create_date_filter = "create_time>\"2022-06-11T12:30:00-08:00\""
    combined_filters = f"{display_name_filter} AND {create_date_filter}"
    assert [e.name for e in aiplatform.Execution.list(filter=combined_filters)] == ["my-execution"]

    # create_context_with_sdk_sample, list_context_sample
    context = context_schema.Experiment(display_name="my-context", context_id="my-context", metadata={},
                                        schema_version=None, description="a context").create()
    assert context.schema_title == "system.Experiment"
    contexts = aiplatform.Context.list(filter='display_name="my-context"', project=project, location=location)
    assert [c.name for c in contexts] == ["my-context"]

    # delete_{artifact,execution,context,experiment_run}_sample
    aiplatform.Execution.get(resource_id="my-execution", project=project, location=location).delete()
    aiplatform.Artifact.get(resource_id="my-model-artifact", project=project, location=location).delete()
    aiplatform.Context.get(resource_id="my-context", project=project, location=location).delete()
    assert aiplatform.Artifact.get(resource_id="my-model-artifact", project=project, location=location) is None
    experiment_run = aiplatform.ExperimentRun(run_name=run_name, experiment=experiment_name, project=project,
                                              location=location)
    experiment_run.delete(delete_backing_tensorboard_run=True)
    assert aiplatform.ExperimentRun.list(experiment=experiment_name) == []
    tb_experiment = aiplatform.TensorboardExperiment(experiment_name, tensorboard_id=tb.name)
    assert aiplatform.TensorboardRun.list(tensorboard_experiment_name=tb_experiment.resource_name) == []
