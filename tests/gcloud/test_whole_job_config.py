"""A whole CustomJob (or a CustomJob's own field) given as ``gcloud ai custom-jobs create --config``.

gcloud reads the file into a CustomJobSpec (surface/ai/custom_jobs/create.py ``ImportResourceMessage(
args.config, 'CustomJobSpec')``); a key that message lacks is kept and sent inside ``jobSpec`` as it
is (the stand-in sees ``jobSpec.jobSpec``, ``jobSpec.displayName``), which Vertex AI refuses as an
unknown name. trainjobs refuses it at the config's line and column, naming the field and the fix (a
whole CustomJob: write jobSpec's content as the config, or ``trainjobs convert FILE``, which reads
it). ``gcloud ai hp-tuning-jobs create --config`` reads a whole HyperparameterTuningJob, so there a
whole job is what gcloud takes and sends: trainjobs carries it the same.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from provider.gcloud.command import GcloudError
from provider.gcloud.custom_job import JOB_ONLY

from ..conftest import ROOT
from .test_arg_escaping import _same_request
from .test_config_dates import POOL, STUDY, TUNING, VERTEX
from .test_gcloud_oracle import Outcome, _convert, _run_all, oracle_base

needs_gcloud = pytest.mark.skipif(shutil.which("gcloud") is None, reason="gcloud is not installed: compared with it")

WHOLE = "displayName: my-job\njobSpec:\n" + "".join(f"  {line}\n" for line in POOL.splitlines())
WHOLE_JSON = json.dumps({"displayName": "my-job", "labels": {"team": "a"}, "jobSpec": {"workerPoolSpecs": [
    {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1, "containerSpec": {"imageUri": "gcr.io/p/i"}}]}})
DESCRIBED = ("name: projects/1/locations/us-central1/customJobs/2\nstate: JOB_STATE_SUCCEEDED\n"
             "createTime: '2024-01-01T00:00:00Z'\n" + POOL)

# id, command, config, where trainjobs refuses it and the field(s) it names (None: gcloud's request is carried)
CASES: list[tuple[str, str, str, tuple[int, int, str] | None]] = [
    ("whole-yaml", VERTEX, WHOLE, (2, 1, "jobSpec, displayName: fields of the CustomJob")),
    ("whole-json", VERTEX, WHOLE_JSON, (1, 52, "jobSpec, displayName, labels: fields of the CustomJob")),
    ("display-name", VERTEX, POOL + "displayName: my-job\n", (6, 1, "displayName: a field of the CustomJob")),
    ("labels", VERTEX, "labels: {team: a}\n" + POOL, (1, 1, "labels: a field of the CustomJob")),
    ("described", VERTEX, DESCRIBED, (1, 1, "name: a field of the CustomJob")),
    ("tuning-whole", TUNING, "displayName: my-job\nmaxTrialCount: 2\nparallelTrialCount: 1\nlabels: {team: a}\n"
     + STUDY.replace("ARG", "x"), None),
]


def test_the_job_only_fields_are_the_customjobs_fields_its_spec_lacks() -> None:
    from google.cloud.aiplatform_v1.types import custom_job

    job = {f.camelcase_name for f in custom_job.CustomJob.pb().DESCRIPTOR.fields}
    spec = {f.camelcase_name for f in custom_job.CustomJobSpec.pb().DESCRIPTOR.fields}
    assert set(JOB_ONLY) == job - spec


@pytest.fixture(scope="module")
def gcloud_runs() -> Iterator[tuple[dict[str, Outcome], Path]]:
    with oracle_base("trainjobs-wholejob-") as (base, shims):
        yield _run_all([{"id": i, "command": c, "sources": {"c.yaml": t}} for i, c, t, _ in CASES], base, shims), base


@needs_gcloud
@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.parametrize(("case", "command", "config", "refused"), CASES, ids=[c[0] for c in CASES])
def test_a_customjob_field_in_a_custom_jobs_config_is_refused_by_name(
        case: str, command: str, config: str, refused: tuple[int, int, str] | None,
        gcloud_runs: tuple[dict[str, Outcome], Path]) -> None:
    results, base = gcloud_runs
    outcome = results[case]
    entry = {"id": case, "command": command}
    assert outcome.sent is not None, outcome.stderr[-2000:]
    if refused is None:
        document, generation, _ = _convert(entry, base / case)
        _same_request(outcome.sent, document, generation)
        return
    line, column, named = refused
    first = named.split(":")[0].split(",")[0]
    assert first in outcome.sent["jobSpec"], outcome.sent  # gcloud sends it inside jobSpec, where the API has no such field
    with pytest.raises(GcloudError) as refusal:
        _convert(entry, base / case)
    message = str(refusal.value)
    assert f"c.yaml:{line}:{column}: {named}" in message, message
    assert f"Unknown name \"{first}\" at 'custom_job.job_spec'" in message
    if first == "jobSpec":  # one problem for the whole job, with both ways forward
        assert "write the content of jobSpec as the config" in message and "trainjobs convert FILE" in message
        assert message.count("c.yaml:") == 1, message


def test_the_whole_customjob_converts_as_a_file(tmp_path: Path) -> None:
    """The fix the refusal names works: ``trainjobs convert FILE`` reads the whole CustomJob."""
    (tmp_path / "job.yaml").write_text(WHOLE)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([str(ROOT / ".venv" / "bin" / "trainjobs"), "convert", "job.yaml", "--region", "us-central1"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "image: gcr.io/p/i" in done.stdout and "machineType: n1-standard-4" in done.stdout
