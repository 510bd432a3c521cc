"""What a trainer run by the emulator sees of its job's tracking: project, region, experiment and run
(provider/backends/local/cluster.py tracking_env, trainer_env.py, trainer_site.py).

The test process runs ``CustomJob.run(experiment=..., experiment_run=...)`` through the real
google-cloud-aiplatform against the emulator; the trainer, a real process on the local backend,
calls the same SDK with nothing in its code but ``aiplatform.init()``, ``log_params`` and
``log_metrics`` (and ``start_run(resume=True)``), and what it logged is read back from the run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from provider.emulator.server import Emulator
from provider.packaging.gcs import GcsStager, gcs_client
from provider.packaging.stage import stage
from tests.vertex import conftest as vertex
from tests.vertex.conftest import BUCKET, LOCATION, PARENT, PROJECT, ROOT

# the emulator's fixtures (tests/vertex/conftest.py): an emulator per test, the jobs' environment
job_env, emulators, emulator = vertex.job_env, vertex.emulators, vertex.emulator

pytestmark = pytest.mark.slow

TRACKED = ROOT / "tests" / "fixtures" / "trainers" / "tracked"
ACCOUNT = f"trainer@{PROJECT}.iam.gserviceaccount.com"  # the SDK wants one with an experiment
EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest"
CONTEXTS = f"{PARENT}/metadataStores/default/contexts"


@pytest.fixture
def sdk(emulator: Emulator, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform
    from google.cloud.aiplatform import initializer, jobs
    from google.cloud.aiplatform.metadata import metadata

    monkeypatch.setattr(jobs, "_JOB_WAIT_TIME", 0.2)  # CustomJob.run() polls every 5 s
    aiplatform.init(project=PROJECT, location=LOCATION, api_endpoint=emulator.endpoint, api_transport="rest",
                    credentials=AnonymousCredentials(), staging_bucket=f"gs://{BUCKET}")
    yield aiplatform
    metadata._experiment_tracker.__init__()  # type: ignore[misc]  # reset() keeps the global tensorboard
    initializer.global_config.__init__()  # type: ignore[misc]  # forget the endpoint for later tests


def _run(sdk: Any, emulator: Emulator, name: str, args: list[str], **run: Any) -> Any:
    from google.cloud import aiplatform

    uri = f"gs://{BUCKET}/packages/tracked.tar.gz"
    stage(TRACKED, uri, GcsStager(gcs_client(PROJECT, emulator.endpoint)))
    site = str(Path(aiplatform.__file__).parents[3])  # where the SDK is installed, given to the trainer
    specs = [{"replica_count": 1, "machine_spec": {"machine_type": "n1-standard-4"},
              "python_package_spec": {"executor_image_uri": EXECUTOR, "package_uris": [uri],
                                      "python_module": "tracked.task", "args": args,
                                      "env": [{"name": "SDK_SITE", "value": site}]}}]
    job = sdk.CustomJob(display_name=name, worker_pool_specs=specs)
    if run.pop("submit", False):
        job.submit(service_account=ACCOUNT, **run)
    else:
        job.run(service_account=ACCOUNT, **run)
    return job


def _log(emulator: Emulator, job: Any) -> str:
    return (emulator.local.store.job_dir(job.name) / "logs" / "workerpool0-0.log").read_text()


def test_a_trainer_logs_to_the_run_its_job_is_run_in(sdk: Any, emulator: Emulator) -> None:
    sdk.init(experiment="tracked")
    sdk.start_run("first")
    sdk.end_run()
    job = _run(sdk, emulator, "in-a-run", [], experiment="tracked", experiment_run="first")
    assert job.state.name == "JOB_STATE_SUCCEEDED", _log(emulator, job)
    run = sdk.ExperimentRun("first", experiment="tracked")
    assert run.get_params() == {"learning_rate": 0.01, "optimizer": "adam"}
    assert run.get_metrics() == {"accuracy": 0.75, "loss": 0.5}
    assert f"logged to {CONTEXTS}/tracked-first" in _log(emulator, job)
    assert [j["custom_job_resource_name"] for j in run._metadata_node.metadata["_custom_jobs"]] == [job.resource_name]
    # google-cloud-storage in the trainer wrote to the emulated storage, as it writes to Cloud Storage on Vertex AI
    assert gcs_client(PROJECT, emulator.endpoint).bucket(BUCKET).blob("tracked/done.txt").download_as_text() == "done"
    seen = next(json.loads(line[len("env: "):]) for line in _log(emulator, job).splitlines() if line.startswith("env: "))
    assert seen == {"AIP_EXPERIMENT_NAME": f"{CONTEXTS}/tracked", "AIP_EXPERIMENT_RUN_NAME": f"{CONTEXTS}/tracked-first",
                    "CLOUD_ML_PROJECT_ID": PROJECT, "CLOUD_ML_REGION": LOCATION}


def test_start_run_resume_in_the_trainer_reaches_the_named_run(sdk: Any, emulator: Emulator) -> None:
    sdk.init(experiment="resumed")
    for name in ("first", "second"):
        sdk.start_run(name)
        sdk.end_run()
    job = _run(sdk, emulator, "resumes", ["--resume", "second"], experiment="resumed", experiment_run="first")
    assert job.state.name == "JOB_STATE_SUCCEEDED", _log(emulator, job)
    assert sdk.ExperimentRun("second", experiment="resumed").get_params() == {"learning_rate": 0.01,
                                                                              "optimizer": "adam"}
    assert sdk.ExperimentRun("first", experiment="resumed").get_params() == {}


def test_a_job_run_in_an_experiment_alone_gets_a_run_named_by_its_id(sdk: Any, emulator: Emulator) -> None:
    """CustomJob.run(experiment=...) without a run: the emulator makes one, as Vertex AI does
    (job_tracking.prepare), the trainer logs to it, and it ends with the job."""
    sdk.init(experiment="made")
    job = _run(sdk, emulator, "no-run", ["--series"], experiment="made")
    assert job.state.name == "JOB_STATE_SUCCEEDED", _log(emulator, job)
    job_id = job.name  # the SDK's name is the job's ID
    run_name = f"{CONTEXTS}/made-{job_id}"
    assert job.job_spec.experiment_run == run_name  # filled in by the emulator
    seen = next(json.loads(line[len("env: "):]) for line in _log(emulator, job).splitlines() if line.startswith("env: "))
    assert seen["AIP_EXPERIMENT_RUN_NAME"] == run_name
    runs = sdk.ExperimentRun.list(experiment="made")
    assert [r.name for r in runs] == [job_id]
    run = sdk.ExperimentRun(job_id, experiment="made")
    assert run.resource_name == run_name
    assert run.get_params() == {"learning_rate": 0.01, "optimizer": "adam"}
    assert run.get_metrics() == {"accuracy": 0.75, "loss": 0.5}
    assert run.get_state() == "COMPLETE"
    assert [j["custom_job_resource_name"] for j in run._metadata_node.metadata["_custom_jobs"]] == [job.resource_name]
    # log_time_series_metrics in the trainer gave the run a backing TensorBoard run (the experiment's board)
    series = run._backing_tensorboard_run.resource.read_time_series_data()
    assert [(p.step, round(p.scalar.value, 6)) for p in series["loss"].values] == [(1, 0.9), (2, 0.4)]
    frame = sdk.get_experiment_df("made").set_index("run_name")
    assert list(frame.index) == [job_id]
    assert frame.loc[job_id, "param.optimizer"] == "adam" and frame.loc[job_id, "metric.accuracy"] == 0.75
    assert frame.loc[job_id, "state"] == "COMPLETE"


def test_the_run_made_for_a_failed_job_fails_with_it(sdk: Any, emulator: Emulator) -> None:
    """Submitted without waiting (CustomJob.run would end the run itself): the emulator ends the run it
    made once the job is listed FAILED; a run the caller named is left to the caller."""
    import time

    sdk.init(experiment="failing")
    sdk.start_run("named")
    sdk.end_run(state=sdk.gapic.Execution.State.RUNNING)
    made = _run(sdk, emulator, "fails", ["--no-such-flag"], experiment="failing", submit=True)
    named = _run(sdk, emulator, "fails-named", ["--no-such-flag"], experiment="failing", experiment_run="named",
                 submit=True)
    deadline = time.monotonic() + 300
    states: dict[str, str] = {}
    while set(states.values()) != {"JOB_STATE_FAILED"} and time.monotonic() < deadline:
        time.sleep(0.2)  # listed, never read one by one: the run made for a job ends with it
        states = {j.resource_name: j.state.name for j in sdk.CustomJob.list()}
    assert states == {made.resource_name: "JOB_STATE_FAILED", named.resource_name: "JOB_STATE_FAILED"}, \
        _log(emulator, made)
    assert sdk.ExperimentRun(made.name, experiment="failing").get_state() == "FAILED"
    assert sdk.ExperimentRun("named", experiment="failing").get_state() == "RUNNING"
    assert sorted(r.name for r in sdk.ExperimentRun.list(experiment="failing")) == sorted(["named", made.name])


def test_only_what_the_job_names_is_given() -> None:
    from provider.backends.local.cluster import tracking_env

    assert tracking_env({}, PARENT) == {"CLOUD_ML_PROJECT_ID": PROJECT, "CLOUD_ML_REGION": LOCATION}
    board = f"{PARENT}/tensorboards/7"
    assert tracking_env({"tensorboard": board, "experiment": f"{CONTEXTS}/e"}, PARENT) == {
        "CLOUD_ML_PROJECT_ID": PROJECT, "CLOUD_ML_REGION": LOCATION, "AIP_TENSORBOARD_RESOURCE_NAME": board,
        "AIP_EXPERIMENT_NAME": f"{CONTEXTS}/e"}


def test_a_trainers_own_sitecustomize_still_runs(tmp_path: Path) -> None:
    """trainer_site.py hides any sitecustomize later on the path: it runs that one itself."""
    import subprocess
    import sys

    from provider.backends.local import trainer_env

    job_dir, theirs = tmp_path / "job", tmp_path / "theirs"
    job_dir.mkdir()
    theirs.mkdir()
    (theirs / "sitecustomize.py").write_text("import os\nos.environ['THEIRS'] = 'ran'\n")
    env = trainer_env.site_env(job_dir, {"PYTHONPATH": str(theirs)}, "http://127.0.0.1:9", None)
    assert env["PYTHONPATH"] == f"{job_dir / 'site'}:{theirs}"
    assert env["STORAGE_EMULATOR_HOST"] == "http://127.0.0.1:9"
    done = subprocess.run([sys.executable, "-c", "import os, sys; print(os.environ.get('THEIRS'), "
                           "type(sys.meta_path[0]).__name__)"], env={**env, "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["ran", "_Finder"], done.stderr
    assert trainer_env.site_env(job_dir, {}, None, None) == {}  # nothing to do: the trainer's path is left alone
