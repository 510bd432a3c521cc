"""A local job's files -> JobStatus with enum states; files that are not a job's are JobUnreadable."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from provider.backends.base import JobState, ReplicaState, TrialState
from provider.backends.local.status import JobUnreadable, checked_status

RECORD = {"id": "17", "kind": "HyperparameterTuningJob", "parent": "projects/local/locations/us-central1",
          "display_name": "tuned", "labels": {"team": "vision"},
          "request": {"trialJobSpec": {"baseOutputDirectory": {"outputUriPrefix": "gs://b/out"}}}}


def _state(**changes: Any) -> dict[str, Any]:
    state: dict[str, Any] = {
        "state": "RUNNING",
        "replicas": [{"name": "workerpool0-0", "pool": 0, "index": 0, "task": "chief", "state": "restarting",
                      "trial": "1", "restarts": 1}],
        "trials": [{"id": "1", "state": "ACTIVE", "parameters": {"lr": 0.1}},
                   {"id": "2", "state": "FAILED", "parameters": {"lr": 0.2}, "error": "exit 1"}],
    }
    state.update(changes)
    return state


def test_states_read_as_enums(tmp_path: Path) -> None:
    status = checked_status("17", tmp_path, RECORD, _state())
    assert status.state is JobState.RUNNING
    assert status.replicas[0].state is ReplicaState.RESTARTING
    assert [t.state for t in status.trials] == [TrialState.ACTIVE, TrialState.FAILED]
    assert status.trials[0].parameters == (("lr", 0.1),)
    assert status.name == "projects/local/locations/us-central1/hyperparameterTuningJobs/17"
    assert status.output_dir == "gs://b/out"


@pytest.mark.parametrize("changes", [
    {"replicas": [{"name": "w", "pool": 0, "index": 0, "task": "chief", "state": "dancing"}]},
    {"trials": [{"id": "1", "state": "MAYBE"}]},
    {"state": "HALF_DONE"},
])
def test_a_state_no_enum_knows_makes_the_job_unreadable(tmp_path: Path, changes: dict[str, Any]) -> None:
    with pytest.raises(JobUnreadable, match=r"local job 17 cannot be read: .*not a job's \(ValueError"):
        checked_status("17", tmp_path, RECORD, _state(**changes))
