"""provider.workspace: the workspace is found from where a spec really is, and checked once, the same way.

In-process and on real directories, symlinks and git repositories; the end-to-end matrix over
every entry point is tests/test_entry_points_agree.py.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from provider.core.problem import Severity
from provider.workspace import Workspace, Workspaces, check, check_one, find_root

from .conftest import ROOT, modules_after

STACK = """config:
  trainjobs:backend: local
  trainjobs:team: t
  gcp:region: us-central1
  trainjobs:specs: [specs/held/*.yaml]
  trainjobs:quotas: {maxGpusPerJob: 0}
"""
SPEC = """apiVersion: trainjobs/v1
kind: TrainingJob
metadata: {name: %s}
spec:
  region: us-central1
  workerPools:
    chief:
      machineType: n1-standard-8
      accelerator: {type: NVIDIA_TESLA_T4, count: 1}
  application:
    container: {image: us-docker.pkg.dev/acme/trainers/t:1}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "stacks").mkdir(parents=True)
    (root / "stacks" / "Pulumi.t-dev.yaml").write_text(STACK)
    for rel, name in (("specs/held/a.yaml", "held_a"), ("specs/free/b.yaml", "free_b")):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(SPEC % name)
    return root


def test_the_root_is_the_nearest_marker_above_the_real_file(project: Path, tmp_path: Path) -> None:
    assert find_root(project / "specs" / "held" / "a.yaml") == project.resolve()
    link = tmp_path / "elsewhere"
    link.symlink_to(project / "specs" / "held", target_is_directory=True)
    assert find_root(link / "a.yaml") == project.resolve()  # where it really is, not where the link is
    nested = project / "specs" / "free" / "sub"
    nested.mkdir()
    subprocess.run(["git", "init", "-q", str(nested)], check=True)
    assert find_root(nested) == nested.resolve()  # a git work tree is a repository of its own
    lone = tmp_path / "lone"
    lone.mkdir()
    assert find_root(lone) is None


def test_a_spec_is_checked_in_its_stack_from_any_folder(project: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    answers = []
    for cwd, given in ((project, "specs/held/a.yaml"), (project / "specs" / "held", "a.yaml"),
                       (tmp_path, str(project / "specs" / "held" / "a.yaml"))):
        monkeypatch.chdir(cwd)
        verdict = check_one(given)
        answers.append([(p.file, p.line, p.message) for p in verdict.problems])
        assert verdict.exit_code == 1 and verdict.stack_files == 1
    assert answers[0] == answers[1] == answers[2]
    assert answers[0][0][0] == "specs/held/a.yaml" and "more than stack t-dev allows" in answers[0][0][2]


def test_a_spec_in_no_stack_gets_one_note_however_often_it_is_named(project: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    verdict = check(["specs/free/b.yaml", str(project / "specs" / "free" / "b.yaml"), "specs/free"])
    notes = [p for p in verdict.problems if p.severity is Severity.NOTE]
    assert len(notes) == 1 and notes[0].file == "specs/free/b.yaml" and notes[0].line is None
    assert verdict.ok and not notes[0].is_error


def test_stacks_named_on_the_command_line_win(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    verdict = check(["specs/held/a.yaml"], stacks_dir=tmp_path / "none")
    assert verdict.ok and verdict.stack_files == 0 and not verdict.problems


def test_the_files_of_several_repositories_are_each_checked_in_their_own(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / "specs").mkdir(parents=True)
    (other / ".git").mkdir()
    (other / "specs" / "c.yaml").write_text(SPEC % "other_c")
    spaces = Workspaces()
    verdict = check([str(project / "specs" / "held" / "a.yaml"), str(other / "specs" / "c.yaml")], found=spaces)
    assert {ws.root for ws in verdict.workspaces} == {project.resolve(), other.resolve()}
    assert [p.file for p in verdict.problems if p.is_error] == ["specs/held/a.yaml"]
    assert Workspace.of(other / "specs" / "c.yaml").stacks == []


@pytest.mark.slow
def test_resolving_a_workspace_imports_nothing_heavy(project: Path) -> None:
    modules = modules_after("validate", "specs/held/a.yaml", cwd=project)
    assert "provider.workspace" in modules
    assert not {m for m in modules if m.startswith(("provider.backends", "provider.resources", "provider.emulator",
                                                     "provider.submission"))}
    assert ROOT.is_dir()


def test_run_in_a_stack_with_secret_env_says_it_is_not_passed(project: Path) -> None:
    from .conftest import run_cli

    stack = project / "stacks" / "Pulumi.t-dev.yaml"
    stack.write_text(STACK.replace("maxGpusPerJob: 0", "maxGpusPerJob: 1")
                     + "  trainjobs:secretEnv: {API_TOKEN: {secure: v1:AAAA}}\n")
    proc = run_cli("run", "--dry-run", "specs/held/a.yaml", "--stack", "t-dev", cwd=project,
                   env={"TRAINJOBS_HOME": str(project / ".home")})
    assert proc.returncode == 0, proc.stderr
    assert "trainjobs:secretEnv is not passed to this run" in proc.stderr
    assert "API_TOKEN" not in proc.stdout  # nothing of it reaches the request
