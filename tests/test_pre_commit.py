"""The pre-commit hook, run the way its users run it.

A user repository (the plan fixture project, in git) has a ``.pre-commit-config.yaml`` that points
at this repository (a git copy of the working tree, at its commit); ``pre-commit run`` installs the
hook's environment from it, as pre-commit does for any hook repository, and runs it on the changed
files only. The environment installs from ``.venv/wheelhouse``: no index is reached.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .plan_repo import ENV, PlanRepo

ROOT = Path(__file__).resolve().parents[1]
WHEELHOUSE = ROOT / ".venv" / "wheelhouse"

pytestmark = pytest.mark.slow


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
                          env={**os.environ, **ENV}).stdout.strip()


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This repository's working tree as a git repository pre-commit can clone: (path, commit)."""
    dest = tmp_path_factory.mktemp("hook-repo")
    files = _git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for rel in filter(None, files):
        src = ROOT / rel
        if src.is_file() and not src.is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    _git(dest, "init", "-q", "-b", "main")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "-m", "trainjobs")
    return dest, _git(dest, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit cache for the module: the hook's environment is built once."""
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def user_repo(tmp_path: Path, hook_repo: tuple[Path, str]) -> PlanRepo:
    repo = PlanRepo(tmp_path / "user")
    path, rev = hook_repo
    repo.write(".pre-commit-config.yaml",
               f"repos:\n  - repo: {path}\n    rev: {rev}\n    hooks:\n      - id: trainjobs-validate\n")
    repo.commit("pre-commit config")
    return repo


def pre_commit(repo: PlanRepo, home: Path, *files: str) -> subprocess.CompletedProcess[str]:
    if not any(WHEELHOUSE.glob("*.whl")):
        pytest.fail(f"{WHEELHOUSE} has no wheels: run bash scripts/setup.sh dev")
    env = {**os.environ, **ENV, "PRE_COMMIT_HOME": str(home), "PIP_NO_INDEX": "1",
           "PIP_FIND_LINKS": str(WHEELHOUSE), "NO_COLOR": "1", "TERM": "dumb"}
    exe = Path(sys.executable).parent / "pre-commit"
    return subprocess.run([str(exe), "run", "--color", "never", "--files", *files], cwd=repo.root,
                          capture_output=True, text=True, env=env, timeout=600, check=False)


def test_a_good_change_passes(user_repo: PlanRepo, pre_commit_home: Path) -> None:
    user_repo.edit("specs/nlp/bert.yaml", "bert", "bert")  # unchanged content, still a file pre-commit checks
    proc = pre_commit(user_repo, pre_commit_home, "specs/nlp/bert.yaml")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "trainjobs validate" in proc.stdout and "Passed" in proc.stdout


def test_a_bad_spec_fails_with_its_problem(user_repo: PlanRepo, pre_commit_home: Path) -> None:
    user_repo.edit("specs/nlp/bert.yaml", "region: us-central1", "region: us-central9")
    proc = pre_commit(user_repo, pre_commit_home, "specs/nlp/bert.yaml")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "specs/nlp/bert.yaml" in proc.stdout and "us-central9" in proc.stdout


def test_a_broken_stack_file_fails(user_repo: PlanRepo, pre_commit_home: Path) -> None:
    user_repo.edit("stacks/Pulumi.local.yaml", "trainjobs:backend: local", "trainjobs:backend: lokal")
    proc = pre_commit(user_repo, pre_commit_home, "stacks/Pulumi.local.yaml")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "'lokal' is not allowed for trainjobs:backend" in proc.stdout
    assert "did you mean 'local'?" in proc.stdout


def test_a_changed_spec_is_checked_against_its_unchanged_siblings(user_repo: PlanRepo, pre_commit_home: Path) -> None:
    # a new file that reuses the name of a spec the change does not touch: only the new file is passed
    text = user_repo.read("specs/nlp/bert.yaml")
    user_repo.write("specs/nlp/bert_copy.yaml", text)
    proc = pre_commit(user_repo, pre_commit_home, "specs/nlp/bert_copy.yaml")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "is already used by specs/nlp/bert.yaml" in proc.stdout
