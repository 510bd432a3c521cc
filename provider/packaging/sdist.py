"""Build a training package the way gcloud's ``--package-path`` does.

The package path is the Python package directory (``trainer/``). If its parent holds a
setup.py (or pyproject.toml), that describes the distribution; otherwise, like gcloud, a
default setup.py packages the directory. The build runs on a copy, so nothing is written into
the user's source tree.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from provider.packaging import SKIP_DIRS, source_files
from provider.packaging.files import PackageError

DEFAULT_SETUP = """\
# Written by trainjobs, as gcloud does when the package has no setup.py of its own.
from setuptools import find_packages, setup

setup(name={name!r}, version="0.0.0", packages=find_packages(), include_package_data=True)
"""


def build_sdist(package_dir: Path, out_dir: Path) -> Path:
    """Build ``package_dir`` into a source distribution (.tar.gz)."""
    if not package_dir.is_dir():
        raise PackageError(f"{package_dir} is not a directory")
    if not (package_dir / "__init__.py").is_file() and not any(package_dir.glob("*.py")):
        raise PackageError(f"{package_dir} holds no Python files")
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="trainjobs-build-") as tmp:
        src = Path(tmp) / "src"
        for rel, path in source_files(package_dir):
            target = src / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
        if not (src / "setup.py").exists():
            if (src / "pyproject.toml").exists():  # a setuptools project described in pyproject.toml
                (src / "setup.py").write_text("from setuptools import setup\n\nsetup()\n")
            else:
                (src / "setup.py").write_text(DEFAULT_SETUP.format(name=package_dir.name.replace("_", "-")))
        cmd = [sys.executable, "setup.py", "--quiet", "sdist", "--formats=gztar", "--dist-dir", str(out_dir)]
        proc = subprocess.run(cmd, cwd=src, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise PackageError(f"building {package_dir} failed:\n{(proc.stderr or proc.stdout).strip()[-2000:]}")
    built = sorted(out_dir.glob("*.tar.gz"))
    if not built:
        raise PackageError(f"building {package_dir} produced no package")
    return built[-1]


__all__ = ["SKIP_DIRS", "PackageError", "build_sdist"]
