"""A spec that builds its image is judged by its Dockerfile's FROM, as a named prebuilt container is.

The Dockerfile is read as BuildKit reads it (rules/dockerfile_from.py): multi-stage builds, stage
references, ``--platform=`` flags, ARG defaults in ``FROM ${BASE}``, here-documents, comments in
continued lines, the ``# escape=`` directive. Each judged FROM is reported at the Dockerfile's own
file and line, with the verdict of a named image (containers.py ``judge``): an error in a Vertex
stack where a served successor the containers page lists exists, else a warning.
"""

from __future__ import annotations

import datetime as dt
import subprocess
from pathlib import Path

import yaml

from provider.core.problem import Problem, Severity
from provider.validation.rules import Context, Target
from provider.validation.rules.dockerfile_from import base_images
from provider.validation.validator import validate_bytes

from .conftest import no_traceback, run_cli

TF211 = "us-docker.pkg.dev/vertex-ai/training/tf-gpu.2-11:latest"  # end of availability 2024-11-15
SERVED = dt.date(2025, 1, 1)  # tf-gpu.2-17.py310 (a listed, verified successor) is still served that day
SPEC = b"""apiVersion: trainjobs/v1
kind: TrainingJob
metadata:
  name: built
spec:
  region: us-central1
  workerPools:
    chief:
      machineType: n1-standard-4
  application:
    container:
      build: {context: ../docker%s}
  baseOutputDirectory: gs://b/x
"""


def _repo(tmp_path: Path, dockerfile: str, name: str = "Dockerfile") -> Path:
    root = tmp_path / "repo"
    (root / "specs").mkdir(parents=True)
    (root / "docker").mkdir()
    (root / "docker" / name).write_text(dockerfile)
    subprocess.run(["git", "init", "-q", str(root)], check=True, capture_output=True)
    extra = b"" if name == "Dockerfile" else b", dockerfile: " + name.encode()
    (root / "specs" / "job.yaml").write_bytes(SPEC % extra)
    return root


def _check(root: Path, target: Target = Target.ANY, today: dt.date = SERVED) -> list[Problem]:
    spec = root / "specs" / "job.yaml"
    ctx = Context(target=target, today=today, spec_dir=spec.parent)
    return validate_bytes(spec.read_bytes(), "specs/job.yaml", ctx).problems


# -- reading FROM as Docker does ----------------------------------------------------------------


def test_multi_stage_only_the_stages_the_image_needs() -> None:
    text = (f"FROM --platform=$BUILDPLATFORM python:3.10 AS builder\n"
            f"FROM gcr.io/cloud-aiplatform/training/tf-cpu.2-1:latest AS unused\n"
            f"FROM {TF211} AS final\n"
            "COPY --from=builder /wheels /wheels\n"
            "FROM final\n")
    found = [(b.image, b.line) for b in base_images(text)]
    # the unused stage is not built by BuildKit; "FROM final" is a stage, not an image
    assert found == [("python:3.10", 1), (TF211, 3)]


def test_arg_defaults_before_the_first_from() -> None:
    text = ('ARG REGISTRY=us-docker.pkg.dev/vertex-ai/training\nARG TAG="2-11"\nARG EMPTY\n'
            "FROM ${REGISTRY}/tf-gpu.${TAG}:latest\n"
            "ARG LATE=ignored\n"
            "FROM ${EMPTY:-$REGISTRY/xgboost-cpu.1-1}\n")
    images = base_images(text)
    # only the last stage is built: the first is not needed by it
    assert [(b.written, b.image, b.line) for b in images] == [
        ("${EMPTY:-$REGISTRY/xgboost-cpu.1-1}", "us-docker.pkg.dev/vertex-ai/training/xgboost-cpu.1-1", 6)]
    (first,) = base_images(text.rsplit("FROM", 1)[0])
    assert (first.image, first.line) == (TF211, 4)


def test_an_arg_default_may_name_an_earlier_arg() -> None:
    (base,) = base_images("ARG HOST=us-docker.pkg.dev\nARG BASE=${HOST}/vertex-ai/training/tf-gpu.2-11:latest\n"
                          "FROM $BASE\n")
    assert base.image == TF211


def test_an_arg_without_default_is_not_judged_and_says_why() -> None:
    (base,) = base_images("ARG BASE\nFROM $BASE\n")
    assert base.image is None and base.unresolved and "$BASE has no default" in base.unresolved


def test_heredocs_comments_continuations_and_escape() -> None:
    text = ("# escape=`\n"
            "FROM python:3.11 AS build\n"
            "RUN <<EOF\n"
            f"FROM {TF211}\n"
            "EOF\n"
            "# FROM gcr.io/cloud-aiplatform/training/tf-cpu.2-1:latest\n"
            "from `\n"
            "  # a comment inside the continuation\n"
            f"  {TF211} `\n"
            "  as last\n")
    assert [(b.image, b.line) for b in base_images(text)] == [(TF211, 7)]
    assert [b.image for b in base_images("FROM scratch\n")] == []


# -- the verdict, at the Dockerfile's line ---------------------------------------------------------


def test_a_retired_from_is_reported_at_its_line(tmp_path: Path) -> None:
    root = _repo(tmp_path, f"# base\nARG BASE={TF211}\nFROM ${{BASE}}\nRUN pip install x\n")
    (problem,) = [p for p in _check(root, Target.VERTEX) if p.rule == "dockerfile.end_of_availability"]
    assert (problem.file, problem.line, problem.severity) == ("docker/Dockerfile", 3, Severity.ERROR)
    assert "FROM ${BASE}" in problem.message and TF211 in problem.message and "tf-gpu.2-11" in problem.message
    assert problem.allowed and "tf-gpu.2-17.py310" in problem.allowed  # the served successor
    assert problem.path == "spec.application.container.build.context"
    # outside a Vertex stack, and with no served successor listed (today), a warning
    assert [p.severity for p in _check(root) if p.rule.startswith("dockerfile.")] == [Severity.WARNING]
    later = [p for p in _check(root, Target.VERTEX, dt.date(2026, 11, 26)) if p.rule.startswith("dockerfile.")]
    assert [p.severity for p in later] == [Severity.WARNING] and "lists none still served" in (later[0].allowed or "")


def test_a_named_dockerfile_and_end_of_support(tmp_path: Path) -> None:
    image = "europe-docker.pkg.dev/vertex-ai/training/tf-gpu.2-17.py310:latest"  # support ends 2025-07-11
    root = _repo(tmp_path, f"FROM {image}\n", name="train.Dockerfile")
    (problem,) = [p for p in _check(root, Target.VERTEX, dt.date(2025, 8, 1)) if p.rule.startswith("dockerfile.")]
    assert (problem.file, problem.line, problem.rule) == ("docker/train.Dockerfile", 1, "dockerfile.end_of_support")
    assert problem.severity is Severity.WARNING and problem.path.startswith("spec.application.container.build")
    assert not [p for p in _check(root, Target.VERTEX, dt.date(2025, 1, 1)) if p.rule.startswith("dockerfile.")]


def test_other_bases_are_not_judged(tmp_path: Path) -> None:
    root = _repo(tmp_path, "FROM python:3.10\nFROM nvcr.io/nvidia/pytorch:24.01-py3\n")
    assert not [p for p in _check(root, Target.VERTEX) if p.rule.startswith("dockerfile.")]


def test_a_dockerfile_outside_the_repository_is_not_read(tmp_path: Path) -> None:
    root = _repo(tmp_path, "FROM python:3.10\n")
    outside = tmp_path / "elsewhere.Dockerfile"
    outside.write_text(f"FROM {TF211}\n")
    (root / "docker" / "Dockerfile").unlink()
    (root / "docker" / "Dockerfile").symlink_to(outside)
    problems = _check(root, Target.VERTEX)
    (refused,) = [p for p in problems if p.rule == "path.boundary"]
    assert "outside the repository" in refused.message and refused.is_error
    assert not [p for p in problems if p.rule.startswith("dockerfile.")]  # never read


def test_validate_names_the_dockerfile_line(tmp_path: Path) -> None:
    root = _repo(tmp_path, f"FROM python:3.10 AS deps\nFROM {TF211}\nCOPY --from=deps /a /a\n")
    proc = run_cli("validate", "specs/job.yaml", cwd=root, timeout=120)
    no_traceback(proc)
    assert "docker/Dockerfile:2:1: warning: the Dockerfile builds FROM " + TF211 in proc.stdout, proc.stdout


def test_run_dry_run_judges_it_too(tmp_path: Path) -> None:
    """``run --dry-run`` gives validate's verdict: the same line, the same words."""
    root = _repo(tmp_path, f"FROM {TF211}\n")
    proc = run_cli("run", "--dry-run", "specs/job.yaml", cwd=root, timeout=120)
    no_traceback(proc)
    assert f"docker/Dockerfile:1:1: warning: the Dockerfile builds FROM {TF211}" in proc.stdout + proc.stderr


def test_the_providers_check_reads_the_spec_folders_dockerfile(tmp_path: Path) -> None:
    """The provider's Check (the spec as the program sends it, with its file): the Dockerfile is read
    from the spec's folder, as validate reads it; one linked outside the repository is refused."""
    from provider.resources.job_check import job_check

    root = _repo(tmp_path, "FROM python:3.10\n")
    outside = tmp_path / "elsewhere.Dockerfile"
    outside.write_text(f"FROM {TF211}\n")
    (root / "docker" / "Dockerfile").unlink()
    (root / "docker" / "Dockerfile").symlink_to(outside)
    spec_file = root / "specs" / "job.yaml"
    props = {"jobName": "built", "backend": "vertex", "spec": yaml.safe_load(spec_file.read_text()),
             "specFile": str(spec_file), "requestKind": "CustomJob", "parent": "projects/p/locations/us-central1",
             "project": "p", "region": "us-central1", "stack": "vision-dev", "team": "vision"}
    _, failures = job_check(props)
    (refused,) = [f for f in failures if f.property == "spec"]
    assert "the Dockerfile Dockerfile resolves to" in refused.reason and "outside the repository" in refused.reason
