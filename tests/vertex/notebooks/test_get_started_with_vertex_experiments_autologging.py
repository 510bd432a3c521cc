"""get_started_with_vertex_experiments_autologging: an experiment backed by a TensorBoard made with
no arguments, autologging with runs made for it and by hand, then every experiment deleted.

Source: GoogleCloudPlatform/vertex-ai-samples@cc0d791ef25a4f8a9bbd9b6c9ef4928b8b96c35a
notebooks/official/experiments/get_started_with_vertex_experiments_autologging.ipynb (cells
16-62). ``autolog()`` needs MLflow (the SDK's ``autologging`` extra, mlflow<=2.16.0):
``scripts/setup.sh dev`` installs mlflow-skinny 2.16.0 and scikit-learn beside the venv, in
``.venv/autologging`` (tests/fixtures/autologging.txt says why beside it), which the test puts on
sys.path. The notebook's scikit-learn training is kept (a DecisionTreeClassifier on a small frame,
without category_encoders); its TensorFlow and PyTorch trainings are not (neither is installed).
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID, ROOT, no_adc, set_up_by_setup_sh

AUTOLOGGING = ROOT / ".venv" / "autologging"


def test_experiment_with_a_default_tensorboard_and_cleanup(aiplatform: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    no_adc(monkeypatch)
    vertex_ai = aiplatform
    UUID = uuid.uuid4().hex[:8]
    vertex_ai.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    autologged_experiment_name = f"autologging-experiment-{UUID}"
    experiment_tensorboard = vertex_ai.Tensorboard.create()
    vertex_ai.init(
        project=PROJECT_ID,
        location=LOCATION,
        staging_bucket=BUCKET_URI,
        experiment=autologged_experiment_name,
        experiment_tensorboard=experiment_tensorboard,
        experiment_description="autolog-experiment-with-automatic-run",
    )
    exp = vertex_ai.Experiment(autologged_experiment_name)
    assert exp.get_backing_tensorboard_resource().resource_name == experiment_tensorboard.resource_name
    assert exp._metadata_context.description == "autolog-experiment-with-automatic-run"
    vertex_ai.start_run("manual-run")
    vertex_ai.log_metrics({"accuracy": 0.5})
    vertex_ai.end_run()
    experiment_list = vertex_ai.Experiment.list()
    assert autologged_experiment_name in [e.name for e in experiment_list]
    for experiment in experiment_list:
        experiment.delete()
    assert vertex_ai.Experiment.list() == []


def test_autolog_with_an_automatic_and_a_manual_run(aiplatform: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    if not (AUTOLOGGING / "mlflow").is_dir() or not (AUTOLOGGING / "sklearn").is_dir():
        set_up_by_setup_sh(f"MLflow and scikit-learn for aiplatform.autolog() in {AUTOLOGGING}")
    monkeypatch.syspath_prepend(str(AUTOLOGGING))
    import mlflow
    import pandas as pd
    from sklearn.tree import DecisionTreeClassifier

    no_adc(monkeypatch)
    vertex_ai = aiplatform
    UUID = uuid.uuid4().hex[:8]
    vertex_ai.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    autologged_experiment_name = f"autologging-experiment-{UUID}"
    experiment_tensorboard = vertex_ai.Tensorboard.create()
    vertex_ai.init(
        project=PROJECT_ID,
        location=LOCATION,
        staging_bucket=BUCKET_URI,
        experiment=autologged_experiment_name,
        experiment_tensorboard=experiment_tensorboard,
        experiment_description="autolog-experiment-with-automatic-run",
    )
    vertex_ai.autolog()
    x = pd.DataFrame({"buying": [0, 1, 2, 3] * 5, "safety": [1, 0, 1, 0] * 5})
    y = pd.DataFrame({"class": [0, 1, 1, 0] * 5})
    DecisionTreeClassifier(criterion="gini", max_depth=3).fit(x, y)
    experiment_df = vertex_ai.get_experiment_df()
    (auto,) = experiment_df.to_dict("records")
    assert auto["param.max_depth"] == "3" or auto["param.max_depth"] == 3

    autologged_manual_run_experiment_name = f"autologging-tf-experiment-{UUID}"
    vertex_ai.start_run(autologged_manual_run_experiment_name)
    DecisionTreeClassifier(criterion="gini", max_depth=2).fit(x, y)
    vertex_ai.end_run()
    experiment_df = vertex_ai.get_experiment_df()
    assert autologged_manual_run_experiment_name in list(experiment_df.run_name)
    vertex_ai.autolog(disable=True)
    assert mlflow.get_tracking_uri() != "vertex-mlflow-plugin://"  # autolog(disable=True) gave MLflow back
    experiment_list = vertex_ai.Experiment.list()
    for experiment in experiment_list:
        experiment.delete()
