"""`trainjobs convert` never writes a prebuilt container Vertex AI no longer serves, where it knows one it does.

Every spec convert writes from the sample corpora (real configs from public repositories, gcloud
--config files, the public cases below) and from configs that name no image (a package with no
runtime, one with a runtimeVersion, one with GPUs) is read back, and every image it names is judged
by the catalog's containers page dates (the table the validation rule
``container.end_of_availability`` reads). A retired prebuilt container the input names is
written as the newest container of its framework and accelerator the catalog lists as served,
and a note names what the input wrote; it stays only where the catalog lists no served one (then
a warning says so): convert never invents an image.
"""

from __future__ import annotations

import datetime as dt
import glob
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from provider.catalog import CATALOG
from provider.validation.rules.containers import prebuilt_name, successor

from .conftest import ROOT, no_traceback, run_cli

SAMPLES = sorted(glob.glob(str(ROOT / "tests/samples/corpus/*.yaml")) + glob.glob(str(ROOT / "tests/gcloud/configs/*.yaml")))

NO_IMAGE = {
    "no_runtime.yaml": "trainingInput:\n  scaleTier: BASIC\n  region: us-central1\n"
                       "  packageUris: [gs://b/trainer-0.1.tar.gz]\n  pythonModule: trainer.task\n",
    "no_runtime_gpu.yaml": "trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-8\n  region: europe-west4\n"
                           "  masterConfig: {acceleratorConfig: {type: NVIDIA_TESLA_T4, count: 1}}\n"
                           "  packageUris: [gs://b/trainer-0.1.tar.gz]\n  pythonModule: trainer.task\n",
    "runtime.yaml": "trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-4\n  region: us-central1\n"
                    "  runtimeVersion: '2.11'\n  pythonVersion: '3.7'\n"
                    "  packageUris: [gs://b/trainer-0.1.tar.gz]\n  pythonModule: trainer.task\n",
}


def _retired(image: str, today: dt.date) -> bool:
    name = prebuilt_name(image)
    rec = CATALOG.runtimes()["prebuilt_training_containers"].get(name) if name else None
    end = rec.get("end_of_availability") if isinstance(rec, dict) else None
    return bool(end) and dt.date.fromisoformat(str(end)) < today


def _images(node: object) -> list[str]:
    """Every image-valued field of a written spec, wherever it sits."""
    out: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("image", "executorImage", "imageUri", "executorImageUri", "image_uri",
                       "executor_image_uri") and isinstance(value, str):
                out.append(value)
            else:
                out += _images(value)
    elif isinstance(node, list):
        for value in node:
            out += _images(value)
    return out


def _convert(path: Path) -> tuple[str, list[str]]:
    proc = run_cli("convert", str(path), cwd=path.parent, timeout=120)
    no_traceback(proc)
    if proc.returncode != 0:
        return "", []
    written = yaml.safe_load(proc.stdout)
    return proc.stdout, _images(written)


def test_the_catalog_knows_which_containers_are_retired() -> None:
    """The judge itself: the default of a package without runtime is past its end of availability today."""
    default = CATALOG.runtimes()["default_without_runtime"]
    assert _retired(f"us-docker.pkg.dev/vertex-ai/training/{default['cpu']}:latest", dt.date(2026, 11, 25))
    assert not _retired(f"us-docker.pkg.dev/vertex-ai/training/{default['cpu']}:latest", dt.date(2026, 1, 1))
    assert not _retired("us-docker.pkg.dev/acme/train/trainer:1", dt.date(2026, 11, 25))


@pytest.mark.parametrize("name", sorted(NO_IMAGE))
def test_an_input_without_an_image_gets_no_retired_one(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(NO_IMAGE[name], encoding="utf-8")
    text, images = _convert(path)
    assert text, f"{name} did not convert"
    today = dt.date.today()
    assert [i for i in images if _retired(i, today)] == []


def _containers() -> dict[str, Any]:
    containers: dict[str, Any] = CATALOG.runtimes()["prebuilt_training_containers"]
    return containers


@pytest.mark.parametrize("sample", SAMPLES, ids=[Path(s).name for s in SAMPLES])
def test_a_written_spec_names_no_retired_image_where_a_served_one_exists(sample: str) -> None:
    path = Path(sample)
    source = path.read_text(encoding="utf-8")
    text, images = _convert(path)
    today = dt.date.today()
    for image in images:
        if _retired(image, today):
            name = prebuilt_name(image)
            assert name is not None and successor(_containers(), name, today) is None, \
                f"{path.name}: convert wrote {image} though the catalog lists a served successor"
            assert image in source, f"{path.name}: convert wrote {image}, which the input does not name"
            assert f"# warning: the prebuilt container {name} reached its end of availability" in text, text
    for name in sorted(set(re.findall(r"vertex-ai/training/([^:@/\s'\"]+)", source))):
        if name in _containers() and _retired(f"us-docker.pkg.dev/vertex-ai/training/{name}:latest", today):
            newer = successor(_containers(), name, today)
            if newer is not None and text:
                assert any(prebuilt_name(i) == newer for i in images), (path.name, name, images)
                assert f"# note: the input's prebuilt container {name} reached its end of availability" in text


# A public Vertex AI --config (gcloud ai custom-jobs create --config job.yaml): PyTorch on an A100 80GB with
# pythonPackageSpec.env. Source: a zsh launcher in a public repository (search index file id 68844792860,
# "vecl-qb" Fisher evaluation) that writes this job.yaml and runs gcloud ai custom-jobs create
# --region=us-central1 --config; its shell variables are written as their values.
PYTORCH_CONFIG = """\
workerPoolSpecs:
- machineSpec:
    machineType: a2-ultragpu-1g
    acceleratorType: NVIDIA_A100_80GB
    acceleratorCount: 1
  replicaCount: 1
  diskSpec:
    bootDiskType: pd-ssd
    bootDiskSizeGb: 500
  pythonPackageSpec:
    executorImageUri: us-docker.pkg.dev/vertex-ai/training/pytorch-gpu.2-4.py310:latest
    packageUris:
    - gs://my-bucket/packages/vecl-qb-fisher-eval-20260101-000000.tar.gz
    pythonModule: fisher_eval_job
    env:
    - name: VECL_FISHER_MODEL_ID
      value: "google/gemma-4-31B-it"
    - name: PYTHONUNBUFFERED
      value: "1"
scheduling:
  timeout: 10800s
  disableRetries: true
baseOutputDirectory:
  outputUriPrefix: gs://my-bucket/vertex-outputs
"""


def test_a_current_image_is_written_when_the_framework_is_known(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(PYTORCH_CONFIG, encoding="utf-8")
    proc = run_cli("convert", str(path), "--region", "europe-west4", cwd=tmp_path, timeout=120)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    today = dt.date.today()
    newer = successor(_containers(), "pytorch-gpu.2-4.py310", today)
    assert newer is not None and _containers()[newer]["framework"] == "pytorch"
    written = yaml.safe_load(proc.stdout)["spec"]["application"]["pythonPackage"]
    # the host the input wrote stays (us-docker.pkg.dev), the container is the served one
    assert written["executorImage"] == f"us-docker.pkg.dev/vertex-ai/training/{newer}:latest"
    assert not _retired(written["executorImage"], today)
    assert "# note: the input's prebuilt container pytorch-gpu.2-4.py310 reached its end of availability on " \
           "2026-07-24" in proc.stdout
    assert "# warning: the prebuilt container pytorch-gpu.2-4.py310" not in proc.stdout  # the note replaces it
    request = run_cli("convert", str(path), "--region", "europe-west4", "--output", "request", cwd=tmp_path,
                      timeout=120)
    assert request.returncode == 0, request.stderr
    body = json.loads(request.stdout)["body"]
    pool = body["jobSpec"]["workerPoolSpecs"][0]
    assert pool["pythonPackageSpec"]["executorImageUri"] == written["executorImage"]
    assert pool["pythonPackageSpec"]["env"] == [{"name": "VECL_FISHER_MODEL_ID", "value": "google/gemma-4-31B-it"},
                                                {"name": "PYTHONUNBUFFERED", "value": "1"}]
    assert body["jobSpec"]["scheduling"] == {"timeout": "10800s", "disableRetries": True}


def test_a_runtime_version_on_a_retired_container_is_said(tmp_path: Path) -> None:
    """runtimeVersion 2.11 runs tf-cpu.2-11 (catalog runtime_to_container), retired on 2024-11-15: the spec keeps
    the runtime (no image is invented) and a warning says which container it runs and that it is retired."""
    path = tmp_path / "runtime.yaml"
    path.write_text(NO_IMAGE["runtime.yaml"], encoding="utf-8")
    proc = run_cli("convert", str(path), cwd=tmp_path, timeout=120)
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    mapped = CATALOG.runtimes()["runtime_to_container"]["map"]["2.11"]["cpu"]
    assert _retired(f"us-docker.pkg.dev/vertex-ai/training/{mapped}:latest", dt.date.today())
    # validation's finding (rules/containers.py, runtime_container) says it, once: the runtime, the container, the day
    (line,) = [ln for ln in proc.stdout.splitlines() if f"runs the prebuilt container {mapped}" in ln]
    assert line.startswith(f"# warning: runtimeVersion '2.11' with pythonVersion '3.7' runs the prebuilt container {mapped} "
                           "on Vertex AI (pools without GPUs), which reached its end of availability on 2024-11-15")
