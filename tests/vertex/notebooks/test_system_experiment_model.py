"""python-aiplatform's experiment model system test: a scikit-learn model saved as an experiment
model, read back, loaded and registered in the model registry.

Source: googleapis/python-aiplatform@91cc8ce4f015771b5d8c43c8764ea9dc9abdb216
tests/system/aiplatform/test_experiment_model.py (test_sklearn_model). scikit-learn is the one
installed in ``.venv/autologging`` (tests/fixtures/autologging.txt), put on sys.path. The XGBoost and
TensorFlow tests need those frameworks, not installed here: skipped by name. Its deploy tests
serve the registered model, which the emulator does not (named "not emulated"): the first is run
to that error.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID, ROOT, set_up_by_setup_sh

AUTOLOGGING = ROOT / ".venv" / "autologging"


@pytest.fixture
def sklearn_path(monkeypatch: pytest.MonkeyPatch) -> None:
    if not (AUTOLOGGING / "sklearn").is_dir():
        set_up_by_setup_sh(f"scikit-learn in {AUTOLOGGING}")
    monkeypatch.syspath_prepend(str(AUTOLOGGING))


@pytest.mark.usefixtures("sklearn_path")
def test_sklearn_model(aiplatform: Any) -> None:
    import numpy as np
    import sklearn
    from google.api_core import exceptions
    from google.cloud.aiplatform.constants import prediction
    from sklearn.linear_model import LinearRegression

    container_map = prediction._SERVING_CONTAINER_URI_MAP[LOCATION.split("-", 1)[0]]
    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)

    train_x = np.array([[1, 1], [1, 2], [2, 2], [2, 3]])
    train_y = np.dot(train_x, np.array([1, 2])) + 3
    model = LinearRegression()
    model.fit(train_x, train_y)

    # Test save sklearn model
    aiplatform.save_model(model, "sk-model")

    # Test get ExperimentModel with aritfact id
    model_artifact = aiplatform.get_experiment_model("sk-model")
    assert model_artifact.uri.endswith("sklearn-model")

    # Test get model info from ExperimentModel
    model_info = model_artifact.get_model_info()
    assert model_info == {
        "model_class": "sklearn.linear_model._base.LinearRegression",
        "framework_name": "sklearn",
        "framework_version": sklearn.__version__,
    }

    # Test load model and make prediction
    loaded_model = model_artifact.load_model()
    preds = loaded_model.predict(train_x)
    assert isinstance(preds, np.ndarray)
    assert preds.tolist() == pytest.approx(train_y.tolist())

    # Test register model
    version, container_uri = max(container_map["sklearn"]["cpu"].items())
    if version >= sklearn.__version__:
        registered_model = model_artifact.register_model()
    else:
        registered_model = model_artifact.register_model(serving_container_image_uri=container_uri)
    assert registered_model.display_name.startswith("sklearn model")
    assert registered_model.uri == model_artifact.uri
    assert registered_model.gca_resource.container_spec.image_uri.startswith(
        f"{LOCATION.split('-', 1)[0]}-docker.pkg.dev/vertex-ai/prediction/sklearn-cpu")
    assert [m.resource_name for m in aiplatform.Model.list()] == [registered_model.resource_name]

    # test_deploy_model_with_cpu_container: serving is not emulated, by name.
    with pytest.raises(exceptions.GoogleAPICallError, match="not emulated"):
        registered_model.deploy()

    # tear_down_resources: the artifact, then the model.
    model_artifact.delete()
    registered_model.delete()
    with pytest.raises(exceptions.NotFound):
        aiplatform.get_experiment_model("sk-model")
    assert aiplatform.Model.list() == []


def test_xgboost_booster_with_custom_uri(aiplatform: Any) -> None:
    """Needs XGBoost, not installed here: skipped, by name, where it is missing. (The TensorFlow
    tests, test_tensorflow_keras_model_with_input_example and test_tensorflow_module_with_gpu_container,
    are not carried: TensorFlow is out of this corpus.)"""
    xgb = pytest.importorskip("xgboost", reason="test_xgboost_booster_with_custom_uri needs XGBoost, not installed here")
    import numpy as np

    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    train_x = np.array([[1, 1], [1, 2], [2, 2], [2, 3]])
    train_y = np.array([1, 1, 0, 0])
    dtrain = xgb.DMatrix(data=train_x, label=train_y)
    booster = xgb.train(params={"num_parallel_tree": 4, "subsample": 0.5, "num_class": 2}, dtrain=dtrain)
    uri = f"{BUCKET_URI}/custom-uri"
    aiplatform.save_model(model=booster, artifact_id="xgb-booster", uri=uri)
    model_artifact = aiplatform.get_experiment_model("xgb-booster")
    assert model_artifact.uri == uri
    assert model_artifact.get_model_info() == {
        "model_class": "xgboost.core.Booster", "framework_name": "xgboost", "framework_version": xgb.__version__}
    preds = model_artifact.load_model().predict(xgb.DMatrix(data=train_x))
    assert isinstance(preds, np.ndarray)
    assert model_artifact.register_model().display_name.startswith("xgboost model")
