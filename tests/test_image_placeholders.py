"""Image URIs and service accounts that are templates left unfilled, from real configs, are named by field.

Two forms passed before: the sed target of gourmetgram-train's custom_job.yaml
(``imageUri: TRAIN_IMAGE_PLACEHOLDER``: no image reference has an upper-case repository path) and
a README's ``us-docker.pkg.dev/[project-id]/...`` (scene_change_detection's job_config.yaml: a
bracket is no part of an image reference). gcloud sends both; Vertex AI cannot pull either.
Upper case stays allowed where the reference grammar allows it: the registry host and the tag.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from provider.validation.rules.job import _placeholder

from .conftest import no_traceback, run_cli

REST = Path(__file__).parent / "gcloud" / "rest"


@pytest.mark.parametrize(("image", "found"), [
    ("TRAIN_IMAGE_PLACEHOLDER", "upper case ('TRAIN_IMAGE_PLACEHOLDER': a repository path is lower case)"),
    ("us-docker.pkg.dev/[project-id]/repo/app:latest", "'['"),
    ("gcr.io/My-Project/trainer:v1", "upper case ('My-Project': a repository path is lower case)"),
    ("gcr.io/{YOUR-PROJECT-ID}/trainer", "{YOUR-PROJECT-ID}"),
])
def test_a_template_image_is_named(image: str, found: str) -> None:
    assert _placeholder(image) == found


@pytest.mark.parametrize("image", [
    "gcr.io/my-project/trainer:V1.2-RC",  # a tag may hold capitals
    "Us-Docker.Pkg.Dev/my-project/repo/app",  # the registry host is case-insensitive
    "localhost:5000/trainer:Latest",
    "us-docker.pkg.dev/my-project/repo/app@sha256:" + "a" * 64,
    "python:3.11",
])
def test_a_real_image_is_not(image: str) -> None:
    assert _placeholder(image) is None


@pytest.mark.parametrize(("name", "line", "said"), [
    ("c19_gourmetgram_placeholder_image.yaml", 6, "the image 'TRAIN_IMAGE_PLACEHOLDER' looks like an unfilled "
     "placeholder: it contains upper case"),
    ("c19_scene_change_bracket_placeholder.yaml", 6, "looks like an unfilled placeholder: it contains '['"),
])
def test_the_real_configs_are_refused_at_the_image(name: str, line: int, said: str) -> None:
    proc = run_cli("convert", str(REST / name), "--region", "us-central1", "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 1, proc.stdout
    assert f"{name}:{line}:" in proc.stderr and said in proc.stderr, proc.stderr
    assert "spec.workerPoolSpecs[0].containerSpec.imageUri" in proc.stderr


def test_an_upper_case_path_is_a_warning_only(tmp_path: Path) -> None:
    """gcr.io/PROJECT_ID/app, a documentation's example, still converts as written (the corpora hold many): it
    is named in a warning; a bare upper-case name (sed's target) is no reference at all, and refused."""
    config = (REST / "c19_gourmetgram_placeholder_image.yaml").read_text().replace(
        "TRAIN_IMAGE_PLACEHOLDER", "us-docker.pkg.dev/PROJECT_ID/repo/trainer:v1")
    path = tmp_path / "custom_job.yaml"
    path.write_text(config)
    proc = run_cli("convert", str(path), "--region", "us-central1", "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 0, proc.stderr
    assert "custom_job.yaml:6:15: warning: the image 'us-docker.pkg.dev/PROJECT_ID/repo/trainer:v1' looks like an " \
           "unfilled placeholder: it contains upper case ('PROJECT_ID'" in proc.stderr
    assert '"imageUri": "us-docker.pkg.dev/PROJECT_ID/repo/trainer:v1"' in proc.stdout


def test_a_service_account_left_as_a_template_is_refused() -> None:
    """scene_change_detection's job_config.yaml writes its README's [project-id] in the service account too."""
    proc = run_cli("convert", str(REST / "c19_scene_change_bracket_placeholder.yaml"), "--region", "us-central1",
                   "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 1
    assert ("c19_scene_change_bracket_placeholder.yaml:8:17: error: the service account "
            "'ad-placement-service-account@[project-id].iam.gserviceaccount.com' looks like an unfilled placeholder: "
            "it contains '['") in proc.stderr
    assert "at spec.serviceAccount" in proc.stderr
