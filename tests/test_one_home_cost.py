"""Cost totals: one function (provider.gitops.cost.total) for ``trainjobs plan`` and the console's
stack usage, with the jobs that have no price named apart, never hiding the others' cost
(issue 28, part 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from provider.backends.base import JobState, JobStatus
from provider.console.usage import stack_models, usage
from provider.gitops.cost import CostTotal, Estimate, total
from provider.stack.membership import StackIndex

from .plan_repo import PlanRepo, stack

RESNET = "specs/vision/resnet.yaml"


def _running(name: str) -> JobStatus:
    return JobStatus(id=name, kind="CustomJob", display_name=name, state=JobState.RUNNING, backend="vertex",
                     labels=(("trainjobs-job", name), ("trainjobs-stack", "vision-dev")))


def test_the_plan_and_the_console_total_the_same_jobs_alike(tmp_path: Path) -> None:
    repo = PlanRepo(tmp_path / "repo")
    repo.write("specs/vision/priced.yaml", repo.read(RESNET).replace("vision_resnet", "vision_priced"))
    # n2-standard-8 has no price in the catalog: the job has no estimate
    unpriced = repo.read(RESNET).replace("vision_resnet", "vision_unpriced").replace("n1-standard-4", "n2-standard-8")
    unpriced = unpriced.replace("      accelerator: {type: NVIDIA_TESLA_T4, count: 1}\n", "")
    repo.write("specs/vision/unpriced.yaml", unpriced)
    plan = repo.plan()
    started = stack(plan, "vision-dev")["started"]
    assert started["jobs"] == 2 and started["unpriced_jobs"] == ["vision_unpriced"]
    assert started["estimated_max_usd"] is not None and started["estimated_max_usd"] > 0

    index = StackIndex.load(repo.root / "stacks")
    config = index.stack("vision-dev")
    assert config is not None
    models = stack_models(index, config)
    used = usage(config, [_running("vision_priced"), _running("vision_unpriced")], models)
    assert used.usd == pytest.approx(started["estimated_max_usd"])  # the console no longer says "n/a"
    assert used.unpriced == tuple(started["unpriced_jobs"]) and used.unverified is started["unverified_prices"]
    text = repo.run("plan", "--base", "main").stdout
    assert used.cost.text() in text  # the same words in the plan's report and on the stack page
    assert "1 job unpriced (vision_unpriced)" in text


def test_a_job_started_by_hand_is_unpriced_not_a_reason_to_hide_the_total(tmp_path: Path) -> None:
    repo = PlanRepo(tmp_path / "repo")
    index = StackIndex.load(repo.root / "stacks")
    config = index.stack("vision-dev")
    assert config is not None
    used = usage(config, [_running("vision_resnet"), _running("hand_made")], stack_models(index, config))
    assert used.unpriced == ("hand_made",) and used.usd is not None and used.usd > 0


def test_total_rules() -> None:
    priced, missing = Estimate(10.0, 1.0, unverified=("T4",)), Estimate(None, None, ("NVIDIA_L4 in x",))
    assert total([("a", priced), ("b", missing)]) == CostTotal(10.0, 2, ("b",), True)
    assert total([("b", missing)]).usd is None  # nothing priced: no figure, and it says which
    assert total([("b", missing)]).text() == "no cost estimate: 1 job unpriced (b)"
    assert total([("a", Estimate(None, None, billed=False))]) == CostTotal(0.0, 0, (), False)
    assert total([]).text() == "not billed"
    assert total([("a", priced), ("b", missing), ("c", missing)]).text() == \
        "estimated maximum cost $10.00 + 2 jobs unpriced (b, c) (includes unverified prices)"
