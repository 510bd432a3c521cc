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


# github.com/magicheron/google-ml-prod bin/hyper.yaml (commit 172207bd399fb57b7265693035e14b437f87ef6d): trainingInput
# written trainintInput. gcloud ai-platform jobs submit training reads the --config as a Job, keeps the key it does not
# know and sends it beside the trainingInput its flags make (the gcloud oracle shows it: corpus6_failures.md), and the
# API refuses the request; trainjobs read the flags alone and dropped the whole hyperparameters block without a word.
MISSPELLED = """trainintInput:
  hyperparameter:
    goal: MAXIMIZE
    hyperparameterMetricTag: accuracy_live_class
    maxTrials: 15
"""
AIP_COMMAND = ("gcloud ai-platform jobs submit training mnist_1 --runtime-version 2.3 --python-version 3.7 "
               "--scale-tier BASIC --package-path ./trainer --module-name trainer.task --region europe-west1 "
               "--job-dir gs://my-bucket/tmp --config c.yaml")


@pytest.mark.parametrize(("config", "position", "named", "meant"), [
    (MISSPELLED, (1, 1), "trainintInput", "did you mean 'trainingInput'?"),
    ("labels: {team: a}\ntrainingInput: {scaleTier: BASIC}\nlabel: {x: y}\n", (3, 1), "label", "did you mean 'labels'?"),
])
def test_a_key_the_ai_platform_job_lacks_is_refused_by_name(tmp_path: Path, config: str, position: tuple[int, int],
                                                            named: str, meant: str) -> None:
    (tmp_path / "trainer").mkdir()
    (tmp_path / "trainer" / "__init__.py").write_text("")
    (tmp_path / "trainer" / "task.py").write_text("print(1)\n")
    (tmp_path / "c.yaml").write_text(config)
    with pytest.raises(GcloudError) as refusal:
        _convert({"id": "aip", "command": AIP_COMMAND}, tmp_path)
    message = str(refusal.value)
    assert f"c.yaml:{position[0]}:{position[1]}: {named}: no field of an AI Platform Job" in message, message
    assert f"Unknown name \"{named}\"" in message and meant in message, message


@needs_gcloud
def test_the_fields_an_ai_platform_config_may_hold_are_the_jobs() -> None:
    import re

    from provider.gcloud.build import AIP_JOB_FIELDS

    # gcloud's own ml v1 client messages (the ones it reads the --config with): the fields of GoogleCloudMlV1Job
    gcloud = Path(shutil.which("gcloud") or "").resolve().parent.parent
    source = (gcloud / "lib/googlecloudsdk/generated_clients/apis/ml/v1/ml_v1_messages.py").read_text()
    body = source.split("\nclass GoogleCloudMlV1Job(", 1)[1].split("\nclass ", 1)[0]
    assert set(AIP_JOB_FIELDS) == set(re.findall(r"^  (\w+) = _messages\.", body, re.M))


def test_the_jobs_other_fields_in_an_ai_platform_config_are_each_named(tmp_path: Path) -> None:
    # gcloud's BuildTrainingJob sets jobId to the command's JOB ("overrides yaml file") and sends the rest as written;
    # none reaches the training job, so each is named (a describe output used as a --config holds them all)
    (tmp_path / "trainer").mkdir()
    (tmp_path / "trainer" / "__init__.py").write_text("")
    (tmp_path / "trainer" / "task.py").write_text("print(1)\n")
    (tmp_path / "c.yaml").write_text("jobId: old_name\nstate: SUCCEEDED\ncreateTime: '2020-01-01T00:00:00Z'\n"
                                     "predictionInput: {dataFormat: JSON}\ntrainingInput: {scaleTier: BASIC}\n")
    _, _, notes = _convert({"id": "aip", "command": AIP_COMMAND}, tmp_path)
    said = "\n".join(notes)
    assert "jobId 'old_name' in the config is replaced by the command's JOB 'mnist_1'" in said, said
    assert "state in the config is set by the service (output only): ignored" in said, said
    assert "createTime in the config is set by the service (output only): ignored" in said, said
    assert "predictionInput in the config is ignored" in said, said


# gcloud's _ValidateWorkerPoolSpecsFromConfig (corpus c7_config_*): each pool of a custom-jobs --config runs a container
# or a package; an empty pool, which the REST API reads as skipped, is refused by gcloud, and now by trainjobs
IMAGE_POOL = "- machineSpec: {machineType: n1-standard-4}\n  replicaCount: 1\n  containerSpec: {imageUri: gcr.io/p/i}\n"
CUSTOM_COMMAND = "gcloud ai custom-jobs create --region us-central1 --display-name d --config c.yaml"


@pytest.mark.parametrize(("config", "position", "what"), [
    ("workerPoolSpecs:\n" + IMAGE_POOL + "- {}\n", (5, 3), "workerPoolSpecs[1] (an empty pool, which the REST API skips)"),
    ("workerPoolSpecs:\n- machineSpec: {machineType: n1-standard-4}\n  containerSpec: {args: [a]}\n", (2, 3),
     "workerPoolSpecs[0] (neither)"),
    ("workerPoolSpecs:\n- machine_spec: {machine_type: n1-standard-4}\n  container_spec: {image_uri: gcr.io/p/i}\n",
     (2, 3), "workerPoolSpecs[0] (neither)"),
    ("workerPoolSpecs:\n- containerSpec: {imageUri: gcr.io/p/i}\n  pythonPackageSpec: {pythonModule: m}\n", (2, 3),
     "workerPoolSpecs[0] (both)"),
])
def test_a_config_pool_gcloud_cannot_read_is_refused_in_its_words(tmp_path: Path, config: str,
                                                                  position: tuple[int, int], what: str) -> None:
    (tmp_path / "c.yaml").write_text(config)
    with pytest.raises(GcloudError) as refusal:
        _convert({"id": "pools", "command": CUSTOM_COMMAND}, tmp_path)
    message = str(refusal.value)
    assert f"c.yaml:{position[0]}:{position[1]}: {what}: Invalid value for [--config]: Exactly one of fields " \
           "[pythonPackageSpec, containerSpec] is required for a [workerPoolSpecs] in the YAML config file." in message


def test_the_pools_a_flag_replaces_are_not_checked(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("workerPoolSpecs:\n- {}\n")
    document, _, _ = _convert({"id": "pools", "command": CUSTOM_COMMAND + " --worker-pool-spec="
                               "machine-type=n1-standard-4,container-image-uri=gcr.io/p/i"}, tmp_path)
    assert document["spec"]["workerPoolSpecs"][0]["containerSpec"] == {"imageUri": "gcr.io/p/i"}
