"""AI Platform Training's built-in algorithm images (gcr.io/cloud-ml-algos/...): named with the catalog's fact.

AI Platform ran Google's algorithm for such an image; no Google page in the stored sources says
whether Vertex AI runs it, so the catalog records it ``verified: false`` with its sources, and
validation, ``convert FILE`` and ``convert --gcloud`` each warn by the image's name: what is known,
that it is unverified, and what to do.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from provider.catalog import CATALOG
from provider.validation.validator import validate_bytes

from ..conftest import ROOT

TRAINJOBS = str(ROOT / ".venv" / "bin" / "trainjobs")
IMAGE = "gcr.io/cloud-ml-algos/xgboost_cpu:latest"
SPEC = ("apiVersion: trainjobs/v1\nkind: TrainingJob\nmetadata: {name: j}\nspec:\n  region: us-central1\n"
        "  workerPools:\n    chief: {machineType: n1-standard-4}\n  application: {container: {image: IMAGE}}\n")


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([TRAINJOBS, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_the_catalog_records_the_fact_with_its_sources_and_unverified() -> None:
    facts = CATALOG.runtimes()["builtin_algorithms"]
    assert facts["prefix"] == "gcr.io/cloud-ml-algos/" and "xgboost_cpu" in facts["images"]
    assert facts["verified"] is False and facts["sources"] and facts["todo"]
    assert any("ai-platform/training/docs/algorithms" in s for s in facts["sources"])


def test_validation_warns_by_the_images_name() -> None:
    result = validate_bytes(SPEC.replace("IMAGE", IMAGE).encode(), "j.yaml")
    found = [p for p in result.problems if p.rule == "container.builtin_algorithm"]
    assert len(found) == 1 and not found[0].is_error
    assert found[0].message.startswith(f"{IMAGE} is an AI Platform Training built-in algorithm image; whether "
                                       "Vertex AI runs it is unverified (no Google page says either way)")
    assert "What to do:" in found[0].message and found[0].allowed and found[0].line == 8


def test_an_unlisted_image_of_that_registry_is_named_as_such() -> None:
    result = validate_bytes(SPEC.replace("IMAGE", "gcr.io/cloud-ml-algos/some_new_algo:1").encode(), "j.yaml")
    (found,) = [p for p in result.problems if p.rule == "container.builtin_algorithm"]
    assert "(an image of that registry the catalog does not list)" in found.message


def test_other_images_get_no_such_warning() -> None:
    for image in ("gcr.io/my-project/xgboost_cpu:latest", "us-docker.pkg.dev/vertex-ai/training/xgboost-cpu.1-1:latest"):
        result = validate_bytes(SPEC.replace("IMAGE", image).encode(), "j.yaml")
        assert not [p for p in result.problems if p.rule == "container.builtin_algorithm"], image


def test_convert_says_so_for_a_gcloud_command_and_for_a_config_file(tmp_path: Path) -> None:
    command = (f"gcloud ai-platform jobs submit training j1 --region=us-central1 --master-image-uri={IMAGE} "
               "--scale-tier=basic -- --objective=binary:logistic")
    done = _run(["convert", "--gcloud", command], tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"# warning: {IMAGE} is an AI Platform Training built-in algorithm image" in done.stdout
    assert f"image: {IMAGE}" in done.stdout  # carried as written: a warning, not a change
    (tmp_path / "config.yaml").write_text(
        "trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-4\n  region: us-central1\n"
        "  masterConfig: {imageUri: 'gcr.io/cloud-ml-algos/boosted_trees:latest'}\n")
    done = _run(["convert", "config.yaml", "--name", "algo"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "# warning: gcr.io/cloud-ml-algos/boosted_trees:latest is an AI Platform Training built-in" in done.stdout
