"""A throwaway git repository holding the plan fixture project (tests/fixtures/plan_project).

Commits are made with fixed names and dates and without the user's git config, so commit ids,
and the plans that show them, are the same on every run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from .conftest import no_traceback, run_cli

FIXTURE = Path(__file__).parent / "fixtures" / "plan_project"
ENV = {
    "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+0000", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+0000",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}


class PlanRepo:
    def __init__(self, root: Path) -> None:
        self.root = root
        shutil.copytree(FIXTURE, root)
        self.git("init", "-q", "-b", "main")
        self.commit("base")

    def git(self, *args: str) -> str:
        proc = subprocess.run(["git", *args], cwd=self.root, capture_output=True, text=True,
                              env={**os.environ, **ENV}, check=True)
        return proc.stdout

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def edit(self, rel: str, old: str, new: str) -> None:
        text = (self.root / rel).read_text(encoding="utf-8")
        assert old in text, f"{old!r} not in {rel}"
        self.write(rel, text.replace(old, new))

    def read(self, rel: str) -> str:
        return (self.root / rel).read_text(encoding="utf-8")

    def commit(self, message: str) -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        proc = run_cli(*args, cwd=self.root, env=ENV)
        no_traceback(proc)
        return proc

    def plan(self, *args: str) -> dict[str, Any]:
        """The JSON plan against main (exit code in "_rc")."""
        proc = self.run("plan", "--base", "main", "--format", "json", *args)
        assert proc.returncode in (0, 1), proc.stderr
        data: dict[str, Any] = json.loads(proc.stdout)
        data["_rc"] = proc.returncode
        return data


def stack(plan: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in plan["stacks"] if s["name"] == name)


def job(plan: dict[str, Any], stack_name: str, name: str) -> dict[str, Any]:
    return next(j for j in stack(plan, stack_name)["jobs"] if j["name"] == name)


def actions(plan: dict[str, Any]) -> dict[tuple[str, str], str]:
    """(stack, job) -> action, for every job of every affected stack."""
    return {(s["name"], j["name"]): j["action"] for s in plan["stacks"] for j in s["jobs"]}
