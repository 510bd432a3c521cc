"""A stack's usage: the jobs that run now, their GPUs against the quota, GPU-hours and cost as
`trainjobs plan` computes them (the plan fixture project's vision-dev stack, its real specs)."""

from __future__ import annotations

import pytest

from provider.backends.base import JobState, JobStatus
from provider.console.usage import stack_models, usage
from provider.stack.membership import StackIndex
from tests.plan_repo import FIXTURE

N1_STANDARD_4 = 0.21849885  # the catalog's prices (as in tests/test_plan.py)
T4 = 0.4025


def status(job_id: str, state: JobState, job_label: str) -> JobStatus:
    return JobStatus(id=job_id, kind="CustomJob", display_name=job_label, state=state, backend="vertex",
                     labels=(("trainjobs-job", job_label), ("trainjobs-stack", "vision-dev")))


def test_running_jobs_hold_gpus_and_cost_what_the_plan_says() -> None:
    index = StackIndex.load(FIXTURE / "stacks")
    stack = index.stack("vision-dev")
    assert stack is not None
    models = stack_models(index, stack)
    assert "vision_resnet" in models and models["vision_resnet"].path.name == "resnet.yaml"
    jobs = [status("1", JobState.RUNNING, "vision_resnet"), status("2", JobState.SUCCEEDED, "vision_resnet"),
            status("3", JobState.PENDING, "hand_made")]
    used = usage(stack, jobs, models)
    assert [j.job.id for j in used.jobs] == ["1", "3"]  # a finished job holds nothing
    assert used.gpus_held == 3 and used.gpu_quota == 16  # 3 replicas x 1 T4; the hand-made job: unknown
    assert used.max_gpu_hours == pytest.approx(3 * 10)  # 3 GPUs x maxRunningTime 36000 s
    # no spec, no estimate: said, not guessed, and the priced job's cost still shown (provider.gitops.cost.total)
    assert used.unpriced == ("hand_made",) and used.usd == pytest.approx(3 * (N1_STANDARD_4 + T4) * 10)
    only_resnet = usage(stack, jobs[:2], models)
    assert only_resnet.usd == pytest.approx(3 * (N1_STANDARD_4 + T4) * 10) and not only_resnet.unpriced
    assert only_resnet.unverified  # the T4 price is unverified


def test_a_local_stack_is_not_billed() -> None:
    index = StackIndex.load(FIXTURE / "stacks")
    stack = index.stack("local")
    assert stack is not None
    used = usage(stack, [status("1", JobState.RUNNING, "vision_resnet")], stack_models(index, stack))
    assert not used.billed and used.usd == 0.0 and used.gpus_held == 3
