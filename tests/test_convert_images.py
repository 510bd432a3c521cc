"""`trainjobs convert` never writes a prebuilt container Vertex AI no longer serves on its own accord.

Every spec convert writes from the sample corpora (real configs from public repositories, gcloud
--config files) and from configs that name no image (a package with no runtime, one with a
runtimeVersion, one with GPUs) is read back, and every image it names is judged by the catalog's
containers page dates (the same table the validation rule ``container.retired`` reads): a
retired prebuilt container may appear only where the input itself named it (what the user wrote
is kept, never swapped in silence), and then the output says so in a warning.
"""

from __future__ import annotations

import datetime as dt
import glob
from pathlib import Path

import pytest
import yaml

from provider.catalog import CATALOG
from provider.validation.rules.containers import prebuilt_name

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


@pytest.mark.parametrize("sample", SAMPLES, ids=[Path(s).name for s in SAMPLES])
def test_a_retired_image_in_a_written_spec_is_the_users_own_and_is_said(sample: str) -> None:
    path = Path(sample)
    source = path.read_text(encoding="utf-8")
    text, images = _convert(path)
    today = dt.date.today()
    for image in images:
        if _retired(image, today):
            assert image in source, f"{path.name}: convert wrote {image}, which the input does not name"
            name = prebuilt_name(image)
            assert f"# warning: the prebuilt container {name} reached its end of availability" in text, text
