"""A Vertex AI HyperparameterTuningJob body, converted by ``trainjobs convert``, runs locally.

The study has what the local search must honour beyond the seeds: a conditional parameter
(``momentum``, searched only when ``optimizer`` is ``sgd``), the reverse log scale and a
default values (RANDOM_SEARCH's first trial takes them). The body is Vertex AI's REST JSON
(https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.hyperparameterTuningJobs);
its package is given by path after conversion, as ``gcloud --package-path`` would.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from provider.backends.base import JobState
from provider.backends.local.backend import LocalBackend

from ..conftest import ROOT, run_cli
from .conftest import EXECUTOR, submit

TUNE_PROBE = ROOT / "tests" / "fixtures" / "trainers" / "tune_probe"


def _body(dump: Path) -> dict:
    return {
        "displayName": "converted-tuning",
        "region": "us-central1",
        "maxTrialCount": 6,
        "parallelTrialCount": 2,
        "studySpec": {
            "metrics": [{"metricId": "score", "goal": "MAXIMIZE"}],
            "algorithm": "RANDOM_SEARCH",
            "parameters": [
                {"parameterId": "lr", "scaleType": "UNIT_REVERSE_LOG_SCALE",
                 "doubleValueSpec": {"minValue": 0.001, "maxValue": 0.1, "defaultValue": 0.05}},
                {"parameterId": "optimizer", "categoricalValueSpec": {"values": ["sgd", "adam"], "defaultValue": "sgd"},
                 "conditionalParameterSpecs": [{
                     "parentCategoricalValues": {"values": ["sgd"]},
                     "parameterSpec": {"parameterId": "momentum", "discreteValueSpec": {"values": [0.5, 0.9]}}}]},
                {"parameterId": "layers", "integerValueSpec": {"minValue": "1", "maxValue": "3"}},
            ],
        },
        "trialJobSpec": {
            "workerPoolSpecs": [{
                "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
                "pythonPackageSpec": {"executorImageUri": EXECUTOR, "packageUris": ["gs://test-bucket/tp.tar.gz"],
                                      "pythonModule": "tune_probe.task", "args": [f"--dump={dump}"]}}],
            "baseOutputDirectory": {"outputUriPrefix": "gs://test-bucket/out"},
        },
    }


def test_a_converted_vertex_tuning_job_runs_its_study_locally(backend: LocalBackend, tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    source = tmp_path / "tuning.json"
    source.write_text(json.dumps(_body(dump)))
    proc = run_cli("convert", str(source))
    assert proc.returncode == 0, proc.stderr
    doc = yaml.safe_load(proc.stdout)
    package = doc["spec"]["application"]["pythonPackage"]
    assert package.pop("uris") == ["gs://test-bucket/tp.tar.gz"]
    package["path"] = str(TUNE_PROBE)
    doc["spec"]["stagingBucket"] = "gs://test-bucket"
    job = backend.wait(submit(backend, doc).id, timeout=600)
    assert job.state is JobState.SUCCEEDED, job.error
    assert len(job.trials) == 6
    seen = {}
    for trial in job.trials:
        got = json.loads((dump / f"trial{trial.id}.json").read_text())["params"]
        seen[trial.id] = got
        assert got == {k: str(v) if not isinstance(v, float) else repr(v) for k, v in dict(trial.parameters).items()}
        assert ("momentum" in got) == (got["optimizer"] == "sgd"), got
        assert 0.001 <= float(got["lr"]) <= 0.1
        assert 1 <= int(got["layers"]) <= 3
    # the first trial takes the default values, and with sgd its conditional momentum
    assert float(seen["1"]["lr"]) == 0.05 and seen["1"]["optimizer"] == "sgd" and "momentum" in seen["1"]
