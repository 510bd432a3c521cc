"""python-aiplatform's custom job system test: a local script packaged by the SDK and run on a
prebuilt and on a custom container, with and without autologging to an experiment.

Source: googleapis/python-aiplatform@91cc8ce4f015771b5d8c43c8764ea9dc9abdb216
tests/system/aiplatform/test_custom_job.py, its script
tests/system/aiplatform/test_resources/custom_job_script.py as it is. The script's requirements
(scikit-learn, pandas; with autologging also google-cloud-aiplatform[autologging]) are installed by
the trainer's pip from the setup's wheelhouse, offline; the wheelhouse holds none of them here, so
the prebuilt-container tests are skipped naming the missing wheels. The custom-container tests run
``python:3.8``: this machine has no container engine, so they are accepted and fail saying so; the
one with an experiment and no run still gets its run made by the service (the test reads it back
with ``Context.get``). The service account is built from the project's number as the test builds
it (Cloud Resource Manager cannot be reached: see test_system_model_version_management).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.vertex.notebooks.conftest import BUCKET_URI, LOCATION, PROJECT_ID, WHEELHOUSE

pytestmark = pytest.mark.usefixtures("offline_pip")

_PREBUILT_CONTAINER_IMAGE = "us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest"
_CUSTOM_CONTAINER_IMAGE = "python:3.8"
SCRIPT = '''
import pandas as pd
from sklearn.linear_model import LinearRegression

# Create Dataset
data = {"A": [1.1, 2.2, 4.1, 5.2], "B": [200, 212.12, 22, 123], "Y": [1, 0, 1, 0]}
df = pd.DataFrame(data)
X = df[["A", "B"]]
Y = df["Y"]

# Train model
model = LinearRegression().fit(X, Y)
model.score(X, Y)
'''
_experiment_name = "temp-vertex-sdk-custom-job-experiment"
_experiment_run_name = "temp-vertex-sdk-custom-job-experiment-run"


@pytest.fixture
def script(tmp_path: Path, aiplatform: Any, monkeypatch: pytest.MonkeyPatch) -> str:
    from google.cloud.aiplatform.utils import resource_manager_utils

    monkeypatch.setattr(resource_manager_utils, "get_project_number", lambda project_id, credentials=None: "0")
    path = tmp_path / "custom_job_script.py"
    path.write_text(SCRIPT)
    return str(path)


def _service_account() -> str:
    from google.cloud.aiplatform.utils import resource_manager_utils

    project_number = resource_manager_utils.get_project_number(PROJECT_ID)
    return f"{project_number}-compute@developer.gserviceaccount.com"


def _needs_wheels(*names: str) -> None:
    missing = [n for n in names if not any(WHEELHOUSE.glob(f"{n}-*.whl"))]
    if missing:
        pytest.skip(f"the script requires {', '.join(missing)}, whose wheels are not in {WHEELHOUSE} "
                    "(the trainer's pip installs offline from there)")


def _fails_for_want_of_a_container_engine(custom_job: Any) -> None:
    with pytest.raises(RuntimeError, match="failed") as failed:
        custom_job.run()
    message = str(failed.value)
    assert "container engine" in message or "docker" in message.lower(), message
    assert custom_job.state.name == "JOB_STATE_FAILED"


def test_from_local_script_prebuilt_container(aiplatform: Any, script: str) -> None:
    _needs_wheels("scikit_learn", "pandas")
    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    custom_job = aiplatform.CustomJob.from_local_script(
        display_name="temp-vertex-sdk-custom-job-custom-job",
        script_path=script,
        container_uri=_PREBUILT_CONTAINER_IMAGE,
        requirements=["scikit-learn", "pandas"],
    )
    custom_job.run()
    assert custom_job.state.name == "JOB_STATE_SUCCEEDED"
    custom_job.delete()


def test_from_local_script_custom_container(aiplatform: Any, script: str) -> None:
    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    custom_job = aiplatform.CustomJob.from_local_script(
        display_name="temp-vertex-sdk-custom-job-custom-job",
        script_path=script,
        container_uri=_CUSTOM_CONTAINER_IMAGE,
        requirements=["scikit-learn", "pandas"],
    )
    _fails_for_want_of_a_container_engine(custom_job)
    spec = custom_job.job_spec.worker_pool_specs[0]
    assert spec.container_spec.image_uri == _CUSTOM_CONTAINER_IMAGE
    custom_job.delete()


@pytest.mark.filterwarnings("ignore:unclosed file:ResourceWarning")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_from_local_script_enable_autolog_prebuilt_container(aiplatform: Any, script: str) -> None:
    _needs_wheels("scikit_learn", "pandas", "mlflow_skinny")
    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI,
                    experiment=_experiment_name)
    custom_job = aiplatform.CustomJob.from_local_script(
        display_name="temp-vertex-sdk-custom-job-custom-job",
        script_path=script,
        container_uri=_PREBUILT_CONTAINER_IMAGE,
        requirements=["scikit-learn", "pandas"],
        enable_autolog=True,
    )
    with aiplatform.start_run(_experiment_run_name) as run:
        custom_job.run(experiment=_experiment_name, experiment_run=run, service_account=_service_account())
    assert custom_job.state.name == "JOB_STATE_SUCCEEDED"


# The SDK reads the script with open(...).read() and leaves it open (jobs.py, from_local_script with
# enable_autolog): the ResourceWarning is the SDK's.
@pytest.mark.filterwarnings("ignore:unclosed file:ResourceWarning")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_from_local_script_enable_autolog_custom_container(aiplatform: Any, script: str) -> None:
    # The experiment the test before made with init(experiment=...), whether or not that one ran here.
    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI, experiment=_experiment_name)
    aiplatform.init(project=PROJECT_ID, location=LOCATION, staging_bucket=BUCKET_URI)
    custom_job = aiplatform.CustomJob.from_local_script(
        display_name="temp-vertex-sdk-custom-job-custom-job",
        script_path=script,
        container_uri=_CUSTOM_CONTAINER_IMAGE,
        requirements=["scikit-learn", "pandas"],
        enable_autolog=True,
    )
    # Let the job auto-create the experiment run.
    with pytest.raises(RuntimeError, match="failed") as failed:
        custom_job.run(experiment=_experiment_name, service_account=_service_account())
    message = str(failed.value)
    assert "container engine" in message or "docker" in message.lower(), message
    assert custom_job.job_spec.service_account == "0-compute@developer.gserviceaccount.com"
    experiment_run_resource = aiplatform.Context.get(custom_job.job_spec.experiment_run)
    assert experiment_run_resource is not None
    assert experiment_run_resource.resource_name == custom_job.job_spec.experiment_run
    run = aiplatform.ExperimentRun(experiment_run_resource.display_name, experiment=_experiment_name)
    # The emulator ended it FAILED with the job; the SDK's wait then marks the job's run COMPLETE
    # whatever the job's end (jobs.py, _block_until_complete), and the test reads that.
    assert run.name == custom_job.name and run.get_state() == "COMPLETE"
    custom_job.delete()
    experiment_run_resource.delete()
    aiplatform.Experiment(_experiment_name).delete()
