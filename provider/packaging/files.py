"""Which files make a training package, read safely, within the repository and the limits.

A package path comes from a spec, and a spec can come from a pull request. So packaging:

* refuses a package directory outside the repository that holds the spec
  (``check_boundary``; ``trainjobs validate`` reports the same as a validation error first);
* takes regular files only: a device, FIFO or socket in the package is an error, never read;
* never follows a symlink out of the package directory (nor out of its parent, for the
  ``setup.py``/``pyproject.toml`` beside it): a link to a regular file inside is packaged as
  that file, a link that leaves, dangles or loops is an error; linked directories are not
  descended into (a loop cannot make the walk endless);
* stops at ``MAX_PACKAGE_FILES`` files and ``MAX_PACKAGE_BYTES`` bytes, before reading them.

Every refusal is a ``PackageError``, a ``BackendError`` (INVALID_ARGUMENT), so ``trainjobs run``
and the Pulumi provider show it as one message, never a traceback.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from provider.core.errors import InvalidArgument, UserError
from provider.document.boundary import file_kind, inside, resolve

# Files next to the package that shape its sdist (gcloud looks for setup.py in the parent).
# (a pyproject.toml's backend may also read the readme and licence it names)
BUILD_FILES = (
    "setup.py", "setup.cfg", "pyproject.toml", "MANIFEST.in", "requirements.txt",
    "README.md", "README.rst", "README.txt", "README", "LICENSE", "LICENSE.txt", "LICENSE.md",
)
SKIP_DIRS = {"__pycache__", ".git", ".hg", ".svn", ".venv", "build", "dist", ".mypy_cache", ".pytest_cache"}

# A trainer package is code: kilobytes to a few megabytes. Data, checkpoints and models belong
# in Cloud Storage. Every run and every plan digests the package, and a run copies, builds and
# uploads it, so the limits keep a mistaken path (a home directory, a dataset) from turning each
# of those into minutes of I/O and gigabytes staged to a bucket.
MAX_PACKAGE_BYTES = 100 * 1024 * 1024
MAX_PACKAGE_FILES = 10_000


class PackageError(InvalidArgument, UserError):
    """A package that cannot be built or staged; the message says which file and why.

    A BackendError for the provider and the backends, a UserError for the command line.
    """


def check_boundary(package_dir: Path, root: Path) -> Path:
    """The package directory, resolved; PackageError unless it is a directory inside ``root``.

    ``root`` itself is a package directory only when it is flat (``is_flat``: a folder of
    top-level modules, gcloud's ``local-package-path=.``); a root that is a Python package would
    take its setup.py from above the repository.
    """
    target = resolve(package_dir)
    if target.path is None:
        raise PackageError(f"the package path {package_dir} {target.problem}")
    root = Path(os.path.realpath(root))
    if not inside(target.path, root):
        raise PackageError(f"the package path {package_dir} resolves to {target.path}, outside the repository "
                           f"{root}; a package path must be a directory inside the repository that holds the spec")
    if not target.path.is_dir():
        raise PackageError(f"the package path {package_dir} is not a directory")
    if target.path == root and not is_flat(target.path):  # its setup.py would come from the directory above
        raise PackageError(f"the package path {package_dir} is the repository {root} itself; it must be the Python "
                           "package directory inside it (gcloud's --package-path)")
    return target.path


def _regular(path: Path, within: Path, shown: str) -> tuple[Path, int] | None:
    """(the file to read, its size) for a packageable file; None for a directory link (not followed)."""
    mode = os.lstat(path).st_mode
    if stat.S_ISLNK(mode):
        target = resolve(path)
        if target.path is None:
            raise PackageError(f"{shown} in the package {target.problem}")
        if not inside(target.path, within):
            raise PackageError(f"{shown} in the package is a symlink that leaves {within}; packages never follow "
                               "a symlink out of the package directory")
        if target.path.is_dir():
            return None
        path, mode = target.path, os.stat(target.path).st_mode
    if not stat.S_ISREG(mode):
        raise PackageError(f"{shown} in the package is {file_kind(mode)}; packages hold regular files only")
    return path, os.stat(path).st_size


class _Budget:
    """Counts files and bytes against the package limits."""

    def __init__(self, package_dir: Path) -> None:
        self.package_dir = package_dir
        self.files = 0
        self.bytes = 0

    def add(self, size: int) -> None:
        self.files += 1
        self.bytes += size
        if self.files > MAX_PACKAGE_FILES:
            raise PackageError(f"the package {self.package_dir} has more than {MAX_PACKAGE_FILES:,} files, the limit "
                               "for a trainer package (keep data in Cloud Storage, or point the path at the package)")
        if self.bytes > MAX_PACKAGE_BYTES:
            raise PackageError(f"the package {self.package_dir} is larger than {MAX_PACKAGE_BYTES // 2**20} MiB, the "
                               "limit for a trainer package (keep data and checkpoints in Cloud Storage)")


def is_flat(package_dir: Path) -> bool:
    """Whether the package path is a folder of top-level modules rather than a Python package.

    A folder without ``__init__.py`` (gcloud's ``local-package-path=DIR,script=task.py``): its
    own files make the project (its setup.py, requirements.txt), and its top-level ``.py`` files
    are modules of their own (``python -m task``). A package folder (``trainer/__init__.py``)
    takes its setup.py from the folder above, as gcloud's ``--package-path`` does.
    """
    return not (package_dir / "__init__.py").is_file()


def project_dir(package_dir: Path) -> Path:
    """Where the package's setup.py, pyproject.toml and requirements.txt are read: a flat folder
    itself, or the folder above a package folder (where gcloud looks for setup.py)."""
    return package_dir if is_flat(package_dir) else package_dir.parent


def declares_its_build(package_dir: Path) -> bool:
    """Whether the package's project describes its own build (so trainjobs writes no setup.py).

    A setup.py, or a pyproject.toml; in a flat folder, only a pyproject.toml with a
    ``[build-system]`` or ``[project]`` table (one that only configures tools, such as
    ``[tool.ruff]``, describes no package). An unreadable pyproject.toml counts, so that the
    build reports it.
    """
    project = project_dir(package_dir)
    if (project / "setup.py").exists():
        return True
    pyproject = project / "pyproject.toml"
    if not pyproject.is_file():
        return False
    if not is_flat(package_dir):
        return True
    import tomllib  # only for a flat package with a pyproject.toml

    try:
        data = tomllib.loads(read_regular(pyproject).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, PackageError):
        return True
    return "build-system" in data or "project" in data


def source_files(package_dir: Path) -> list[tuple[str, Path]]:
    """(relative name, path to read) of the files that make the package, in a stable order.

    For a package folder, the build files beside it and its files as ``trainer/...``; for a flat
    folder (``is_flat``), its own files, named relative to it.
    """
    out: list[tuple[str, Path]] = []
    flat = is_flat(package_dir)
    root = package_dir if flat else package_dir.parent
    budget = _Budget(package_dir)
    for name in () if flat else BUILD_FILES:
        p = root / name
        if os.path.lexists(p) and not p.is_dir():
            found = _regular(p, root, name)
            if found is not None:
                budget.add(found[1])
                out.append((name, found[0]))
    for dirpath, dirnames, filenames in os.walk(package_dir):
        here = Path(dirpath)
        kept = []
        for d in sorted(dirnames):
            if d in SKIP_DIRS or d.endswith(".egg-info"):
                continue
            if (here / d).is_symlink():
                _regular(here / d, package_dir, (here / d).relative_to(root).as_posix())  # refuses one that leaves
                continue
            kept.append(d)
        dirnames[:] = kept
        for f in sorted(filenames):
            if f.endswith((".pyc", ".pyo")) or f.startswith("."):
                continue
            p = here / f
            rel = p.relative_to(root).as_posix()
            found = _regular(p, package_dir, rel)
            if found is not None:
                budget.add(found[1])
                out.append((rel, found[0]))
    return out


def read_regular(path: Path) -> bytes:
    """A package file's bytes, read as every file is (provider.document.files.read_inside: a
    regular file, a symlink only inside the repository, at most the package size limit)."""
    from provider.document.files import Refused, read_inside

    try:
        return read_inside(path, MAX_PACKAGE_BYTES)
    except Refused as refused:
        raise PackageError(f"{path}: {refused.message}") from None
