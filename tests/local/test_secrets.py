"""The stack's secret env values reach the replicas and nothing else: no file, no status, no output."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from provider.backends.base import JobState, Submission
from provider.backends.local.backend import LocalBackend
from provider.packaging.stage import LocalStager
from provider.submission.launch import prepare
from provider.validation.rules import Context, Target
from provider.validation.validator import validate_data
from tests.conftest import run_cli
from tests.local.conftest import ROOT, probe_spec

SECRET = "s3cr3t-value-never-stored"


@pytest.mark.slow
def test_secret_env_values_reach_the_replicas_but_no_file_or_output(backend: LocalBackend, tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    # --barrier 2: the chief ends only after both replicas wrote their dump (no race under load)
    result = validate_data(copy.deepcopy(probe_spec("secretive", workers=1, args=["--dump", str(dump), "--barrier", "2"])),
                           "spec",
                           Context(target=Target.LOCAL))
    assert result.job is not None, result.problems
    request = prepare(result.job, ROOT, project="test", stager=LocalStager(backend.storage))
    for pool in request.body["jobSpec"]["workerPoolSpecs"]:
        pool["pythonPackageSpec"].setdefault("env", []).append({"name": "TRAINJOBS_TEST_TOKEN", "value": SECRET})
    status = backend.submit(Submission(request, secret_env=frozenset({"TRAINJOBS_TEST_TOKEN"})))
    job = backend.wait(status.id, timeout=180)
    assert job.state is JobState.SUCCEEDED, job.error

    seen = [json.loads(p.read_text())["env"].get("TRAINJOBS_TEST_TOKEN") for p in sorted(dump.glob("*.json"))]
    assert seen == [SECRET, SECRET]  # every replica got the value

    home = backend.home
    leaked = [p for p in home.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
    assert not leaked, leaked
    shown = job.extra["request"]["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["env"]
    assert {"name": "TRAINJOBS_TEST_TOKEN", "value": "***"} in shown
    env = {"TRAINJOBS_HOME": str(home)}
    for args in (("status", job.id), ("status", job.id, "--format", "json"), ("logs", job.id), ("jobs", "list")):
        out = run_cli(*args, env=env)
        assert out.returncode == 0 and SECRET not in out.stdout + out.stderr, args
