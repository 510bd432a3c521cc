"""The seam's values, and that importing it is cheap (what each backend does: tests/test_backend_conformance.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from provider.backends.base import JobState, JobStatus, ReplicaState, ReplicaStatus, TrialState, TrialStatus
from provider.core.record import asdict


def test_trial_and_replica_states_are_enums_that_read_and_write_as_before() -> None:
    trial = TrialStatus(id="1", state=TrialState.SUCCEEDED, parameters=(("lr", 0.1),))
    replica = ReplicaStatus(name="workerpool0-0", pool=0, index=0, task="chief", state=ReplicaState.RUNNING)
    status = JobStatus(id="1", kind="HyperparameterTuningJob", display_name="j", state=JobState.RUNNING,
                       backend="local", trials=(trial,), replicas=(replica,))
    data = json.loads(json.dumps(asdict(status), default=lambda o: o.value))
    assert data["trials"][0]["state"] == "SUCCEEDED" and data["replicas"][0]["state"] == "running"
    assert f"{replica.state:10s}|" == "running   |"
    assert TrialState("INFEASIBLE") is TrialState.INFEASIBLE


def test_an_unknown_vertex_trial_state_is_unspecified() -> None:
    assert TrialState.of("SOMETHING_NEW") is TrialState.STATE_UNSPECIFIED
    assert TrialState.of("STOPPING") is TrialState.STOPPING


def test_live_replica_states() -> None:
    assert {s for s in ReplicaState if s.live} == {ReplicaState.WAITING, ReplicaState.RUNNING, ReplicaState.RESTARTING}


@pytest.mark.slow
def test_importing_the_seam_loads_no_spec_model_catalog_or_sdk() -> None:
    code = ("import sys, provider.backends.base; "
            "print('\\n'.join(sorted(m for m in sys.modules if m.startswith(('provider', 'google', 'yaml')))))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            timeout=120).stdout.split()
    assert "provider.core.vertex_request" in loaded
    # (``google`` and ``google.cloud`` are namespace packages that site's .pth files load before any code.)
    assert not [m for m in loaded if m.startswith(("provider.spec", "provider.catalog", "provider.submission.request",
                                                   "provider.validation", "google.cloud.", "google.api_core",
                                                   "google.auth", "yaml"))], loaded
