"""gcloud as the oracle for tuning jobs: ``gcloud ai hp-tuning-jobs create --config`` sends what trainjobs builds.

Each config runs through gcloud (offline, against the stand-in of standin.py, which records the
HyperparameterTuningJob gcloud sends and answers with the job: the body is what counts) with the flags
``--region``, ``--display-name``, ``--max-trial-count`` and ``--parallel-trial-count``, and
through trainjobs as a spec body: the config as written with those four beside it. The
request trainjobs builds equals, field for field, the body gcloud sent. The configs: two
public ones (each with its source) and one that sets every field of the study and the trial
job that trainjobs carries (tests/test_api_fields.py's).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from provider.submission.request import build_request
from provider.validation.rules import Context
from provider.validation.validator import validate_bytes

from ..test_api_fields import _canonical, tuning_bodies
from ..test_vertex_tuning import DIFFUSERS_CONFIG, HEATMAP_CONFIG
from .standin import StandIn, start, write_config

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("gcloud") is None,
                       reason="gcloud is not installed: the gcloud-oracle tests need the Google Cloud CLI"),
]

FLAGS = {"region": "us-central1", "displayName": "oracle-tuning", "maxTrialCount": 8, "parallelTrialCount": 2}


# Fields of google-cloud-aiplatform's v1 messages that gcloud 528's own client messages predate: it
# refuses them in a --config ("Failed to parse value(s) in protobuf"). trainjobs carries them
# (tests/test_api_fields.py); this comparison leaves them out.
NEWER_THAN_GCLOUD = ("pscInterfaceConfig", "lustreMounts", "gpuPartitionSize")


def _without(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without(v) for k, v in value.items() if k not in NEWER_THAN_GCLOUD}
    if isinstance(value, list):
        return [_without(v) for v in value]
    return value


def _every_field() -> str:
    body = {k: v for k, v in tuning_bodies()["decay"].items()
            if k in ("studySpec", "trialJobSpec", "maxFailedTrialCount")}
    return yaml.safe_dump(_without(body), sort_keys=False)


CONFIGS = {
    # https://github.com/nonokangwei/Stable-Diffusion-on-GCP (Stable-Diffusion-Vertex/hpo/diffusers)
    "diffusers": DIFFUSERS_CONFIG,
    # https://github.com/pontusj101/compromise_heatmap (scripts/hp_config.yaml)
    "heatmap": HEATMAP_CONFIG,
    "every_field": _every_field(),
    # every field the config sets at its proto3 default: gcloud sends each as written (apitools encodes
    # every assigned field); so does trainjobs
    "explicit_defaults": """\
studySpec:
  metrics: [{metricId: accuracy, goal: MAXIMIZE}]
  parameters:
  - {parameterId: lr, doubleValueSpec: {minValue: 0.001, maxValue: 0.1}, scaleType: SCALE_TYPE_UNSPECIFIED}
  - {parameterId: opt, categoricalValueSpec: {values: [sgd, adam]}, scaleType: SCALE_TYPE_UNSPECIFIED}
  algorithm: ALGORITHM_UNSPECIFIED
  observationNoise: OBSERVATION_NOISE_UNSPECIFIED
  measurementSelectionType: MEASUREMENT_SELECTION_TYPE_UNSPECIFIED
  medianAutomatedStoppingSpec: {useElapsedDuration: false}
maxFailedTrialCount: 0
trialJobSpec:
  workerPoolSpecs:
  - machineSpec: {machineType: n1-standard-4}
    replicaCount: 1
    containerSpec: {imageUri: us-docker.pkg.dev/p/r/trainer:1}
  scheduling: {restartJobOnWorkerRestart: false, disableRetries: false}
  enableWebAccess: false
  enableDashboardAccess: false
""",
}


@pytest.fixture(scope="module")
def standin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[StandIn, Path]]:
    server = start()
    cfg = tmp_path_factory.mktemp("cloudsdk")
    write_config(cfg, server.url)
    try:
        yield server, cfg
    finally:
        server.close()


def _gcloud_sends(standin: tuple[StandIn, Path], config: Path) -> dict[str, Any]:
    server, cfg = standin
    before = len(server.requests)
    subprocess.run(["gcloud", "ai", "hp-tuning-jobs", "create", f"--region={FLAGS['region']}",
                    f"--display-name={FLAGS['displayName']}", f"--max-trial-count={FLAGS['maxTrialCount']}",
                    f"--parallel-trial-count={FLAGS['parallelTrialCount']}", f"--config={config}"],
                   env={**os.environ, "CLOUDSDK_CONFIG": str(cfg)}, capture_output=True, text=True, timeout=300)
    sent = [r for r in server.requests[before:] if r.method == "POST"
            and r.path.split("?")[0].endswith("/locations/us-central1/hyperparameterTuningJobs")]
    assert len(sent) == 1, [r.path for r in server.requests[before:]]
    body: dict[str, Any] = json.loads(sent[0].body)
    return body


def _trainjobs_builds(config: str) -> dict[str, Any]:
    lines = [f"  {k}: {json.dumps(v)}" for k, v in FLAGS.items()] + [f"  {line}" for line in config.splitlines()]
    text = "apiVersion: trainjobs/v1\nkind: TrainingJob\nmetadata: {name: oracle}\nspec:\n" + "\n".join(lines) + "\n"
    result = validate_bytes(text.encode(), "spec.yaml", Context())
    assert result.job is not None and not [p for p in result.problems if p.is_error], result.problems
    body: dict[str, Any] = build_request(result.job, "standin-project").body
    return body


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_the_request_is_what_gcloud_sends(name: str, standin: tuple[StandIn, Path], tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(CONFIGS[name])
    assert yaml.safe_load(CONFIGS[name])["studySpec"]
    sent = _gcloud_sends(standin, config)
    ours = _trainjobs_builds(CONFIGS[name])
    assert _canonical("HyperparameterTuningJob", ours) == _canonical("HyperparameterTuningJob", sent)
    # field by field: _canonical reads an explicit default as absent; gcloud sends what the config sets
    assert _fields(ours) == _fields(sent)


def _fields(value: Any, where: str = "") -> set[str]:
    """The path of every field a body holds, explicit defaults (false, 0, *_UNSPECIFIED) included."""
    out: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            out |= {f"{where}.{key}"} | _fields(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out |= _fields(item, f"{where}[{i}]")
    return out


# Trial counts as a config writes them (strings included: a REST body or a describe output writes int32 as
# JSON numbers, but hand-written configs quote them) under the count flags: gcloud reads a string count with
# int() and a count of 0 ("0" alike) as not given (1).
COUNTS = [
    ({"maxTrialCount": "0", "parallelTrialCount": "0"}, []),
    ({"maxTrialCount": "0", "parallelTrialCount": "0"}, ["--max-trial-count=0"]),
    ({"maxTrialCount": "0", "parallelTrialCount": "0"}, ["--max-trial-count=5", "--parallel-trial-count=0"]),
    ({"maxTrialCount": 0}, []),
    ({"maxTrialCount": "03", "parallelTrialCount": " 2"}, []),
    ({"maxTrialCount": "3", "parallelTrialCount": "2"}, ["--max-trial-count=0", "--parallel-trial-count=4"]),
    ({}, []),
]


_FLAG = {"maxTrialCount": "--max-trial-count", "parallelTrialCount": "--parallel-trial-count"}


@pytest.mark.parametrize(("counts", "flags"), COUNTS, ids=[f"{c}{f}" for c, f in COUNTS])
def test_trial_counts_of_the_config_are_read_as_gcloud_reads_them(
        counts: dict[str, Any], flags: list[str], standin: tuple[StandIn, Path], tmp_path: Path) -> None:
    from provider.gcloud.build import build
    from provider.gcloud.command import parse
    from provider.gcloud.words import split_words
    from provider.validation.validator import check_document

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    body = {k: v for k, v in yaml.safe_load(HEATMAP_CONFIG).items() if k not in _FLAG}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump({**body, **counts}, sort_keys=False))
    line = ["gcloud", "ai", "hp-tuning-jobs", "create", "--region=us-central1", "--display-name=counts",
            "--config=config.yaml", *flags]
    server, cfg = standin
    before = len(server.requests)
    subprocess.run(line, env={**os.environ, "CLOUDSDK_CONFIG": str(cfg)}, cwd=tmp_path, capture_output=True,
                   text=True, timeout=300)
    sent = [json.loads(r.body) for r in server.requests[before:] if r.method == "POST"
            and r.path.split("?")[0].endswith("/hyperparameterTuningJobs")]
    assert len(sent) == 1

    built = build(parse(split_words(" ".join(line), {})), tmp_path)
    result = check_document(built.document, "spec.yaml", Context())
    assert result.job is not None and not [p for p in result.problems if p.is_error], result.problems
    request = build_request(result.job, "standin-project").body
    assert (request["maxTrialCount"], request["parallelTrialCount"]) == \
        (sent[0]["maxTrialCount"], sent[0]["parallelTrialCount"])
    notes = "\n".join(built.notes)
    for key, value in counts.items():
        overridden = any(f.startswith(_FLAG[key] + "=") and not f.endswith("=0") for f in flags)
        said = f"the config's {key}: {value!r} is not applied: gcloud reads a count of 0 as not given"
        assert (said in notes) == (int(value) == 0 and not overridden), notes
