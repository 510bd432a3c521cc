"""The experiment runs the emulator makes for jobs follow their jobs with no read of the job
(provider/emulator/run_watch.py): a client that reads only the experiment sees a run end as its
job does, across an emulator restart, and a tuning job's trial runs end as their trials do.

Each test of a job serves a real ``trainjobs emulator`` process and drives it with the real
google-cloud-aiplatform (its high-level classes, and its gapic JobServiceClient for a tuning job,
whose SDK class has no experiment parameter). The waits poll the experiment runs only, never the
job, unless the test says why.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from provider.backends.local.backend import LocalBackend
from provider.emulator.server import Emulator
from provider.packaging.gcs import GcsStager, gcs_client
from provider.packaging.stage import stage
from tests.local.conftest import PROBE, cleanup
from tests.vertex.conftest import BUCKET, CURVES, JOB_TIMEOUT, LOCATION, PARENT, PROJECT, ROOT, TRACKED_ACCOUNT

pytestmark = pytest.mark.slow

T = TypeVar("T")
STORE = f"{PARENT}/metadataStores/default"
EXECUTOR = "us-docker.pkg.dev/vertex-ai/training/sklearn-cpu.1-0:latest"
TRACKED_TRIAL = ROOT / "tests" / "fixtures" / "trainers" / "tracked_trial"  # logs to its trial's run
SLOW_TRIAL = ROOT / "tests" / "fixtures" / "trainers" / "slow_trial"  # trial 1 ends, the others wait


class Served:
    """``trainjobs emulator`` processes on one state dir, one at a time; ``close`` stops them and
    checks, as the in-process fixtures do, that no job process survives the test."""

    def __init__(self, state: Path, logs: Path) -> None:
        self.state = state
        self.logs = logs
        self.proc: subprocess.Popen[str] | None = None
        self.starts = 0

    def start(self) -> str:
        """Start one; its endpoint."""
        self.starts += 1
        stderr = open(self.logs / f"emulator-{self.starts}.err", "w")  # noqa: SIM115  (the process owns it)
        self.proc = subprocess.Popen([sys.executable, "-m", "provider", "emulator", "--port", "0", "--state-dir",
                                      str(self.state)], cwd=ROOT, env={**os.environ, "NO_COLOR": "1"},
                                     stdout=subprocess.PIPE, stderr=stderr, text=True)
        stderr.close()
        assert self.proc.stdout is not None
        first = self.proc.stdout.readline()
        found = re.match(r"trainjobs emulator: Vertex AI on (http://127\.0\.0\.1:\d+)$", first.strip())
        assert found, (first, self.errors())
        return found.group(1)

    def stop(self) -> None:
        """SIGTERM, as Ctrl-C: the emulator stops, its jobs keep running."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        assert proc.returncode == 0, self.errors()

    def errors(self) -> str:
        return "\n".join(p.read_text() for p in sorted(self.logs.glob("emulator-*.err")))

    def local(self) -> LocalBackend:
        """The local backend its jobs run on (the state dir's ``local/``)."""
        return LocalBackend(home=self.state / "local", storage_root=self.state / "storage", adopt=False)

    def close(self) -> None:
        try:
            self.stop()
        finally:
            cleanup(self.local())


@pytest.fixture
def served(tmp_path: Path, job_env: None) -> Iterator[Served]:
    group = Served(tmp_path / "emulator", tmp_path)
    try:
        yield group
    finally:
        group.close()


@pytest.fixture
def sdk() -> Iterator[Any]:
    """google-cloud-aiplatform, its global configuration forgotten after the test."""
    from google.cloud import aiplatform
    from google.cloud.aiplatform import initializer
    from google.cloud.aiplatform.metadata import metadata

    yield aiplatform
    metadata._experiment_tracker.__init__()  # type: ignore[misc]  # reset() keeps the global tensorboard
    initializer.global_config.__init__()  # type: ignore[misc]  # forget the endpoint for later tests


def _init(sdk: Any, endpoint: str, experiment: str) -> None:
    from google.auth.credentials import AnonymousCredentials

    sdk.init(project=PROJECT, location=LOCATION, api_endpoint=endpoint, api_transport="rest",
             credentials=AnonymousCredentials(), experiment=experiment, staging_bucket=f"gs://{BUCKET}")


def _package(endpoint: str, source: Path, name: str) -> str:
    """The trainer package at ``source``, built and put in the emulated storage (its bucket made first)."""
    from google.api_core.exceptions import Conflict

    storage = gcs_client(PROJECT, endpoint)
    with contextlib.suppress(Conflict):  # made by an earlier call
        storage.create_bucket(BUCKET)
    uri = f"gs://{BUCKET}/packages/{name}.tar.gz"
    stage(source, uri, GcsStager(storage))
    return uri


def _job(sdk: Any, name: str, uri: str, module: str, args: list[str]) -> Any:
    specs = [{"replica_count": 1, "machine_spec": {"machine_type": "n1-standard-4"},
              "python_package_spec": {"executor_image_uri": EXECUTOR, "package_uris": [uri],
                                      "python_module": module, "args": args}}]
    return sdk.CustomJob(display_name=name, worker_pool_specs=specs, base_output_dir=f"gs://{BUCKET}/out/{name}")


def _until(read: Callable[[], T], done: Callable[[T], bool], what: str) -> T:
    deadline = time.monotonic() + JOB_TIMEOUT
    value = read()
    while not done(value):
        assert time.monotonic() < deadline, f"{what}: still {value!r} after {JOB_TIMEOUT:g}s"
        time.sleep(0.3)
        value = read()
    return value


def _run_state(sdk: Any, run: str, experiment: str) -> str:
    """The run's state as the SDK reads it, the run read afresh."""
    return str(sdk.ExperimentRun(run, experiment=experiment).get_state())


def test_a_jobs_run_ends_with_the_job_though_only_the_experiment_is_read(served: Served, sdk: Any) -> None:
    """CustomJob.submit(experiment=...) with no run: the run the emulator made ends COMPLETE, FAILED or
    CANCELLED as its job does, seen through ExperimentRun and get_experiment_df alone."""
    endpoint = served.start()
    _init(sdk, endpoint, "watched")
    curves, probe = _package(endpoint, CURVES, "curves"), _package(endpoint, PROBE, "probe")
    jobs = {"done": _job(sdk, "done", curves, "curves.task", []),
            "failed": _job(sdk, "failed", probe, "probe.task", ["--fail-replica", "workerpool0-0", "--fail-step", "1",
                                                                 "--steps", "3"]),
            "cancelled": _job(sdk, "cancelled", probe, "probe.task", ["--steps", "3000", "--step-seconds", "0.1"])}
    for job in jobs.values():
        job.submit(experiment="watched", service_account=TRACKED_ACCOUNT)
    runs = {key: job.resource_name.rsplit("/", 1)[1] for key, job in jobs.items()}  # from the create answer
    assert _run_state(sdk, runs["cancelled"], "watched") == "RUNNING"
    jobs["cancelled"].cancel()  # a cancel request: no read of the job
    ended = {key: _until(lambda run=run: _run_state(sdk, run, "watched"), lambda s: s != "RUNNING",
                         f"the run of the job {key!r}") for key, run in runs.items()}
    assert ended == {"done": "COMPLETE", "failed": "FAILED", "cancelled": "CANCELLED"}, served.errors()
    frame = sdk.get_experiment_df("watched")
    assert dict(zip(frame["run_name"], frame["state"], strict=True)) == {
        runs[key]: state for key, state in ended.items()}
    # And the jobs did end so (read now, after the fact).
    states = {key: sdk.CustomJob.get(job.resource_name).state.name for key, job in jobs.items()}
    assert states == {"done": "JOB_STATE_SUCCEEDED", "failed": "JOB_STATE_FAILED",
                      "cancelled": "JOB_STATE_CANCELLED"}


def test_a_job_that_ended_while_no_emulator_was_up_has_its_run_ended_at_start(served: Served, sdk: Any) -> None:
    endpoint = served.start()
    _init(sdk, endpoint, "restarted")
    job = _job(sdk, "across", _package(endpoint, PROBE, "probe"), "probe.task", ["--steps", "30",
                                                                                "--step-seconds", "0.1"])
    job.submit(experiment="restarted", service_account=TRACKED_ACCOUNT)
    run = job.resource_name.rsplit("/", 1)[1]
    served.stop()  # at once: the job runs on, and ends, with no emulator up
    local = served.local()
    _until(lambda: local.get(run).state, lambda s: s.terminal, "the local job")  # its files; no emulator to ask
    endpoint = served.start()
    _init(sdk, endpoint, "restarted")
    assert _until(lambda: _run_state(sdk, run, "restarted"), lambda s: s != "RUNNING", "the run") == "COMPLETE"


def test_a_jobs_tensorboard_logs_are_uploaded_once_it_ends_unread(served: Served, sdk: Any) -> None:
    """CustomJob.submit(tensorboard=...): the event files its trainer wrote become the TensorBoard's
    curves when it ends, read through the TensorBoard alone."""
    from google.api_core.exceptions import NotFound

    pytest.importorskip("tensorboard", reason="reading event files needs the tensorboard extra")
    endpoint = served.start()
    _init(sdk, endpoint, "boards")
    board = sdk.Tensorboard.create(display_name="board")
    job = _job(sdk, "logged", _package(endpoint, CURVES, "curves"), "curves.task", [])
    job.submit(tensorboard=board.resource_name, service_account=TRACKED_ACCOUNT)
    experiment = f"{board.resource_name}/experiments/{job.resource_name.rsplit('/', 1)[1]}"

    def curves() -> list[tuple[str, str]]:  # (run, tag) of what is uploaded
        try:
            return sorted((run.display_name, series.display_name)
                          for run in sdk.TensorboardRun.list(tensorboard_experiment_name=experiment)
                          for series in sdk.TensorboardTimeSeries.list(tensorboard_run_name=run.resource_name))
        except NotFound:  # not uploaded yet
            return []

    expected = [("eval", "loss"), ("train", "accuracy"), ("train", "loss")]
    assert _until(curves, lambda found: found == expected, "the job's curves") == expected


def _tuning_job(endpoint: str, uri: str, module: str, trials: int, parallel: int, env: dict[str, str]) -> str:
    """A tuning job whose trialJobSpec names the experiment ``tuned`` and no run, created through the
    gapic client; its name."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1

    client = aiplatform_v1.JobServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                            client_options={"api_endpoint": endpoint})
    body = {"displayName": "tuned", "maxTrialCount": trials, "parallelTrialCount": parallel,
            "studySpec": {"metrics": [{"metricId": "score", "goal": "MAXIMIZE"}],
                          "parameters": [{"parameterId": "lr", "doubleValueSpec": {"minValue": 0.001,
                                                                                   "maxValue": 0.1}}]},
            "trialJobSpec": {"serviceAccount": TRACKED_ACCOUNT, "experiment": f"{STORE}/contexts/tuned",
                             "workerPoolSpecs": [{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
                                                  "pythonPackageSpec": {
                                                      "executorImageUri": EXECUTOR, "packageUris": [uri],
                                                      "pythonModule": module,
                                                      "env": [{"name": k, "value": v} for k, v in env.items()]}}]}}
    job = client.create_hyperparameter_tuning_job(
        parent=PARENT, hyperparameter_tuning_job=aiplatform_v1.HyperparameterTuningJob.from_json(json.dumps(body)))
    return str(job.name)


def _run_states(sdk: Any) -> dict[str, str]:
    """Each run of the experiment ``tuned``: its state, as ExperimentRun.list reads them."""
    return {r.name: str(r.get_state()) for r in sdk.ExperimentRun.list(experiment="tuned")}


def test_a_tuning_jobs_trial_runs_end_with_their_trials_unread(served: Served, sdk: Any) -> None:
    endpoint = served.start()
    _init(sdk, endpoint, "tuned")
    uri = _package(endpoint, TRACKED_TRIAL, "tracked_trial")
    site = str(Path(sdk.__file__).parents[3])  # where the SDK is installed, given to the trainer
    job_id = _tuning_job(endpoint, uri, "tracked_trial.task", 2, 2, {"SDK_SITE": site}).rsplit("/", 1)[1]
    runs = _until(lambda: _run_states(sdk), lambda states: "RUNNING" not in states.values(), "the trial runs")
    assert runs == {f"{job_id}-1": "COMPLETE", f"{job_id}-2": "COMPLETE"}, served.errors()
    for trial in ("1", "2"):  # what each trainer logged to its own run
        assert set(sdk.ExperimentRun(f"{job_id}-{trial}", experiment="tuned").get_params()) == {"lr"}


def test_a_tuning_job_cancelled_part_way_keeps_the_runs_of_the_trials_that_ran(served: Served, sdk: Any) -> None:
    """Three trials one at a time, cancelled while the second runs: the first trial's run is COMPLETE,
    the second's CANCELLED, and the run made up front for the third, which never started, is gone."""
    from google.api_core.exceptions import NotFound
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1

    endpoint = served.start()
    _init(sdk, endpoint, "tuned")
    name = _tuning_job(endpoint, _package(endpoint, SLOW_TRIAL, "slow_trial"), "slow_trial.task", 3, 1, {})
    job_id = name.rsplit("/", 1)[1]
    client = aiplatform_v1.JobServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                            client_options={"api_endpoint": endpoint})
    # The job is read here, and only here, to cancel it once its second trial has started.
    _until(lambda: client.get_hyperparameter_tuning_job(name=name).trials,
           lambda trials: [t.id for t in trials] == ["1", "2"] and trials[1].state.name == "ACTIVE", "trial 2")
    client.cancel_hyperparameter_tuning_job(name=name)
    metadata = aiplatform_v1.MetadataServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                                   client_options={"api_endpoint": endpoint})

    def contexts() -> dict[str, str]:  # each run's state; not ExperimentRun.list, which fails on a run deleted
        return {c.name.rsplit("-", 1)[1]: str(c.metadata["_state"])  # while it lists (it reads each run after)
                for c in metadata.list_contexts(parent=STORE) if c.schema_title == "system.ExperimentRun"}

    _until(contexts, lambda runs: set(runs) == {"1", "2"} and "RUNNING" not in runs.values(), "the trial runs")
    assert _run_states(sdk) == {f"{job_id}-1": "COMPLETE", f"{job_id}-2": "CANCELLED"}, served.errors()
    with pytest.raises(NotFound):
        metadata.get_context(name=f"{STORE}/contexts/tuned-{job_id}-3")
    experiment = metadata.get_context(name=f"{STORE}/contexts/tuned")
    kids = [c.name for c in metadata.list_contexts(parent=STORE) if list(c.parent_contexts) == [experiment.name]]
    assert sorted(kids) == [f"{STORE}/contexts/tuned-{job_id}-{t}" for t in (1, 2)]
    assert client.get_hyperparameter_tuning_job(name=name).state.name == "JOB_STATE_CANCELLED"


def test_a_job_is_followed_while_it_is_created_and_forgotten_once_gone(emulator: Emulator,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """RunWatch follows a job from job_tracking.prepare, before the job service has stored it: a
    job it cannot find yet is still being created, for run_watch.CREATING seconds; after, it is gone."""
    from provider.emulator import run_watch

    name = f"{PARENT}/customJobs/1234"  # no such job (yet)
    emulator.watch.follow(name)
    emulator.watch.sweep(time.monotonic() + run_watch.EVERY)  # due: read, and not found
    assert name in emulator.watch.followed()
    monkeypatch.setattr(run_watch, "CREATING", 0.0)
    emulator.watch.sweep(time.monotonic() + run_watch.LONGEST)
    assert name not in emulator.watch.followed()
