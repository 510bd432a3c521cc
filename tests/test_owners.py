"""trainjobs:policy.owners are GitHub owners: a stack file cannot write rules of its own into CODEOWNERS.

The attack: an owner ``"@acme/vision\\n* @mallory"`` would make ``trainjobs codeowners`` write a
second line, ``* @mallory``, that owns every file of the repository. It is refused by the stack
schema, by the Python check behind it (where no schema runs), and by the CODEOWNERS writer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from provider.core.errors import UserError
from provider.gitops.codeowners import render
from provider.stack.config import Policy, StackConfig, check_mapping, parse_stack
from provider.stack.owners import owner_problem, owners_problems

from .conftest import ROOT, no_traceback, run_cli
from .plan_repo import PlanRepo

ATTACK = "@acme/vision\n* @mallory"
STACK = "stacks/Pulumi.vision-dev.yaml"


def _stack_with_owner(repo: PlanRepo, owner_yaml: str) -> None:
    repo.edit(STACK, 'specs/vision/: ["@acme/vision"]', f"specs/vision/: [{owner_yaml}]")


@pytest.mark.parametrize("owner", ["@octocat", "@acme/vision", "@a-b/team_1", "@A1/x-y", "ana@example.com",
                                   "first.last+ml@mail.example.co.uk", "@" + "a" * 39])
def test_github_owners_are_allowed(owner: str) -> None:
    assert owner_problem(owner) is None


@pytest.mark.parametrize("owner", [ATTACK, "@acme vision", "@acme\t", "#@acme", "@acme#x", "acme", "@-acme",
                                   "@acme-", "@ac--me", "@acme/", "@acme/vision/x", "@acme/-x", "@" + "a" * 40,
                                   "@acme\u202e", "a@b", "a b@example.com", "@acme/vis ion", "", "@"])
def test_what_codeowners_would_misread_is_refused(owner: str) -> None:
    assert owner_problem(owner) is not None


def test_the_stack_schema_refuses_the_newline_attack_with_file_line_value_and_what_is_allowed() -> None:
    raw = (ROOT / "tests/fixtures/plan_project" / STACK).read_text().replace(
        '["@acme/vision"]', '["@acme/vision\\n* @mallory"]').encode()
    loaded = parse_stack(raw, "vision-dev", STACK)
    assert loaded.config is None
    [problem] = [p for p in loaded.problems if p.is_error]
    assert problem.rule == "schema"  # the stack schema's pattern, before the Python check
    assert problem.file == STACK and problem.line == 18
    assert "'@acme/vision\\n* @mallory'" in problem.message  # escaped: the newline is shown, not written
    assert "\n" not in problem.message
    assert problem.allowed is not None and "@org/team" in problem.allowed


def test_the_policy_check_refuses_it_where_no_schema_ran() -> None:
    """Pulumi config reaches check_mapping without a document; owners_problems checks on its own too."""
    found = owners_problems({"specs/vision/": ["@acme/vision", ATTACK], "specs/\nx/": ["@ok"]}, "stack x", None)
    assert [p.path for p in found] == ["trainjobs:policy.owners.specs/vision/[1]", "trainjobs:policy.owners.specs/\\x0ax/"]
    assert [p.message for p in found] == ["'@acme/vision\\x0a* @mallory' is not a GitHub owner",
                                          "'specs/\\x0ax/' is not a specs/ folder CODEOWNERS can name"]
    assert all(p.rule == "stack.owners" and p.allowed for p in found)
    loaded = check_mapping("x", {"trainjobs:backend": "local", "trainjobs:team": "vision", "gcp:region": "us-central1",
                                 "trainjobs:specs": ["specs/x/*.yaml"],
                                 "trainjobs:policy": {"owners": {"specs/x/": [ATTACK]}}}, "stack x config")
    assert loaded.config is None and any(ATTACK.replace("\n", "\\n") in p.message for p in loaded.problems)


def test_the_codeowners_writer_refuses_what_is_no_owner_or_path() -> None:
    base = dict(name="x", backend="local", team="vision", region="us-central1", specs=("specs/x/*.yaml",))
    bad_owner = StackConfig(**base, policy=Policy(owners=(("specs/x/", (ATTACK,)),)))  # type: ignore[arg-type]
    with pytest.raises(UserError, match="not a GitHub owner"):
        render([bad_owner], {})
    bad_path = StackConfig(**base, policy=Policy(owners=(("specs/x\n* @m/", ("@ok",)),)))  # type: ignore[arg-type]
    with pytest.raises(UserError, match="cannot be written as a CODEOWNERS path"):
        render([bad_path], {})
    spaced = StackConfig(**base, policy=Policy(owners=(("specs/my team/", ("@acme/vision",)),)))  # type: ignore[arg-type]
    assert "/specs/my\\ team/ @acme/vision\n" in render([spaced], {"x": "stacks/Pulumi.x.yaml"})


def test_a_pull_request_that_adds_the_attack_fails_validate_plan_and_codeowners(tmp_path: Path) -> None:
    repo = PlanRepo(tmp_path / "repo")
    _stack_with_owner(repo, '"@acme/vision\\n* @mallory"')
    validate = repo.run("validate")
    assert validate.returncode == 1 and f"{STACK}:18:" in validate.stdout and "@mallory" in validate.stdout
    assert "\n* @mallory" not in validate.stdout
    plan = repo.plan()
    assert plan["_rc"] == 1 and not plan["ok"]
    assert "@mallory" not in " ".join(plan["owners"])
    assert any(p["file"] == STACK and p["line"] == 18 for p in plan["problems"])
    owners = repo.run("codeowners")
    no_traceback(owners)
    assert owners.returncode != 0 and "* @mallory" not in owners.stdout


def test_codeowners_is_unchanged_for_valid_owners() -> None:
    proc = run_cli("codeowners")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (ROOT / ".github" / "CODEOWNERS").read_text(encoding="utf-8")
