"""trainjobs plan shows the order of each replace (trainjobs:replace), as pulumi up does it."""

from __future__ import annotations

from pathlib import Path

from .plan_repo import PlanRepo, job

RESNET = "specs/vision/resnet.yaml"
CHANGE = ("      machineType: n1-standard-4\n      replicas: 2", "      machineType: n1-standard-8\n      replicas: 4")


def test_a_replace_shows_its_order(tmp_path: Path) -> None:
    repo = PlanRepo(tmp_path / "repo")
    repo.edit(RESNET, *CHANGE)
    plan = repo.plan()
    assert job(plan, "vision-dev", "vision_resnet")["replace_order"] == "deleteFirst"  # the default
    text = repo.run("plan", "--base", "main").stdout
    assert "order: delete first: the old job is cancelled before the new one starts (trainjobs:replace)" in text
    markdown = repo.run("plan", "--base", "main", "--format", "markdown").stdout
    assert "Order: delete first: the old job is cancelled before the new one starts" in markdown

    repo.write("stacks/Pulumi.vision-dev.yaml", repo.read("stacks/Pulumi.vision-dev.yaml").replace(
        "config:\n", "config:\n  trainjobs:replace: createFirst\n", 1))
    plan = repo.plan()
    assert job(plan, "vision-dev", "vision_resnet")["replace_order"] == "createFirst"
    assert job(plan, "local", "vision_resnet")["replace_order"] == "deleteFirst"  # each stack its own
    text = repo.run("plan", "--base", "main").stdout
    assert "order: create first: the new job starts before the old one is cancelled, and both hold" in text


def test_only_a_replace_has_an_order(tmp_path: Path) -> None:
    repo = PlanRepo(tmp_path / "repo")
    repo.write("specs/vision/new.yaml", repo.read(RESNET).replace("vision_resnet", "vision_new"))
    plan = repo.plan()
    assert job(plan, "vision-dev", "vision_new")["replace_order"] is None
    assert "order:" not in repo.run("plan", "--base", "main").stdout
