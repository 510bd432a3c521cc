"""The plan page (a saved `trainjobs plan --format json`, or one computed on request) and the
command's own checks: --stack, --plan, and the warning for a non-loopback --host."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.plan_repo import ENV, PlanRepo

from .conftest import start_console, stop_console

pytestmark = pytest.mark.slow
RESNET = "specs/vision/resnet.yaml"


@pytest.fixture
def repo(tmp_path: Path) -> PlanRepo:
    repo = PlanRepo(tmp_path / "repo")
    repo.edit(RESNET, "      machineType: n1-standard-4\n      replicas: 2", "      machineType: n1-standard-8\n      replicas: 4")
    return repo


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    root = Path(__file__).resolve().parents[2]
    return {**os.environ, **ENV, "TRAINJOBS_HOME": str(tmp_path / "home"), "PYTHONPATH": str(root), "NO_COLOR": "1"}


@pytest.fixture
def served(repo: PlanRepo, env: dict[str, str]) -> Iterator[tuple[str, dict[str, Any]]]:
    out = repo.run("plan", "--base", "main", "--format", "json")
    plan = json.loads(out.stdout)
    (repo.root / "plan.json").write_text(out.stdout, encoding="utf-8")
    proc, url = start_console(repo.root, env, "--plan", "plan.json")
    try:
        yield url, plan
    finally:
        stop_console(proc)


def _table(page: Any) -> list[list[str]]:
    return [row.locator("td").all_inner_texts() for row in page.locator("table.plan tbody tr").all()]


def test_a_saved_plan_is_shown_as_the_comment_tables_and_the_same_is_computed_on_request(
        served: tuple[str, dict[str, Any]], page: Any) -> None:
    url, plan = served
    page.goto(url + "plan")
    rows = {r[0].split()[0]: r for r in _table(page)}
    assert set(rows) == {s["name"] for s in plan["stacks"]} == {"local", "vision-dev"}
    vision = next(s for s in plan["stacks"] if s["name"] == "vision-dev")
    headers = page.locator("table.plan thead th").all_inner_texts()
    assert rows["vision-dev"][headers.index("Replace")] == "1"
    cost = vision["started"]["estimated_max_usd"]
    assert rows["vision-dev"][headers.index("Est. max cost")].startswith(f"${cost:,.2f}")
    assert rows["local"][headers.index("Est. max cost")] == "not billed"
    assert f"{vision['gpus_held_after']} / {vision['max_gpus_per_stack']}" in rows["vision-dev"][headers.index("GPUs after / quota")]
    details = page.locator("details.spec", has_text="vision_resnet").first.inner_text()
    assert "workers: machine type" in details and "n1-standard-8" in details
    saved = _table(page)
    page.fill("input[name=base]", "main")
    page.click("text=Compute the plan")
    page.wait_for_url("**/plan?base=main")
    assert _table(page) == saved  # the same functions as `trainjobs plan`: the same figures
    page.goto(url + "plan")
    assert page.locator("input[name=base]").input_value() == "main"  # the default base of `trainjobs plan` here
    page.fill("input[name=base]", "")
    page.click("text=Compute the plan")  # left empty: the default base, as `trainjobs plan` without --base
    page.wait_for_url("**/plan?base=")
    assert "No plan yet" not in page.locator("main").inner_text()
    assert _table(page) == saved and page.locator("input[name=base]").input_value() == "main"
    response = page.goto(url + "plan?base=no-such-ref")
    assert response.status == 400
    assert "--base 'no-such-ref' is not a commit" in page.locator(".error-page").inner_text()


def _console(cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "provider", "console", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_bad_arguments_are_one_line_each(repo: PlanRepo, env: dict[str, str]) -> None:
    proc = _console(repo.root, env, "--stack", "nope")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--stack: no stack 'nope' in stacks/ (stacks: local, nlp-dev, vision-dev)" in proc.stderr
    proc = _console(repo.root, env, "--plan", "missing.json")
    assert proc.returncode == 4 and "--plan missing.json: no such file" in proc.stderr  # not found


def test_a_host_that_is_not_loopback_is_warned_about(repo: PlanRepo, env: dict[str, str]) -> None:
    proc, url = start_console(repo.root, env, "--host", "0.0.0.0")
    err = stop_and_read_stderr(proc)
    assert url.startswith("http://0.0.0.0:")
    assert "not on a loopback address: the console has no authentication" in err


def stop_and_read_stderr(proc: subprocess.Popen[str]) -> str:
    """Stop the console (its process group) and return what it wrote on stderr."""
    import signal

    os.killpg(proc.pid, signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate(timeout=15)
    return err


def test_the_start_up_line_names_each_source_once(repo: PlanRepo, env: dict[str, str]) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "provider", "console", "--stack", "local", "--stack", "vision-dev",
                             "--stack", "local"], cwd=repo.root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
    finally:
        stop_console(proc)
    assert "http://127.0.0.1:" in line, line
    assert "(reads this machine's jobs and those of stacks local, vision-dev; Ctrl-C stops it)" in line, line
