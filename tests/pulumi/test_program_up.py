"""`pulumi up` on the local stack without the CLI: the real program, its resources handed to the
SDK's real dynamic-provider host over gRPC (Check, then Create), and real jobs on this machine."""

from __future__ import annotations

from pathlib import Path

import pytest

from provider.backends.local.backend import LocalBackend
from tests.local.conftest import cleanup

from .conftest import by_type, run_program, stack_config

pytestmark = pytest.mark.slow
JOB = "pulumi-python:dynamic/trainjobs:TrainingJob"


def test_up_on_the_local_stack_provisions_and_runs_its_jobs(tmp_path: Path, env_cache: Path) -> None:
    home = tmp_path / "home"
    config = stack_config("local", **{
        "trainjobs:specs": ["specs/local/simple.yaml", "specs/local/hptune.yaml"],
        "trainjobs:localHome": str(home),
    })
    env = {"TRAINJOBS_ENV_CACHE": str(env_cache), "TRAINJOBS_LOCAL_GPUS": "none"}
    backend = LocalBackend(home=home)
    try:
        report = run_program(tmp_path, "local", config, forward=True, env=env)
        assert report["error"] is None, report["error"]
        jobs = report["exports"]["jobs"]
        assert sorted(jobs) == ["local_hptune", "local_simple"]
        for name, out in jobs.items():
            status = backend.get(out["id"])
            assert status.state.value == out["state"] == "SUCCEEDED", (name, status.error)
            assert status.display_name == name
            assert backend.storage.path(out["jobDir"]).is_dir(), out  # its output, in the local "bucket"
        assert backend.get(jobs["local_hptune"]["id"]).best_trial  # the study picked a trial
        created = by_type(report, JOB)
        assert {n: r["outputs"]["state"] for n, r in created.items()} == {
            "local_hptune": "SUCCEEDED", "local_simple": "SUCCEEDED"}
        assert report["exports"]["bucket"] == "platform-local-trainjobs"
        assert backend.storage.path("gs://platform-local-trainjobs").is_dir()  # the team's local bucket

        again = run_program(tmp_path, "local", config, forward=True, env=env)  # a retried up adopts
        assert again["error"] is None, again["error"]
        assert again["exports"]["jobs"] == jobs
        assert len(backend.list()) == 2
    finally:
        cleanup(backend)
