"""google-cloud-aiplatform's experiment-model samples, chained as a user would run them: a
scikit-learn model saved, logged to a run, read back, loaded and registered.

Source: googleapis/python-aiplatform@91cc8ce4f015771b5d8c43c8764ea9dc9abdb216
samples/model-builder/experiment_tracking/: save_model_sample, get_experiment_model_sample,
get_model_info_sample, load_experiment_model_sample, register_experiment_model_sample,
log_model_sample, get_experiment_run_models_sample (with create_experiment_run_sample to make the
run log_model_sample resumes). Each sample's body is called as it is, with its arguments made
concrete. scikit-learn is the one in ``.venv/autologging`` (tests/fixtures/autologging.txt):
1.9, newer than any prebuilt serving container, so the SDK itself refuses
register_experiment_model_sample's ``register_model(display_name=...)`` before any call (it asks
for a serving container); the register is then made as python-aiplatform's system test makes it,
with the newest sklearn container.
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
def test_experiment_model_samples(aiplatform: Any) -> None:
    import numpy as np
    from sklearn.linear_model import LinearRegression

    project, location = PROJECT_ID, LOCATION
    train_x = np.array([[1, 1], [1, 2], [2, 2], [2, 3]])
    train_y = np.dot(train_x, np.array([1, 2])) + 3
    model = LinearRegression().fit(train_x, train_y)

    # save_model_sample
    aiplatform.init(project=project, location=location)
    aiplatform.save_model(model=model, artifact_id="my-sklearn-model", uri=None, input_example=train_x[:2],
                          display_name="my sklearn model", staging_bucket=BUCKET_URI)

    # get_experiment_model_sample
    aiplatform.init(project=project, location=location)
    experiment_model = aiplatform.get_experiment_model(artifact_id="my-sklearn-model")
    assert experiment_model.display_name == "my sklearn model"
    assert experiment_model.uri.startswith(BUCKET_URI + "/") and experiment_model.uri.endswith("sklearn-model")

    # get_model_info_sample
    info = aiplatform.get_experiment_model(artifact_id="my-sklearn-model", project=project,
                                           location=location).get_model_info()
    assert info["model_class"] == "sklearn.linear_model._base.LinearRegression"
    assert info["framework_name"] == "sklearn" and info["input_example"]["data"] == train_x[:2].tolist()

    # load_experiment_model_sample
    loaded = aiplatform.get_experiment_model(artifact_id="my-sklearn-model", project=project,
                                             location=location).load_model()
    assert loaded.predict(train_x).tolist() == pytest.approx(train_y.tolist())

    # register_experiment_model_sample
    from google.cloud.aiplatform.constants import prediction

    with pytest.raises(ValueError, match="Vertex pre-built containers support up to `sklearn` version"):
        aiplatform.get_experiment_model(artifact_id="my-sklearn-model", project=project,
                                        location=location).register_model(display_name="my-registered-model")
    _, container_uri = max(prediction._SERVING_CONTAINER_URI_MAP[location.split("-", 1)[0]]["sklearn"]["cpu"].items())
    registered = aiplatform.get_experiment_model(artifact_id="my-sklearn-model", project=project, location=location
                                                 ).register_model(display_name="my-registered-model",
                                                                  serving_container_image_uri=container_uri)
    assert registered.gca_resource.container_spec.image_uri == container_uri
    assert registered.display_name == "my-registered-model" and registered.uri == experiment_model.uri
    assert [m.resource_name for m in aiplatform.Model.list(filter='display_name="my-registered-model"')] == [
        registered.resource_name]

    # create_experiment_run_sample, then log_model_sample (which resumes the run)
    experiment_name, run_name = "my-experiment", "my-run"
    aiplatform.init(experiment=experiment_name, project=project, location=location)
    aiplatform.start_run(run=run_name)
    aiplatform.end_run()
    aiplatform.init(experiment=experiment_name, project=project, location=location, staging_bucket=BUCKET_URI)
    aiplatform.start_run(run=run_name, resume=True)
    aiplatform.log_model(model=model, artifact_id="my-logged-model", uri=None, input_example=None,
                         display_name="my logged model")
    aiplatform.end_run()

    # get_experiment_run_models_sample
    experiment_run = aiplatform.ExperimentRun(run_name=run_name, experiment=experiment_name, project=project,
                                              location=location)
    models = experiment_run.get_experiment_models()
    assert [m.name for m in models] == ["my-logged-model"]
    assert models[0].load_model().predict(train_x).tolist() == pytest.approx(train_y.tolist())

    registered.delete()
    experiment_model.delete()
    aiplatform.Experiment(experiment_name).delete(delete_backing_tensorboard_runs=False)
