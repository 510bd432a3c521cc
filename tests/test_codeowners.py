"""CODEOWNERS is generated from the stacks' owners, committed, and kept in step (like the schemas)."""

from __future__ import annotations

from pathlib import Path

from provider.stack.membership import StackIndex
from provider.stack.policy import owners_for

from .conftest import ROOT, no_traceback, run_cli


def test_committed_codeowners_matches_the_generator() -> None:
    proc = run_cli("codeowners", "--check", ".github/CODEOWNERS")
    assert proc.returncode == 0, proc.stderr
    assert run_cli("codeowners").stdout == (ROOT / ".github" / "CODEOWNERS").read_text(encoding="utf-8")


def _last_match(lines: list[str], path: str) -> list[str]:
    """GitHub's rule: the last matching line wins (folder patterns here, with a leading slash)."""
    owners: list[str] = []
    for line in lines:
        if line and not line.startswith("#"):
            pattern, *who = line.split()
            prefix = pattern.lstrip("/")
            if path == prefix or (prefix.endswith("/") and path.startswith(prefix)):
                owners = who
    return owners


def test_codeowners_agrees_with_policy_owners_for() -> None:
    index = StackIndex.load(ROOT / "stacks")
    lines = run_cli("codeowners").stdout.splitlines()
    for spec in ["specs/vision/resnet_t4.yaml", "specs/nlp/bert_a100.yaml"]:
        assert _last_match(lines, spec) == owners_for(spec, index.stacks) != []
    assert _last_match(lines, "stacks/Pulumi.vision-prod.yaml") == ["@acme/ml-platform", "@acme/vision"]
    assert _last_match(lines, "stacks/Pulumi.local.yaml") == ["@acme/ml-platform", "@acme/nlp", "@acme/vision"]


def test_stale_codeowners_is_reported(tmp_path: Path) -> None:
    stale = tmp_path / "CODEOWNERS"
    stale.write_text("* @someone\n")
    proc = run_cli("codeowners", "--check", str(stale))
    no_traceback(proc)
    assert proc.returncode == 1 and "is stale" in proc.stderr
    missing = run_cli("codeowners", "--check", str(tmp_path / "nope"))
    assert missing.returncode == 4 and "cannot read it" in missing.stderr  # not found (README, "Exit codes")
