"""comparing_local_trained_models: five local runs with parameters, time series and final metrics.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/official/experiments/comparing_local_trained_models.ipynb (cells 27-41). The Keras
training (cells 31-33) is replaced by a history of the same shape: ``history.params`` and
``history.history["mae"|"mse"]`` per epoch, and an evaluation's loss, mae and mse.
"""

from __future__ import annotations

import uuid
from types import SimpleNamespace
from typing import Any

from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID


def train(params: dict[str, Any]) -> Any:
    epochs = params["epochs"]
    return SimpleNamespace(params={"verbose": 1, "epochs": epochs, "steps": 8},
                           history={"mae": [3.0 / (e + 1) for e in range(epochs)],
                                    "mse": [9.0 / (e + 1) for e in range(epochs)]})


def test_local_runs_with_time_series_then_delete_with_backing_runs(aiplatform: Any) -> None:
    vertex_ai = aiplatform
    EXPERIMENT_NAME = f"my-experiment-{uuid.uuid1()}"
    vertex_ai.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    vertex_ai.init(experiment=EXPERIMENT_NAME)
    parameters = [
        {"num_units": 16, "dropout_rate": 0.1, "epochs": 3},
        {"num_units": 16, "dropout_rate": 0.1, "epochs": 10},
        {"num_units": 16, "dropout_rate": 0.2, "epochs": 10},
        {"num_units": 32, "dropout_rate": 0.1, "epochs": 10},
        {"num_units": 32, "dropout_rate": 0.2, "epochs": 10},
    ]
    for i, params in enumerate(parameters):
        vertex_ai.start_run(run=f"auto-mpg-local-run-{i}")
        vertex_ai.log_params(params)
        history = train(params)
        vertex_ai.log_params(history.params)
        for idx in range(0, history.params["epochs"]):
            vertex_ai.log_time_series_metrics(
                {
                    "train_mae": history.history["mae"][idx],
                    "train_mse": history.history["mse"][idx],
                }
            )
        loss, mae, mse = 0.5 + i, 0.25 + i, 0.125 + i
        vertex_ai.log_metrics({"eval_loss": loss, "eval_mae": mae, "eval_mse": mse})
        vertex_ai.end_run()

    experiment_df = vertex_ai.get_experiment_df()
    rows = {r["run_name"]: r for r in experiment_df.to_dict("records")}
    assert sorted(rows) == [f"auto-mpg-local-run-{i}" for i in range(5)]
    last = rows["auto-mpg-local-run-4"]
    assert last["param.num_units"] == 32 and last["param.dropout_rate"] == 0.2 and last["param.steps"] == 8
    assert last["metric.eval_loss"] == 4.5
    # get_experiment_df reports each time series' last value
    assert last["time_series_metric.train_mae"] == 0.3 and last["time_series_metric.train_mse"] == 0.9
    series = vertex_ai.ExperimentRun("auto-mpg-local-run-0", experiment=EXPERIMENT_NAME).get_time_series_data_frame()
    assert list(series["step"]) == [1, 2, 3] and list(series["train_mae"]) == [3.0, 1.5, 1.0]

    exp = vertex_ai.Experiment(EXPERIMENT_NAME)
    backing_tensorboard = exp.get_backing_tensorboard_resource()
    assert backing_tensorboard is not None
    tb_experiment = vertex_ai.TensorboardExperiment(EXPERIMENT_NAME, tensorboard_id=backing_tensorboard.name)
    assert len(vertex_ai.TensorboardRun.list(tensorboard_experiment_name=tb_experiment.resource_name)) == 5
    exp.delete(delete_backing_tensorboard_runs=True)
    assert vertex_ai.TensorboardRun.list(tensorboard_experiment_name=tb_experiment.resource_name) == []
    assert EXPERIMENT_NAME not in [e.name for e in vertex_ai.Experiment.list()]
