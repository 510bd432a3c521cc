"""Each corpus script, converted through ``python -m provider convert FILE --output request``, sends what the SDK
itself sends for it (tests/pysdk/sdk_oracle.py: the script run with the real SDK, its request recorded)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

from .sdk_oracle import comparable, sdk_request

CORPUS = sorted((Path(__file__).parent / "corpus").glob("*.py"))


def convert(path: Path, *extra: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GOOGLE_CLOUD_REGION", "CLOUD_ML_REGION", "CLOUDSDK_CORE_PROJECT")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "provider", "convert", str(path), *extra], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def ours(path: Path) -> dict[str, Any]:
    done = convert(path, "--output", "request")
    assert done.returncode == 0, done.stderr
    request: dict[str, Any] = json.loads(done.stdout)
    return request


def test_the_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 8


def _packages_set_aside(request: dict[str, Any], module: str) -> None:
    """from_local_script and CustomTrainingJob: the SDK runs its own package of the script
    (aiplatform_custom_trainer_script.task), trainjobs its package of the script's folder (the script's module):
    both checked, then set aside."""
    spec = request["body"].get("jobSpec") or request["body"]["trialJobSpec"]  # a tuning job's trial: the same
    for pool in spec["workerPoolSpecs"]:
        package = pool.get("pythonPackageSpec")
        if package is not None:
            assert package.pop("pythonModule") == module
            assert package.pop("packageUris")


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_request_equals_the_sdks(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    theirs = comparable(sdk_request(path, monkeypatch))
    mine = comparable(ours(path))
    script = re.search(r"^\s+script_path=\"([^\"]+)\"", path.read_text(encoding="utf-8"), re.MULTILINE)
    if script is not None:  # from_local_script or CustomTrainingJob
        _packages_set_aside(theirs, "aiplatform_custom_trainer_script.task")
        _packages_set_aside(mine, Path(script.group(1)).stem)
    assert mine["kind"] == theirs["kind"]
    assert mine["parent"] == theirs["parent"]
    assert set(mine["body"]) == set(theirs["body"])
    for field in theirs["body"]:
        assert mine["body"][field] == theirs["body"][field], field


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_the_source_is_named(path: Path) -> None:
    head = path.read_text(encoding="utf-8").splitlines()[:3]
    assert head[0].startswith("# source: ") and any("adapted" in line for line in path.read_text().splitlines()[:12])


def test_a_script_training_jobs_own_image_is_sent_and_named() -> None:
    """CustomTrainingJob runs its container_uri as the executor image, prebuilt or not (the SDK's _run): sent so (the
    corpus case above), and named in a note when it is no prebuilt container."""
    done = convert(Path(__file__).parent / "corpus" / "script_training_environment.py", "--output", "request")
    assert done.returncode == 0, done.stderr
    assert ("(container_uri='europe-west4-docker.pkg.dev/svc-project/trainers/pytorch-gpu:2.4') at "
            "tests/pysdk/corpus/script_training_environment.py:25:19 is no prebuilt training container") in done.stderr
    prebuilt = convert(Path(__file__).parent / "corpus" / "script_training_two_replicas.py", "--output", "request")
    assert prebuilt.returncode == 0, prebuilt.stderr
    assert "no prebuilt training container" not in prebuilt.stderr


def test_a_script_training_jobs_script_is_packaged_with_its_requirements() -> None:
    """The SDK packages the script with ``requirements`` as its dependencies (set aside in the comparison above):
    trainjobs' spec packages the script's folder, runs its module and installs the same requirements."""
    import yaml

    done = convert(Path(__file__).parent / "corpus" / "script_training_two_replicas.py", "--output", "yaml")
    assert done.returncode == 0, done.stderr
    package = yaml.safe_load(done.stdout)["spec"]["application"]["pythonPackage"]
    assert (package["path"], package["module"], package["requirements"]) == (
        "tests/pysdk/local_script", "mnist_task", ["gcsfs==2022.3.0"])
    assert "staging_bucket 'gs://mnist-handson-bucket/staging' is a path" in done.stdout  # a note, in the YAML
