"""Trainer packages are built by the PEP 517 frontend with the backend each project declares.

Projects described by poetry, hatchling, pdm or flit keep the dependencies they declare (the old
``setup.py sdist`` path rebuilt them with setuptools and dropped them); setup.py-only packages and
bare package directories keep working without the network. The isolated builds install their
backend from ``.venv/wheelhouse`` (downloaded by ``scripts/setup.sh dev``), so no test reaches
the network.
"""

from __future__ import annotations

import tarfile
import textwrap
from pathlib import Path

import pytest

from provider.backends.local.envs import requirements
from provider.packaging.sdist import BuildMode, PackageError, build_sdist, plan_build

ROOT = Path(__file__).resolve().parents[1]
WHEELHOUSE = ROOT / ".venv" / "wheelhouse"

BACKENDS = {
    "poetry": """\
        [tool.poetry]
        name = "poet-trainer"
        version = "0.3.0"
        description = "a trainer"
        authors = ["A <a@example.com>"]
        readme = "README.md"
        packages = [{include = "trainer"}]

        [tool.poetry.dependencies]
        python = ">=3.9"
        numpy = ">=1.24"

        [build-system]
        requires = ["poetry-core>=1.0.0"]
        build-backend = "poetry.core.masonry.api"
        """,
    "hatchling": """\
        [project]
        name = "hatch-trainer"
        version = "0.3.0"
        readme = "README.md"
        dependencies = ["numpy>=1.24", "pandas"]

        [tool.hatch.build.targets.sdist]
        include = ["trainer"]

        [build-system]
        requires = ["hatchling"]
        build-backend = "hatchling.build"
        """,
    "pdm": """\
        [project]
        name = "pdm-trainer"
        version = "0.3.0"
        dependencies = ["numpy>=1.24", "pandas"]

        [build-system]
        requires = ["pdm-backend"]
        build-backend = "pdm.backend"
        """,
    "flit": """\
        [project]
        name = "trainer"
        version = "0.3.0"
        description = "a trainer"
        dependencies = ["numpy>=1.24", "pandas"]

        [build-system]
        requires = ["flit_core>=3.4"]
        build-backend = "flit_core.buildapi"
        """,
}


def _project(tmp: Path, pyproject: str | None = None, setup_py: str | None = None) -> Path:
    pkg = tmp / "proj" / "trainer"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""A trainer."""\n')
    (pkg / "task.py").write_text("print('training')\n")
    (tmp / "proj" / "README.md").write_text("# trainer\n")
    if pyproject is not None:
        (tmp / "proj" / "pyproject.toml").write_text(textwrap.dedent(pyproject))
    if setup_py is not None:
        (tmp / "proj" / "setup.py").write_text(textwrap.dedent(setup_py))
    return pkg


@pytest.fixture
def offline_index(monkeypatch: pytest.MonkeyPatch) -> None:
    """Isolated builds take their backend from the wheelhouse, never from the network."""
    if not any(WHEELHOUSE.glob("*.whl")):
        pytest.fail(f"{WHEELHOUSE} has no wheels: run bash scripts/setup.sh dev")
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(WHEELHOUSE))


def _members(sdist: Path) -> list[str]:
    with tarfile.open(sdist) as t:
        return t.getnames()


@pytest.mark.slow
@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_a_declared_backend_builds_and_keeps_its_dependencies(
    backend: str, tmp_path: Path, offline_index: None
) -> None:
    pkg = _project(tmp_path, BACKENDS[backend])
    sdist = build_sdist(pkg, tmp_path / "out")
    reqs = requirements(sdist)
    assert any(r.replace(" ", "").startswith("numpy") and "1.24" in r for r in reqs), reqs
    assert any(m.endswith("trainer/task.py") for m in _members(sdist)), _members(sdist)
    assert not (pkg.parent / "dist").exists()  # nothing written into the user's tree


def test_a_declared_backend_is_built_isolated(tmp_path: Path) -> None:
    pkg = _project(tmp_path, BACKENDS["poetry"])
    plan = plan_build(pkg.parent, "trainer")
    assert (plan.backend, plan.mode, plan.write_setup_py) == ("poetry.core.masonry.api", BuildMode.ISOLATED, None)


def test_build_system_without_backend_is_setuptools_legacy(tmp_path: Path) -> None:
    pkg = _project(tmp_path, '[build-system]\nrequires = ["setuptools"]\n')
    assert plan_build(pkg.parent, "trainer").backend == "setuptools.build_meta:__legacy__"


@pytest.mark.slow
def test_setup_py_only_builds_offline_with_this_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIP_NO_INDEX", "1")  # an isolated build would fail: this one needs no index
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    pkg = _project(tmp_path, setup_py="""\
        from setuptools import find_packages, setup
        setup(name="classic-trainer", version="1.2", packages=find_packages(), install_requires=["six>=1.16"])
        """)
    assert plan_build(pkg.parent, "trainer").mode is BuildMode.THIS_ENVIRONMENT
    sdist = build_sdist(pkg, tmp_path / "out")
    assert sdist.name == "classic_trainer-1.2.tar.gz" or sdist.name == "classic-trainer-1.2.tar.gz"
    assert requirements(sdist) == ["six>=1.16"]


@pytest.mark.slow
def test_a_bare_package_gets_gclouds_default_setup_py(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    pkg = _project(tmp_path)
    plan = plan_build(pkg.parent, "trainer")
    assert plan.write_setup_py is not None and "find_packages()" in plan.write_setup_py
    sdist = build_sdist(pkg, tmp_path / "out")
    assert any(m.endswith("trainer/task.py") for m in _members(sdist))
    assert not (pkg.parent / "setup.py").exists()  # written into the copy only


def test_a_broken_pyproject_is_one_message(tmp_path: Path) -> None:
    pkg = _project(tmp_path, "[build-system\nrequires = ")
    with pytest.raises(PackageError, match=r"pyproject.toml: cannot be read as TOML"):
        build_sdist(pkg, tmp_path / "out")


@pytest.mark.slow
def test_a_failing_backend_says_which_backend_and_why(tmp_path: Path, offline_index: None) -> None:
    pkg = _project(tmp_path, '[build-system]\nrequires = ["no-such-backend-xyz"]\nbuild-backend = "nosuch.api"\n')
    with pytest.raises(PackageError) as info:
        build_sdist(pkg, tmp_path / "out")
    message = str(info.value)
    assert "nosuch.api (isolated) failed" in message
    assert "no-such-backend-xyz" in message
