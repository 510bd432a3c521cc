"""The Markdown plan (the pull-request comment), checked against golden files in tests/golden/plan/.

Regenerate them after an intended change with  TRAINJOBS_UPDATE_GOLDEN=1 .venv/bin/python -m pytest
tests/test_plan_markdown.py, and read the diff.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from .plan_repo import PlanRepo

GOLDEN = Path(__file__).parent / "golden" / "plan"
RESNET = "specs/vision/resnet.yaml"


def mixed(repo: PlanRepo) -> None:
    """A new job, a replaced one, a moved one, a label-only change, and a deleted one."""
    repo.write("specs/vision/new.yaml", repo.read(RESNET).replace("vision_resnet", "vision_new")
               .replace("36000s", "7200s"))
    repo.edit(RESNET, "      replicas: 2", "      replicas: 3")
    repo.git("mv", "specs/vision/tuner.yaml", "specs/vision/tuning.yaml")
    repo.edit("specs/vision/tuning.yaml", "labels: {cost-center: vision}", "labels: {cost-center: vision, owner: ana}")
    repo.git("rm", "-q", "specs/nlp/bert.yaml")


def violations(repo: PlanRepo) -> None:
    """A lowered quota, a spec over it, and an invalid spec."""
    repo.edit("stacks/Pulumi.vision-dev.yaml", "maxGpusPerJob: 8", "maxGpusPerJob: 2")
    repo.edit("specs/nlp/bert.yaml", "count: 1", "count: 3")


def requests(repo: PlanRepo) -> None:
    """A new tuning job, with --show-requests."""
    repo.write("specs/vision/tuner2.yaml", repo.read("specs/vision/tuner.yaml").replace("vision_tuner", "vision_tuner2"))


CASES: dict[str, tuple[Callable[[PlanRepo], None], tuple[str, ...]]] = {
    "mixed": (mixed, ()),
    "violations": (violations, ()),
    "requests": (requests, ("--show-requests",)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_markdown_matches_golden(tmp_path: Path, name: str) -> None:
    change, extra = CASES[name]
    repo = PlanRepo(tmp_path / "repo")
    change(repo)
    proc = repo.run("plan", "--base", "main", "--format", "markdown", *extra)
    assert proc.returncode in (0, 1), proc.stderr
    golden = GOLDEN / f"{name}.md"
    if os.environ.get("TRAINJOBS_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(proc.stdout, encoding="utf-8")
    assert proc.stdout == golden.read_text(encoding="utf-8")


def test_markdown_is_a_comment_the_workflow_can_find_and_that_fails_on_violations(tmp_path: Path) -> None:
    repo = PlanRepo(tmp_path / "repo")
    violations(repo)
    proc = repo.run("plan", "--base", "main", "--format", "markdown")
    assert proc.returncode == 1
    assert proc.stdout.startswith("<!-- trainjobs-plan -->\n## trainjobs plan")
    assert "the plan **fails**" in proc.stdout and "estimate" in proc.stdout.lower()
