"""trainjobs plan digests a local trainer (and a build context) once where the base commit and the
working tree hold it alike (provider.gitops.shared), and still sees a changed one as changed.

The counters wrap the real digest functions (each call goes through to them); the plan is made
in-process on a real git repository (tests/plan_repo.py)."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import provider.packaging.digest as digest
from provider.gitops.git import Git
from provider.gitops.load import sides
from provider.gitops.plan import Plan, make_plan
from provider.submission.diffing import Action

from .plan_repo import PlanRepo

RESNET = ("vision-dev", "vision_resnet")


@pytest.fixture
def repo(tmp_path: Path) -> PlanRepo:
    return PlanRepo(tmp_path / "repo")


@pytest.fixture
def digests(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """How many times the plan digested a package's files and a build context."""
    calls: Counter[str] = Counter()
    real_files, real_directory = digest.files_digest, digest.directory_digest

    def files_digest(files: Any, root: Path | None = None) -> str:
        calls["package"] += 1
        return real_files(files, root)

    def directory_digest(directory: Path) -> str:
        calls["context"] += 1
        return real_directory(directory)

    monkeypatch.setattr(digest, "files_digest", files_digest)  # provider.packaging.source_digest reads it here
    monkeypatch.setattr("provider.gitops.sources.directory_digest", directory_digest)  # the name the plan calls
    yield calls


def plan_of(repo: PlanRepo) -> Plan:
    with sides(repo.root, "main") as (base, head):
        return make_plan(base, head)


def plan_actions(repo: PlanRepo) -> dict[tuple[str, str], Action]:
    return {(s.name, j.name): j.action for s in plan_of(repo).stacks for j in s.jobs}


def test_an_unchanged_trainer_and_context_are_digested_once(repo: PlanRepo, digests: Counter[str]) -> None:
    # a change elsewhere in the specs that use them: both sides build every job's request
    repo.edit("specs/vision/resnet.yaml", "replicas: 2", "replicas: 3")
    (repo.root / "trainer" / "trainer" / "__pycache__").mkdir()
    (repo.root / "trainer" / "trainer" / "__pycache__" / "task.cpython-311.pyc").write_bytes(b"\0compiled")
    plan = plan_of(repo)
    resnet = next(j for s in plan.stacks for j in s.jobs if (s.name, j.name) == RESNET)
    assert resnet.action is Action.REPLACE
    assert [c.label for c in resnet.changes] == ["workers: replicas"]  # not the package
    # vision_resnet is in two stacks: 4 digests of the trainer without sharing; the tuner's context 2
    assert digests == {"package": 1, "context": 1}, digests


def test_a_changed_trainer_is_digested_on_each_side_and_replaces(repo: PlanRepo, digests: Counter[str]) -> None:
    repo.write("trainer/trainer/task.py", 'print("training harder")\n')
    actions = plan_actions(repo)
    assert actions[RESNET] is Action.REPLACE and actions[("local", "vision_resnet")] is Action.REPLACE
    assert digests["package"] >= 2


def test_an_untracked_file_in_the_trainer_is_a_change(repo: PlanRepo, digests: Counter[str]) -> None:
    repo.write("trainer/trainer/helpers.py", "X = 1\n")  # not committed: only the working tree has it
    actions = plan_actions(repo)
    assert actions[RESNET] is Action.REPLACE and digests["package"] >= 2


def test_a_trainer_file_made_executable_is_a_change(repo: PlanRepo, digests: Counter[str]) -> None:
    (repo.root / "trainer" / "trainer" / "task.py").chmod(0o755)
    actions = plan_actions(repo)
    assert actions[RESNET] is Action.REPLACE and digests["package"] >= 2


def test_a_changed_build_file_beside_the_trainer_is_a_change(repo: PlanRepo, digests: Counter[str]) -> None:
    repo.edit("trainer/setup.py", "trainer", "trainer ")
    assert plan_actions(repo)[RESNET] is Action.REPLACE


def test_a_changed_context_is_digested_on_each_side(repo: PlanRepo, digests: Counter[str]) -> None:
    repo.edit("containers/tuner/Dockerfile", "python:3.11-slim", "python:3.12-slim")
    assert plan_actions(repo)[("vision-dev", "vision_tuner")] is Action.REPLACE
    assert digests["context"] == 2


def _copies(repo: PlanRepo, n: int) -> None:
    """``n`` more trainers and build contexts, each used by a spec of its own in vision-dev, committed."""
    resnet, tuner = repo.read("specs/vision/resnet.yaml"), repo.read("specs/vision/tuner.yaml")
    for i in range(n):
        shutil.copytree(repo.root / "trainer", repo.root / f"trainer{i}")
        shutil.copytree(repo.root / "containers" / "tuner", repo.root / "containers" / f"tuner{i}")
        repo.write(f"specs/vision/resnet{i}.yaml", resnet.replace("vision_resnet", f"vision_resnet{i}")
                   .replace("../../trainer/trainer", f"../../trainer{i}/trainer"))
        repo.write(f"specs/vision/tuner{i}.yaml", tuner.replace("vision_tuner", f"vision_tuner{i}")
                   .replace("containers/tuner", f"containers/tuner{i}"))
    repo.commit(f"{n} more trainers")


@pytest.fixture
def git_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """How many git processes of each command the plan ran (each call goes through to git)."""
    calls: Counter[str] = Counter()
    real = Git._run

    def counting(self: Git, *args: str, data: bytes | None = None) -> bytes:
        command = [a for i, a in enumerate(args) if a != "-c" and (i == 0 or args[i - 1] != "-c")]
        untracked = command[0] == "ls-files" and "--cached" not in command  # not the listing of the tree
        calls["ls-files --others" if untracked else command[0]] += 1
        return real(self, *args, data=data)

    monkeypatch.setattr(Git, "_run", counting)
    yield calls


@pytest.mark.parametrize("more", [0, 6])
def test_the_proof_costs_the_same_git_calls_for_one_folder_or_many(
        repo: PlanRepo, digests: Counter[str], git_calls: Counter[str], more: int) -> None:
    _copies(repo, more)
    for name in ["resnet", "tuner", *(f"{kind}{i}" for i in range(more) for kind in ("resnet", "tuner"))]:
        repo.edit(f"specs/vision/{name}.yaml", "n1-standard-4", "n1-standard-8")  # both sides build each request
    plan = plan_of(repo)
    jobs = {j.name: j.action for s in plan.stacks for j in s.jobs if s.name == "vision-dev"}
    assert len(jobs) == 2 + 2 * more and set(jobs.values()) == {Action.REPLACE}
    # every trainer and context digested once: each was proven alike on both sides
    assert digests == {"package": 1 + more, "context": 1 + more}, digests
    proof = {c: git_calls[c] for c in ("diff", "check-attr", "ls-files --others")}
    assert proof == {"diff": 1, "check-attr": 1, "ls-files --others": 1}, git_calls


def test_one_changed_folder_among_many_is_digested_on_each_side(
        repo: PlanRepo, digests: Counter[str], git_calls: Counter[str]) -> None:
    _copies(repo, 4)
    repo.write("trainer2/trainer/task.py", 'print("training harder")\n')
    (repo.root / "containers" / "tuner3" / "notes.txt").write_text("untracked\n", encoding="utf-8")
    actions = plan_actions(repo)
    assert actions[("vision-dev", "vision_resnet2")] is Action.REPLACE
    assert actions[("vision-dev", "vision_tuner3")] is Action.REPLACE
    # the 4 alike once each (both sides build every job with local sources), the changed one on each side
    assert digests == {"package": 4 + 2, "context": 4 + 2}, digests
    assert git_calls["diff"] == 1 and git_calls["check-attr"] == 1, git_calls
