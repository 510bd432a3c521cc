"""The repository boundary: nothing a spec names or links to is read from outside the repository.

tests/hostile/ holds specs whose local paths leave the repository (same header format as
tests/negative/: ``# expect:`` and ``# line:``); they are checked with their real location, as
``trainjobs validate`` and ``trainjobs run`` see them. The symlink cases are made at run time in
throwaway repositories.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from provider.validation.validator import validate_paths

from .conftest import no_traceback, run_cli
from .plan_repo import PlanRepo
from .test_negative import expectations

HOSTILE = Path(__file__).parent / "hostile"
CASES = sorted(HOSTILE.glob("*.yaml"))
SECRET = "s3cr3t-token-value-9f8e7d"
SPEC = """\
apiVersion: trainjobs/v1
kind: TrainingJob
metadata: {name: boundary_ok}
spec:
  region: us-central1
  workerPools:
    chief: {machineType: n1-standard-4}
  jobDir: gs://bucket/jobs/boundary_ok
  application:
    pythonPackage:
      path: PATH
      module: trainer.task
      executorImage: us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest
"""


def repository(root: Path) -> Path:
    """A directory that is the root of a git work tree (a .git directory is what marks one)."""
    (root / ".git").mkdir(parents=True)
    return root


def test_the_hostile_corpus_is_there() -> None:
    assert len(CASES) >= 6


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_hostile_spec(path: Path) -> None:
    expects, line, _ = expectations(path)
    report = validate_paths([str(path)])
    problems = report.all_problems
    assert any(p.is_error for p in problems), f"{path.name} was accepted"
    texts = [f"{p.message} | {p.allowed} | {p.hint}" for p in problems]
    for expected in expects:
        assert any(expected in t for t in texts), f"{path.name}: no problem mentions {expected!r}; got:\n" + "\n".join(texts)
    first = next(p for p in problems if expects[0] in f"{p.message} | {p.allowed} | {p.hint}")
    assert first.line == line and first.rule == "path.boundary"
    if "outside the repository" in first.message:
        assert str(Path(__file__).resolve().parents[1]) in first.message  # the boundary is named


def test_run_refuses_every_hostile_spec_and_starts_nothing(tmp_path: Path) -> None:
    for path in CASES:
        proc = run_cli("run", str(path), "--detach", env={"TRAINJOBS_HOME": str(tmp_path / "home")}, timeout=60)
        no_traceback(proc)
        assert proc.returncode == 1, proc.stderr
        assert expectations(path)[0][0] in proc.stderr and "nothing was started" in proc.stderr
    assert not (tmp_path / "home" / "jobs").exists() or not any((tmp_path / "home" / "jobs").iterdir())


def test_a_package_path_inside_the_repository_is_fine(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    (repo / "trainer").mkdir()
    (repo / "trainer" / "__init__.py").write_text("")
    (repo / "specs").mkdir()
    spec = repo / "specs" / "ok.yaml"
    spec.write_text(SPEC.replace("PATH", "../trainer"))
    assert validate_paths([str(spec)]).ok


def test_a_symlinked_package_dir_that_leaves_the_repository_is_refused(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    outside = tmp_path / "outside" / "trainer"
    outside.mkdir(parents=True)
    (outside / "__init__.py").write_text("")
    (repo / "trainer").symlink_to(outside)
    spec = repo / "ok.yaml"
    spec.write_text(SPEC.replace("PATH", "trainer"))
    (problem,) = [p for p in validate_paths([str(spec)]).all_problems if p.is_error]
    assert problem.rule == "path.boundary" and f"resolves to {outside}, outside the repository {repo}" in problem.message


def test_a_package_path_loop_is_one_message(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    (repo / "trainer").symlink_to(repo / "trainer")
    spec = repo / "loop.yaml"
    spec.write_text(SPEC.replace("PATH", "trainer"))
    proc = run_cli("validate", str(spec), "--stacks", str(tmp_path / "none"))
    no_traceback(proc)
    assert proc.returncode == 1 and "the package path trainer is a symlink loop" in proc.stdout


def test_a_spec_symlinked_to_a_secret_outside_the_repository_is_not_read(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    secret = tmp_path / "home" / ".config" / "token.yaml"
    secret.parent.mkdir(parents=True)
    secret.write_text(f"apiVersion: {SECRET}\nkind: [{SECRET}\n")  # parses badly, and would be quoted
    (repo / "specs").mkdir()
    (repo / "specs" / "leak.yaml").symlink_to(secret)
    proc = run_cli("validate", str(repo / "specs"), "--stacks", str(tmp_path / "none"), "--format", "github")
    no_traceback(proc)
    assert proc.returncode == 1
    assert SECRET not in proc.stdout + proc.stderr and str(secret) not in proc.stdout
    assert "the file is a symlink to a target outside the repository" in proc.stdout


def test_a_stack_file_symlinked_outside_the_repository_is_not_read(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    secret = tmp_path / "secret.yaml"
    secret.write_text(f"config:\n  trainjobs:backend: {SECRET}\n")
    stacks = repo / "stacks"
    stacks.mkdir()
    (stacks / "Pulumi.leak.yaml").symlink_to(secret)
    (repo / "specs").mkdir()
    proc = run_cli("validate", str(repo / "specs"), "--stacks", str(stacks), "--format", "json")
    no_traceback(proc)
    assert SECRET not in proc.stdout + proc.stderr
    assert "symlink to a target outside the repository" in proc.stdout


def test_a_spec_symlinked_inside_the_repository_is_read(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    (repo / "real.yml").write_text(SPEC.replace("      path: PATH\n", "      uris: [gs://bucket/p.tar.gz]\n"))
    (repo / "link.yaml").symlink_to(repo / "real.yml")
    assert validate_paths([str(repo / "link.yaml")]).ok


def test_a_symlink_to_a_fifo_inside_the_repository_is_not_opened(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    os.mkfifo(repo / "pipe")
    (repo / "spec.yaml").symlink_to(repo / "pipe")
    proc = run_cli("validate", str(repo / "spec.yaml"), "--stacks", str(tmp_path / "none"), timeout=30)
    no_traceback(proc)
    assert proc.returncode == 1 and "not a regular file (it is a FIFO)" in proc.stdout


@pytest.mark.parametrize("command", ["validate", "run", "convert"])
def test_a_spec_symlink_loop_is_one_message(tmp_path: Path, command: str) -> None:
    repo = repository(tmp_path / "repo")
    (repo / "a.yaml").symlink_to(repo / "b.yaml")
    (repo / "b.yaml").symlink_to(repo / "a.yaml")
    extra = ["--stacks", str(tmp_path / "none")] if command == "validate" else []
    proc = run_cli(command, str(repo / "a.yaml"), *extra, env={"TRAINJOBS_HOME": str(tmp_path / "home")})
    no_traceback(proc)
    assert "internal error" not in proc.stderr
    assert proc.returncode == 1 and "symlink loop" in proc.stdout + proc.stderr


def test_a_symlink_loop_in_a_specs_directory_is_one_message(tmp_path: Path) -> None:
    repo = repository(tmp_path / "repo")
    (repo / "specs").mkdir()
    (repo / "specs" / "self.yaml").symlink_to(repo / "specs" / "self.yaml")
    proc = run_cli("validate", str(repo / "specs"), "--stacks", str(tmp_path / "none"))
    no_traceback(proc)
    assert proc.returncode == 1 and "specs/self.yaml: error: the file is a symlink loop" in proc.stdout


@pytest.mark.parametrize(("path", "expected"), [
    ("/proc/self", "the package path /proc/self resolves to"),
    ('"trainer\\0"', "the package path trainer\\x00 is not a valid path"),
])
def test_plan_never_digests_a_package_outside_the_repository(tmp_path: Path, path: str, expected: str) -> None:
    repo = PlanRepo(tmp_path / "repo")
    repo.edit("specs/vision/resnet.yaml", "path: ../../trainer/trainer", f"path: {path}")
    proc = repo.run("plan", "--base", "main")
    assert "internal error" not in proc.stderr
    assert proc.returncode == 1
    assert f"specs/vision/resnet.yaml:19:13: {expected}" in proc.stdout


def test_the_repository_is_the_git_work_tree(tmp_path: Path) -> None:
    from provider.document.boundary import repository_root

    repo = tmp_path / "repo"
    (repo / "specs" / "team").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    assert repository_root(repo / "specs" / "team") == repo.resolve()


def test_convert_never_digests_a_package_outside_the_repository() -> None:
    proc = run_cli("convert", str(HOSTILE / "package_path_etc.yaml"), "--output", "request")
    no_traceback(proc)
    assert proc.returncode == 1 and "the package path /etc resolves to /etc, outside the repository" in proc.stderr


def test_plan_lists_a_spec_that_links_out_of_the_repository_as_invalid(tmp_path: Path) -> None:
    """The plan reads the working tree through the same reader: a link out is one message, quoting nothing."""
    from .plan_repo import PlanRepo

    repo = PlanRepo(tmp_path / "repo")
    secret = tmp_path / "secret.txt"
    secret.write_text("TOKEN=do-not-print-me\n")
    (repo.root / "specs" / "nlp" / "leak.yaml").symlink_to(secret)
    proc = repo.run("plan", "--base", "main")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "specs/nlp/leak.yaml" in proc.stdout + proc.stderr
    assert "do-not-print-me" not in proc.stdout + proc.stderr
