"""The runs the emulator makes for a tuning job's trials are named where the trials learn their
names (provider.backends.local.cluster.trial_run): job_tracking.prepare makes them from the same
functions, so a trial's AIP_EXPERIMENT_RUN_NAME is always a run that exists. On the emulator's own
records (a real state dir), with no server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from provider.backends.local.cluster import tracking_env, trial_run
from provider.emulator import job_tracking
from provider.emulator.errors import ApiError
from provider.emulator.nested import KINDS
from provider.emulator.nested_routes import Tracking
from provider.emulator.store import EmulatorStore

PARENT = "projects/p/locations/us-central1"


@pytest.fixture
def tracking(tmp_path: Path) -> Iterator[Tracking]:
    store = EmulatorStore(tmp_path)
    store.open()
    try:
        found = Tracking(tmp_path, store)
        found.open()
        yield found
    finally:
        store.close()


def _experiment(tracking: Tracking, experiment_id: str) -> str:
    tracking.nested.insert(KINDS["metadataStores"], PARENT, "default", {})
    return str(tracking.nested.insert(KINDS["contexts"], f"{PARENT}/metadataStores/default", experiment_id,
                                      {"schemaTitle": "system.Experiment"})["name"])


def test_each_trials_run_is_the_one_its_replicas_are_given(tracking: Tracking) -> None:
    experiment = _experiment(tracking, "exp")
    spec = {"experiment": experiment}
    assert job_tracking.prepare(tracking, f"{PARENT}/hyperparameterTuningJobs/42",
                                {"maxTrialCount": 3, "trialJobSpec": spec})
    made = sorted(r["name"] for r in tracking.records.everywhere("contexts") if r.get("made_for"))
    given = sorted(tracking_env(spec, PARENT, "42", str(t))["AIP_EXPERIMENT_RUN_NAME"] for t in (1, 2, 3))
    assert made == given == sorted(trial_run(experiment, "42", str(t)) for t in (1, 2, 3))
    assert job_tracking.running_jobs(tracking) == {f"{PARENT}/hyperparameterTuningJobs/42"}


def test_the_longest_trials_name_is_checked_before_any_run_is_made(tracking: Tracking) -> None:
    """A context ID has at most 128 characters: ``{106 e}-{19-digit job}-{trial}`` fits up to trial 9."""
    experiment = _experiment(tracking, "e" * 106)
    job = f"{PARENT}/hyperparameterTuningJobs/1234567890123456789"
    with pytest.raises(ApiError, match="not a valid context ID"):
        job_tracking.prepare(tracking, job, {"maxTrialCount": 10, "trialJobSpec": {"experiment": experiment}})
    assert [r["name"] for r in tracking.records.everywhere("contexts")] == [experiment]  # none was made
    assert job_tracking.prepare(tracking, job, {"maxTrialCount": 9, "trialJobSpec": {"experiment": experiment}})
    assert len(list(tracking.records.everywhere("contexts"))) == 10
