"""sdk-metric-parameter-tracking-for-locally-trained-models: runs started one after another, never ended.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/official/ml_metadata/sdk-metric-parameter-tracking-for-locally-trained-models.ipynb
(cells 33-45). The Keras training is replaced by a history of the same shape.
"""

from __future__ import annotations

from typing import Any

from tests.vertex.notebooks.conftest import LOCATION, PROJECT_ID

EXPERIMENT_NAME = "my-experiment-name-unique"


def test_runs_metrics_dataframe_and_delete(aiplatform: Any) -> None:
    aiplatform.init(project=PROJECT_ID, location=LOCATION, experiment=EXPERIMENT_NAME)
    parameters = [
        {"num_units": 16, "epochs": 3, "dropout_rate": 0.1},
        {"num_units": 16, "epochs": 10, "dropout_rate": 0.1},
        {"num_units": 16, "epochs": 10, "dropout_rate": 0.2},
        {"num_units": 32, "epochs": 10, "dropout_rate": 0.1},
        {"num_units": 32, "epochs": 10, "dropout_rate": 0.2},
    ]
    for i, params in enumerate(parameters):
        aiplatform.start_run(run=f"auto-mpg-lcl-run-{i}")
        aiplatform.log_params(params)
        history = {"loss": [9.0, 4.0 - i / 10], "val_loss": [10.0, 5.0 - i / 10]}
        for metric, values in history.items():
            try:
                aiplatform.log_metrics({metric: values[-1]})
            except Exception:
                aiplatform.log_metrics({metric: 0.0})
        loss, mae, mse = 1.0 + i, 2.0 + i, 3.0 + i
        aiplatform.log_metrics({"eval_loss": loss, "eval_mae": mae, "eval_mse": mse})

    experiment_df = aiplatform.get_experiment_df()
    rows = {r["run_name"]: r for r in experiment_df.to_dict("records")}
    assert sorted(rows) == [f"auto-mpg-lcl-run-{i}" for i in range(5)]
    assert rows["auto-mpg-lcl-run-2"]["metric.val_loss"] == 4.8
    assert rows["auto-mpg-lcl-run-2"]["param.dropout_rate"] == 0.2
    # start_run ends the run before it; the last one is still running
    assert rows["auto-mpg-lcl-run-0"]["state"] == "COMPLETE" and rows["auto-mpg-lcl-run-4"]["state"] == "RUNNING"

    experiment_name = (EXPERIMENT_NAME,)  # noqa: F841  (the notebook's own tuples, unused but for one)
    delete_backing_tensorboard_runs = (True,)
    experiment = aiplatform.Experiment(
        experiment_name=EXPERIMENT_NAME, project=PROJECT_ID, location=LOCATION
    )
    experiment.delete(delete_backing_tensorboard_runs=delete_backing_tensorboard_runs)
    assert EXPERIMENT_NAME not in [e.name for e in aiplatform.Experiment.list()]
