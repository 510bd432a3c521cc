"""python-aiplatform's TensorBoard system test: instance, experiment, run, time series, one scalar.

Source: googleapis/python-aiplatform@91cc8ce4f015771b5d8c43c8764ea9dc9abdb216
tests/system/aiplatform/test_tensorboard.py. Its five steps share one ``shared_state`` there; here
they are one test, in the same order, with the same calls. ``_make_display_name`` is made
concrete. The test's teardown deletes what it made (``tear_down_resources``): that is done last.
"""

from __future__ import annotations

from typing import Any

from tests.vertex.notebooks.conftest import LOCATION, PROJECT_ID


def test_tensorboard_resources_and_scalar(aiplatform: Any) -> None:
    aiplatform.init(project=PROJECT_ID, location=LOCATION)
    display_name = "temp-vertex-sdk-e2e-test-tensorboard-1a2b3c4d"

    tb = aiplatform.Tensorboard.create(display_name=display_name, create_request_timeout=None)
    get_tb = aiplatform.Tensorboard(tb.resource_name)
    assert tb.resource_name == get_tb.resource_name
    list_tb = aiplatform.Tensorboard.list()
    assert len(list_tb) > 0

    tb_experiment = aiplatform.TensorboardExperiment.create(
        tensorboard_experiment_id="vertex-sdk-e2e-test-experiment",
        tensorboard_name=tb.resource_name,
        display_name="temp-vertex-sdk-e2e-test-tensorboard_experiment-1a2b3c4d",
        description="Vertex SDK Integration test.",
        labels={"test": "labels"},
        create_request_timeout=None,
    )
    get_tb_experiment = aiplatform.TensorboardExperiment(tb_experiment.resource_name)
    assert tb_experiment.resource_name == get_tb_experiment.resource_name
    list_tb_experiment = aiplatform.TensorboardExperiment.list(tensorboard_name=tb.resource_name)
    assert len(list_tb_experiment) > 0

    tb_run = aiplatform.TensorboardRun.create(
        tensorboard_run_id="test-run",
        tensorboard_experiment_name=tb_experiment.resource_name,
        description="Vertex SDK Integration test run",
        labels={"test": "labels"},
        create_request_timeout=None,
    )
    get_tb_run = aiplatform.TensorboardRun(tb_run.resource_name)
    assert tb_run.resource_name == get_tb_run.resource_name
    list_tb_run = aiplatform.TensorboardRun.list(tensorboard_experiment_name=tb_experiment.resource_name)
    assert len(list_tb_run) > 0

    tb_time_series = aiplatform.TensorboardTimeSeries.create(
        display_name="test-time-series",
        tensorboard_run_name=tb_run.resource_name,
        description="Vertex SDK Integration test run",
    )
    get_tb_time_series = aiplatform.TensorboardTimeSeries(tb_time_series.resource_name)
    assert tb_time_series.resource_name == get_tb_time_series.resource_name
    list_tb_time_series = aiplatform.TensorboardTimeSeries.list(tensorboard_run_name=tb_run.resource_name)
    assert len(list_tb_time_series) > 0

    tb_run.write_tensorboard_scalar_data(
        time_series_data={tb_time_series.display_name: 1.0},
        step=1,
    )
    # What was written reads back (the test stops at the write; its reader is the SDK's own).
    assert [(p.step, p.scalar.value) for p in tb_run.read_time_series_data()["test-time-series"].values] == [(1, 1.0)]

    for resource in (tb_time_series, tb_run, tb_experiment, tb):
        resource.delete()
    assert aiplatform.Tensorboard.list(filter=f'display_name="{display_name}"') == []
