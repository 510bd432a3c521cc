"""A flat folder (no ``__init__.py``) is packaged as itself, and requirements.txt goes into install_requires.

gcloud's ``local-package-path=DIR,script=task.py`` copies DIR into its image and runs
``python3 task.py`` there, so task.py imports its siblings as top-level modules, and it installs
``DIR/requirements.txt``. The default setup.py trainjobs writes for such a folder makes its
top-level modules ``py_modules`` (so ``python -m task`` finds them once installed) and the
requirements its ``install_requires``; a package folder keeps gcloud's ``--package-path`` layout.
"""

from __future__ import annotations

import shutil
import tarfile
from pathlib import Path

import pytest

from provider.backends.local.envs import requirements
from provider.packaging import source_digest, source_files
from provider.packaging.files import is_flat
from provider.packaging.requirements import project_requirements, requirement_lines
from provider.packaging.sdist import PackageError, build_sdist, plan_build

ROOT = Path(__file__).resolve().parents[1]
FLAT = ROOT / "tests" / "fixtures" / "gcloud_flat_trainer"


def _flat(tmp_path: Path) -> Path:
    folder = tmp_path / "repo" / "trainer_dir"
    shutil.copytree(FLAT, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "data").mkdir()
    (folder / "data" / "__init__.py").write_text("")
    (folder / "data" / "load.py").write_text("X = 1\n")
    (tmp_path / "repo" / "pyproject.toml").write_text("[tool.ruff]\n")  # the repository's own: not the folder's
    return folder


def _members(sdist: Path) -> list[str]:
    with tarfile.open(sdist) as t:
        return [m.split("/", 1)[1] for m in t.getnames() if "/" in m]


def test_a_flat_folder_is_its_own_project(tmp_path: Path) -> None:
    folder = _flat(tmp_path)
    assert is_flat(folder) and not is_flat(ROOT / "tests" / "fixtures" / "gcloud_local_package" / "trainer")
    # its own files, named relative to it; nothing of the folder above (the repository's pyproject.toml)
    assert [rel for rel, _ in source_files(folder)] == ["requirements.txt", "task.py", "util.py", "data/__init__.py",
                                                        "data/load.py"]
    before = source_digest(folder)
    (tmp_path / "repo" / "pyproject.toml").write_text("[tool.ruff]\nline-length = 1\n")
    assert source_digest(folder) == before
    (folder / "requirements.txt").write_text("pluggy==1.6.0\n")
    assert source_digest(folder) != before


def test_the_default_setup_of_a_flat_folder(tmp_path: Path) -> None:
    folder = _flat(tmp_path)
    plan = plan_build(folder, "trainer-dir", flat=True)
    assert plan.write_setup_py is not None
    assert "py_modules=['task', 'util']" in plan.write_setup_py
    assert "packages=find_packages()" in plan.write_setup_py
    assert "install_requires=['pluggy==1.7.0']" in plan.write_setup_py
    (folder / "setup.py").write_text("from setuptools import setup\nsetup(name='own')\n")
    assert plan_build(folder, "trainer-dir", flat=True).write_setup_py is None  # its own setup.py is kept


def test_a_package_folder_does_not_take_the_requirements_beside_it(tmp_path: Path) -> None:
    """gcloud's --package-path build never installs the requirements.txt above a package folder, and
    a repository's top-level one often holds more than the trainer needs: only a flat folder's is taken."""
    project = tmp_path / "app"
    (project / "trainer").mkdir(parents=True)
    (project / "trainer" / "__init__.py").write_text("")
    (project / "requirements.txt").write_text("numpy>=1.24\n-e .\n")
    plan = plan_build(project, "trainer")
    assert plan.write_setup_py is not None and "install_requires" not in plan.write_setup_py
    assert "py_modules" not in plan.write_setup_py
    assert project_requirements(project / "trainer") == []


@pytest.mark.slow
def test_a_flat_folder_builds_with_its_modules_and_requirements(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # this environment's setuptools: no index needed
    folder = _flat(tmp_path)
    sdist = build_sdist(folder, tmp_path / "out")
    members = _members(sdist)
    assert {"task.py", "util.py", "data/__init__.py", "data/load.py"} <= set(members), members
    assert requirements(sdist) == ["pluggy==1.7.0"]
    assert not (folder / "setup.py").exists()  # written into the copy only


def test_requirements_txt_as_pip_reads_it() -> None:
    text = ("# a comment\n\nnumpy>=1.24  # trailing comment\ntorch==2.3.1 \\\n  ; sys_platform == 'linux'\n"
            "name @ https://example.com/name-1.0.tar.gz\n")
    assert requirement_lines(text, "requirements.txt") == [
        "numpy>=1.24", "torch==2.3.1   ; sys_platform == 'linux'", "name @ https://example.com/name-1.0.tar.gz"]


@pytest.mark.parametrize(("text", "says"), [
    ("numpy\n-r other.txt\n", "requirements.txt:2: '-r other.txt' is a pip option, which install_requires cannot "
                              "carry; allowed: one requirement per line"),
    ("numpy\n\n--extra-index-url https://x\n", "requirements.txt:3: '--extra-index-url https://x' is a pip option"),
    ("./wheels/local-1.0.whl\n", "requirements.txt:1: './wheels/local-1.0.whl' is not a requirement"),
    ("numpy=1.0\n", "requirements.txt:1: 'numpy=1.0' is not a requirement"),
])
def test_what_install_requires_cannot_take_is_one_message(text: str, says: str) -> None:
    with pytest.raises(PackageError) as exc:
        requirement_lines(text, "requirements.txt")
    assert says in str(exc.value)
    assert "a setup.py or pyproject.toml of your own" in str(exc.value)


def test_a_bad_requirements_txt_fails_the_build_with_its_line(tmp_path: Path) -> None:
    folder = _flat(tmp_path)
    (folder / "requirements.txt").write_text("pluggy\n-e .\n")
    with pytest.raises(PackageError, match=r"requirements.txt:2: '-e \.' is a pip option"):
        build_sdist(folder, tmp_path / "out")


@pytest.mark.parametrize("layout", ["flat", "package"])
def test_validate_reports_a_requirements_line_the_build_would_refuse(tmp_path: Path, layout: str) -> None:
    """In a flat folder; the requirements.txt above a package folder is not read, so not checked."""
    from provider.validation.validator import validate_paths

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    if layout == "flat":
        folder, module = _flat(tmp_path), "task"
    else:
        folder, module = repo / "app" / "trainer", "trainer.task"
        folder.mkdir(parents=True)
        (folder / "__init__.py").write_text("")
        (folder / "task.py").write_text("")
    requirements_txt = folder / "requirements.txt" if layout == "flat" else folder.parent / "requirements.txt"
    requirements_txt.write_text("pluggy==1.7.0\n--index-url https://example.com/simple\n")
    spec = repo / "spec.yaml"
    spec.write_text(
        "apiVersion: trainjobs/v1\nkind: TrainingJob\nmetadata: {name: flat_test}\nspec:\n  region: us-central1\n"
        "  workerPools: {chief: {machineType: n1-standard-4}}\n  jobDir: gs://bucket/x\n  application:\n"
        f"    pythonPackage: {{path: {folder.relative_to(repo)}, module: {module}, "
        "executorImage: us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest}\n")
    if layout == "package":
        assert not [p for p in validate_paths([str(spec)]).all_problems if p.is_error]
        return
    (problem,) = [p for p in validate_paths([str(spec)]).all_problems if p.is_error]
    assert problem.line == 9 and problem.rule == "package.requirements"
    assert f"{requirements_txt}:2: '--index-url https://example.com/simple' is a pip option" in problem.message
    (requirements_txt.parent / "setup.py").write_text("from setuptools import setup\nsetup()\n")  # its own: not read
    assert not [p for p in validate_paths([str(spec)]).all_problems if p.is_error]


def test_a_flat_folders_tool_only_pyproject_describes_no_package(tmp_path: Path) -> None:
    folder = _flat(tmp_path)
    (folder / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")  # configures a tool, no package
    plan = plan_build(folder, "trainer-dir", flat=True)
    assert plan.write_setup_py is not None and "py_modules=['task', 'util']" in plan.write_setup_py
    assert "install_requires=['pluggy==1.7.0']" in plan.write_setup_py
    (folder / "pyproject.toml").write_text("[project]\nname = 'own'\nversion = '1'\ndependencies = ['six']\n")
    assert plan_build(folder, "trainer-dir", flat=True).write_setup_py == "from setuptools import setup\n\nsetup()\n"
    from provider.packaging.requirements import project_requirements

    assert project_requirements(folder) == []  # its own pyproject.toml declares its dependencies
