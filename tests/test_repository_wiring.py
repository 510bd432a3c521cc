"""The repository wiring: the GitHub Actions workflow and the pre-commit hook are valid YAML and
call only commands this project provides (trainjobs subcommands with their real options,
scripts/ that exist), plus a tiny, explicit list of shell builtins."""

from __future__ import annotations

import re
import shlex
import tomllib
from typing import Any

import pytest
import yaml

from provider.cli import build_parser

from .conftest import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "trainjobs.yml"
BUILTINS = {"echo", "cat"}  # the only commands besides trainjobs and bash scripts/...
EXPRESSION = re.compile(r"\$\{\{.*?\}\}")
REDIRECT = re.compile(r"\s(?:>>?|2>&1|<)\s*(\"[^\"]*\"|\S+)?")


def _workflow() -> dict[Any, Any]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _steps() -> list[dict[str, Any]]:
    return [step for job in _workflow()["jobs"].values() for step in job["steps"]]


def commands(script: str) -> list[list[str]]:
    """The simple commands of a run: script (expressions stand in as X, redirections dropped)."""
    assert "$(" not in script and "`" not in script, f"no command substitution, please: {script}"
    out = []
    for line in script.splitlines():
        for part in re.split(r"&&|\|\||;|\|", EXPRESSION.sub("X", line)):
            words = shlex.split(REDIRECT.sub(" ", " " + part))
            if words:
                out.append(words)
    return out


def check_command(words: list[str]) -> None:
    program, *args = words
    if program in ("trainjobs", ".venv/bin/trainjobs"):
        try:
            parsed = build_parser().parse_args(args)
        except SystemExit:
            pytest.fail(f"not a valid trainjobs command: {words}")
        assert getattr(parsed, "_target", None), words
    elif program == "bash":
        assert args and args[0].startswith("scripts/") and (ROOT / args[0]).is_file(), words
    else:
        assert program in BUILTINS, f"{program!r} is not a command the project provides: {words}"


def test_workflow_is_valid_yaml_with_the_expected_triggers_and_jobs() -> None:
    data = _workflow()
    triggers = data.get("on", data.get(True))  # YAML 1.1 reads a bare `on` as true
    assert set(triggers) == {"pull_request", "push"} and triggers["push"]["branches"] == ["main"]
    assert set(data["jobs"]) == {"plan", "preview", "affected-on-main", "up"}


def test_every_run_step_calls_only_what_the_project_provides() -> None:
    runs = [step["run"] for step in _steps() if "run" in step]
    called = [words for run in runs for words in commands(run)]
    for words in called:
        check_command(words)
    subcommands = {w[1] for w in called if w[0] == "trainjobs"}
    assert subcommands == {"validate", "plan", "affected-stacks", "preview", "up"}


def test_the_check_refuses_what_the_project_does_not_provide() -> None:
    with pytest.raises(AssertionError):
        check_command(["curl", "https://example.com"])
    with pytest.raises(AssertionError):
        check_command(["bash", "scripts/no-such-script.sh"])
    with pytest.raises(pytest.fail.Exception):
        check_command(["trainjobs", "plan", "--no-such-option"])
    with pytest.raises(AssertionError):
        commands('echo "$(curl x)"')


def test_actions_are_pinned_to_a_version() -> None:
    uses = [step["uses"] for step in _steps() if "uses" in step]
    assert uses and all(re.fullmatch(r"[\w.-]+/[\w.-]+@v\d+", u) for u in uses), uses
    assert {"pulumi/actions@v6", "google-github-actions/auth@v2", "actions/github-script@v7"} <= set(uses)


def test_pull_requests_are_planned_against_their_base_with_full_history() -> None:
    plan = _workflow()["jobs"]["plan"]
    assert plan["steps"][0]["uses"] == "actions/checkout@v4" and plan["steps"][0]["with"]["fetch-depth"] == 0
    runs = " ".join(step.get("run", "") for step in plan["steps"])
    assert 'trainjobs plan --base "origin/$BASE_REF" --format markdown > plan.md' in runs
    assert plan["env"]["BASE_REF"] == "${{ github.base_ref }}"  # through the environment, never spliced into a script
    script = next(step["with"]["script"] for step in plan["steps"] if step.get("uses", "").startswith("actions/github"))
    assert "<!-- trainjobs-plan -->" in script  # the marker trainjobs plan --format markdown starts with
    preview = _workflow()["jobs"]["preview"]
    assert preview["strategy"]["matrix"]["stack"] == "${{ fromJSON(needs.plan.outputs.stacks) }}"


def test_pre_commit_hook_runs_trainjobs_validate_on_specs() -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "trainjobs-validate" and hook["language"] == "python" and hook["pass_filenames"] is True
    check_command(shlex.split(hook["entry"]) + ["specs/local/simple.yaml"])
    files = re.compile(hook["files"])
    assert files.search("specs/vision/resnet_t4.yaml") and files.search("specs/a/b.yml")
    assert files.search("stacks/Pulumi.local.yaml")  # a broken stack file must not pass the hook
    assert not files.search("specs/readme.md") and not files.search("docs/a.yaml")
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts["trainjobs"] == "provider.cli:entry"  # the entry's command, installed by language: python
