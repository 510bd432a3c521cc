"""Build a training package the way gcloud's ``--package-path`` does, through PEP 517.

The package path is the Python package directory (``trainer/``). Its parent may describe the
distribution (gcloud looks there for ``setup.py``); trainjobs also honours a ``pyproject.toml``
that declares another build backend (poetry-core, hatchling, pdm-backend, flit-core), so the
package keeps the dependencies the project declares. With neither, a default ``setup.py``
packages the directory, as gcloud writes one, with the lines of the ``requirements.txt`` beside
it as ``install_requires``. A flat folder (no ``__init__.py``: gcloud's ``local-package-path``
with ``script=task.py``) is its own project: its setup.py, pyproject.toml and requirements.txt
are its own files, and the default setup.py makes its top-level modules ``py_modules``.

The build is done by the standard PEP 517 frontend, ``build`` (pypa/build), on a copy of the
sources, so nothing is written into the user's tree:

* a project that declares ``[build-system]`` is built in an isolated environment with exactly
  the backend it declares (``python -m build --sdist``), which needs its build requirements
  from the package index;
* a setuptools project without ``[build-system]`` (``setup.py`` only, or the default one) is
  built with this environment's setuptools (``--no-isolation``) when it has one, which is what
  gcloud does (it runs ``python setup.py sdist``) and needs no network; otherwise isolated.

Builds are cached by content one level up: ``stage()`` uploads to a URI named by the source
digest and skips the build when that URI exists.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
import tomllib
from enum import Enum
from pathlib import Path

from provider.core.record import Record
from provider.packaging import SKIP_DIRS, source_files
from provider.packaging.files import PackageError, declares_its_build, is_flat, read_regular
from provider.packaging.requirements import project_requirements, requirement_lines
from provider.spec.modules import module_file

DEFAULT_SETUP = """\
# Written by trainjobs, as gcloud does when the package has no setup.py of its own.
from setuptools import find_packages, setup

setup(name={name!r}, version="0.0.0", packages=find_packages(), include_package_data=True{more})
"""

# The build's own output is cut to this many characters in an error message.
_OUTPUT_TAIL = 2000


class BuildMode(Enum):
    """How the PEP 517 frontend runs the backend."""

    ISOLATED = "isolated"  # a fresh environment with the declared build requirements
    THIS_ENVIRONMENT = "no-isolation"  # this interpreter's setuptools, like gcloud's setup.py sdist


class BuildPlan(Record):
    """What the copied source tree needs before and during the build."""

    backend: str
    mode: BuildMode
    write_setup_py: str | None  # the text of a setup.py to write first, if any


def declared_backend(pyproject: Path) -> str | None:
    """The ``build-system.build-backend`` a pyproject.toml declares (None if it has no [build-system])."""
    try:
        data = tomllib.loads(read_regular(pyproject).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PackageError(f"{pyproject}: cannot be read as TOML: {exc}") from None
    system = data.get("build-system")
    if not isinstance(system, dict):
        return None
    backend = system.get("build-backend")
    # PEP 517: [build-system] without build-backend means setuptools' legacy backend.
    return backend if isinstance(backend, str) and backend else "setuptools.build_meta:__legacy__"


def default_setup(src: Path, package_name: str, flat: bool = False) -> str:
    """The setup.py trainjobs writes for a package without one: gcloud's, and what it leaves out.

    A flat folder's ``requirements.txt`` becomes ``install_requires``, so it is installed wherever
    the package is (gcloud's image for ``local-package-path`` runs ``pip install -r
    requirements.txt``). A package folder's is not read: gcloud's ``--package-path`` build never
    installs it, and a repository's top-level requirements often hold more than the trainer
    needs (development tools, ``-e .``). A flat folder's top-level modules are
    ``py_modules`` beside its sub-packages, so ``python -m task`` finds ``task`` and its siblings.
    """
    more = ""
    if flat:
        modules = sorted(p.stem for p in src.glob("*.py") if p.stem != "setup" and module_file(p.stem))  # my-task too
        more += f", py_modules={modules!r}"
    requirements = src / "requirements.txt"
    if flat and requirements.is_file():
        found = requirement_lines(read_regular(requirements).decode("utf-8", "replace"), "requirements.txt")
        if found:
            more += f", install_requires={found!r}"
    return DEFAULT_SETUP.format(name=package_name, more=more)


def plan_build(src: Path, package_name: str, flat: bool = False) -> BuildPlan:
    """Choose the backend and isolation for the sources copied to ``src`` (``flat``: see files.is_flat)."""
    pyproject = src / "pyproject.toml"
    backend = declared_backend(pyproject) if pyproject.is_file() else None
    if backend is not None:
        return BuildPlan(backend, BuildMode.ISOLATED, None)
    setup_py = None
    if not (src / "setup.py").exists():
        # a flat folder's pyproject.toml may only configure tools: then it describes no package
        own = pyproject.is_file() and (not flat or declares_its_build(src))
        setup_py = "from setuptools import setup\n\nsetup()\n" if own else default_setup(src, package_name, flat)
    local = importlib.util.find_spec("setuptools") is not None
    return BuildPlan("setuptools", BuildMode.THIS_ENVIRONMENT if local else BuildMode.ISOLATED, setup_py)


def build_errors(output: str) -> str:
    """The lines of the frontend's output that say what failed: its ERROR lines and their
    continuations, without the frontend's own traceback (the last lines when none say ERROR)."""
    kept: list[str] = []
    in_error = in_traceback = False
    for line in output.splitlines():
        bare = line[2:] if line.startswith(("< ", "> ")) else line
        if bare.startswith("Traceback (most recent call last)"):
            in_traceback, in_error = True, False
            continue
        if in_traceback:  # its frames are indented; the exception line ends it
            if line.startswith(" ") or not line.strip():
                continue
            in_traceback = False
            if not bare.startswith("ERROR"):
                continue
        if "ERROR" in bare.split(" ", 1)[0]:
            in_error = True
            kept.append(bare.strip())
        elif in_error and line.startswith(" "):
            kept.append(line.strip())
        else:
            in_error = False
    if not kept:
        kept = [ln for ln in output.strip().splitlines() if ln.strip()][-15:]
    return "\n".join(dict.fromkeys(kept))


def _copy_sources(package_dir: Path, src: Path) -> None:
    """Copy the package's files (regular files only, re-checked as they are read) into ``src``."""
    for rel, path in source_files(package_dir):
        target = src / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(read_regular(path))
        if os.access(path, os.X_OK):
            target.chmod(0o755)


def _frontend(src: Path, out_dir: Path, mode: BuildMode) -> list[str]:
    cmd = [sys.executable, "-m", "build", "--sdist", "--outdir", str(out_dir)]
    if mode is BuildMode.THIS_ENVIRONMENT:
        cmd += ["--no-isolation", "--skip-dependency-check"]
    return [*cmd, str(src)]


def build_sdist(package_dir: Path, out_dir: Path) -> Path:
    """Build ``package_dir`` into a source distribution (.tar.gz) with its declared backend."""
    if not package_dir.is_dir():
        raise PackageError(f"{package_dir} is not a directory")
    if not (package_dir / "__init__.py").is_file() and not any(package_dir.glob("*.py")):
        raise PackageError(f"{package_dir} holds no Python files")
    if importlib.util.find_spec("build") is None:
        raise PackageError("building a Python package needs the 'build' package: pip install 'build>=1.2'")
    project_requirements(package_dir)  # a requirements.txt line install_requires cannot take: named with its path
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="trainjobs-build-") as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        _copy_sources(package_dir, src)
        plan = plan_build(src, package_dir.name.replace("_", "-"), is_flat(package_dir))
        if plan.write_setup_py is not None:
            (src / "setup.py").write_text(plan.write_setup_py)
        proc = subprocess.run(
            _frontend(src, out_dir, plan.mode), cwd=src, capture_output=True, text=True, check=False,
            stdin=subprocess.DEVNULL,
        )
        if proc.returncode != 0:
            output = build_errors(proc.stderr + "\n" + proc.stdout)[-_OUTPUT_TAIL:]
            raise PackageError(
                f"building {package_dir} with {plan.backend} ({plan.mode.value}) failed:\n{output}"
            )
    built = sorted(out_dir.glob("*.tar.gz"))
    if not built:
        raise PackageError(f"building {package_dir} produced no package")
    return built[-1]


__all__ = ["SKIP_DIRS", "BuildMode", "BuildPlan", "PackageError", "build_sdist", "declared_backend", "default_setup",
           "plan_build"]
