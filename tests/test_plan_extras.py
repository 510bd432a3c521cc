"""trainjobs plan sees requirements and extraPackages (issue 20): an edited extra package file or a
changed requirement is another package URI, so the job is replaced; nothing changed, nothing planned.
The base side reads the extra package as the commit has it (provider/gitops/sources.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .plan_repo import PlanRepo, actions, job

RESNET = "specs/vision/resnet.yaml"
EXECUTOR = "      executorImage: us-docker.pkg.dev/vertex-ai/training/tf-gpu.2-17.py310:latest\n"


@pytest.fixture
def repo(tmp_path: Path) -> PlanRepo:
    repo = PlanRepo(tmp_path / "repo")
    repo.write("dist/helpers-1.0-py3-none-any.whl", "PK the first build\n")
    repo.edit(RESNET, EXECUTOR, EXECUTOR + "      requirements: [pandas>=2]\n"
              "      extraPackages: [../../dist/helpers-1.0-py3-none-any.whl]\n")
    repo.commit("extras")
    return repo


def test_unchanged_extras_plan_nothing(repo: PlanRepo) -> None:
    assert repo.plan()["stacks"] == []


def test_an_edited_extra_package_replaces_the_job(repo: PlanRepo) -> None:
    repo.write("dist/helpers-1.0-py3-none-any.whl", "PK the second build\n")
    plan = repo.plan()
    assert actions(plan)[("vision-dev", "vision_resnet")] == "replace"
    (change, *_) = job(plan, "vision-dev", "vision_resnet")["changes"]
    assert change["label"] == "chief: package"
    old, new = change["old"], change["new"]
    assert [u.rsplit("/", 1)[-1] for u in old] == ["trainer.tar.gz", "helpers-1.0-py3-none-any.whl",
                                                    "trainjobs_requirements.tar.gz"]
    assert old[0] == new[0] and old[1] != new[1] and old[2] == new[2]


def test_a_changed_requirement_replaces_the_job(repo: PlanRepo) -> None:
    repo.edit(RESNET, "pandas>=2", "pandas>=2.2")
    plan = repo.plan()
    assert actions(plan)[("vision-dev", "vision_resnet")] == "replace"
    (change, *_) = job(plan, "vision-dev", "vision_resnet")["changes"]
    assert change["old"][:2] == change["new"][:2] and change["old"][2] != change["new"][2]
