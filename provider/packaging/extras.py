"""What a job installs beside its package: ``requirements`` and ``extraPackages`` (gcloud's keys).

gcloud's image for ``local-package-path`` runs ``pip install`` of each ``requirements=`` entry
and of each ``extra-packages=`` file (command_lib/ai/docker/build.py ``_DependencyEntries``).
trainjobs carries both as package URIs, which Vertex AI's prebuilt containers and the local
backend ``pip install`` alike:

* the requirements become one tiny source distribution, ``trainjobs-requirements`` 0.0.0, whose
  only content is a ``setup.py`` with those requirements as ``install_requires`` (and the
  ``PKG-INFO`` that says the same). It holds no module. Its bytes depend on the requirements
  only (fixed names, times and modes), and its URI on their digest:
  ``{base}/packages/<digest>/trainjobs_requirements.tar.gz``; the same requirements in
  another order are the same package;
* each extra package is a local archive (``.whl``, ``.tar.gz``, ``.zip``), relative to the spec
  file and inside its repository (provider.document.boundary), a regular file within the package
  size limit, staged as it is at ``{base}/packages/<sha256[:32]>/<file name>``.

A changed requirement or extra file is a new URI, so the request changes and Pulumi shows it.
"""

from __future__ import annotations

import os
from enum import Enum
from pathlib import Path

from provider.core.record import Record
from provider.document.boundary import inside, resolve
from provider.packaging.files import MAX_PACKAGE_BYTES, PackageError, read_regular

REQUIREMENTS_NAME = "trainjobs-requirements"
REQUIREMENTS_FILE = "trainjobs_requirements.tar.gz"
ARCHIVE_SUFFIXES = (".whl", ".tar.gz", ".zip")
_FORMAT = "trainjobs-requirements/1"  # part of the digest: a new layout of the sdist is a new URI
_TOP = "trainjobs_requirements-0.0.0"
_SETUP = """\
# Written by trainjobs: the requirements of the job's spec (application.pythonPackage.requirements),
# installed with its package as gcloud's image installs its requirements= entries.
from setuptools import setup

setup(name={name!r}, version="0.0.0", py_modules=[], install_requires={requires!r})
"""


def _ordered(requirements: tuple[str, ...] | list[str]) -> list[str]:
    """The requirements as written (stripped), sorted: their order means nothing to pip."""
    return sorted(r.strip() for r in requirements)


def requirements_digest(requirements: tuple[str, ...] | list[str]) -> str:
    """SHA-256 of the requirements as written, sorted (and of the sdist's layout version)."""
    import hashlib  # here, not at the top: validation imports this module, only staging digests

    return hashlib.sha256("\n".join([_FORMAT, *_ordered(requirements)]).encode()).hexdigest()


def requirements_uri(base: str, requirements: tuple[str, ...] | list[str]) -> str:
    return f"{base}/packages/{requirements_digest(requirements)[:32]}/{REQUIREMENTS_FILE}"


def _pkg_info(requires: list[str]) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {REQUIREMENTS_NAME}", "Version: 0.0.0",
             "Summary: the requirements of a trainjobs spec", *(f"Requires-Dist: {r}" for r in requires)]
    return "\n".join(lines) + "\n"


def write_requirements_sdist(requirements: tuple[str, ...] | list[str], out_dir: Path) -> Path:
    """The requirements' sdist in ``out_dir``: the same requirements give the same bytes."""
    import gzip  # lazy: only staging writes one
    import io
    import tarfile

    requires = _ordered(requirements)
    members = {"setup.py": _SETUP.format(name=REQUIREMENTS_NAME, requires=requires), "PKG-INFO": _pkg_info(requires)}
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, text in sorted(members.items()):
            data = text.encode()
            info = tarfile.TarInfo(f"{_TOP}/{name}")
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / REQUIREMENTS_FILE
    with open(target, "wb") as f, gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as gz:
        gz.write(raw.getvalue())
    return target


class ExtraPackage(Record):
    """One extra package file: as the spec wrote it, where it is, and its content digest."""

    written: str
    path: Path  # resolved, inside the repository
    digest: str  # sha256 of its bytes

    def uri(self, base: str) -> str:
        return f"{base}/packages/{self.digest[:32]}/{self.path.name}"


class ExtraRule(Enum):
    """Which rule an extra package breaks (the validation rule ids)."""

    EXISTS = "path.exists"  # missing, a directory, not an archive, not a regular file, too large
    BOUNDARY = "path.boundary"  # outside the repository (a symlink that leaves it, ..), a loop


class ExtraProblem(Record):
    """Why an extra package file cannot be staged: the rule, what is wrong and what is allowed."""

    rule: ExtraRule
    message: str
    allowed: str


_ARCHIVE = f"a Python archive file ({', '.join(ARCHIVE_SUFFIXES)}) inside the repository, relative to the spec file"


def check_extra(spec_dir: Path, written: str, root: Path) -> Path | ExtraProblem:
    """The extra package file ``written`` (relative to ``spec_dir``), resolved, or why it cannot be
    staged: it must be a regular ``.whl``/``.tar.gz``/``.zip`` file inside ``root``, within the
    package size limit."""
    shown = f"the extra package {written}"
    if "\x00" in written:
        return ExtraProblem(ExtraRule.EXISTS, f"the extra package {written!r} holds a NUL character", _ARCHIVE)
    target = resolve(spec_dir / written)
    looked = Path(os.path.abspath(spec_dir / written))
    if target.path is None:
        rule = ExtraRule.EXISTS if target.problem == "does not exist" else ExtraRule.BOUNDARY
        return ExtraProblem(rule, f"{shown} {target.problem} (looked for {looked})", _ARCHIVE)
    real_root = Path(os.path.realpath(root))
    if not inside(target.path, real_root):
        return ExtraProblem(ExtraRule.BOUNDARY, f"{shown} resolves to {target.path}, outside the repository "
                            f"{real_root}", _ARCHIVE + " (trainjobs reads and uploads only files of the spec's "
                            "own repository)")
    if target.path.is_dir():
        return ExtraProblem(ExtraRule.EXISTS, f"{shown} is a directory ({target.path})", _ARCHIVE)
    if not target.path.is_file():
        return ExtraProblem(ExtraRule.EXISTS, f"{shown} is not a regular file ({target.path})", _ARCHIVE)
    if not written.endswith(ARCHIVE_SUFFIXES):
        return ExtraProblem(ExtraRule.EXISTS, f"{shown} is not a Python archive (a wheel or a source distribution)",
                            _ARCHIVE)
    if target.path.stat().st_size > MAX_PACKAGE_BYTES:
        return ExtraProblem(ExtraRule.EXISTS, f"{shown} is larger than {MAX_PACKAGE_BYTES // 2**20} MiB, the limit "
                            "for a package", _ARCHIVE + " (keep data and checkpoints in Cloud Storage)")
    return target.path


def extra_package_path(spec_dir: Path, written: str, root: Path) -> Path:
    """``check_extra``, raising its problem as a PackageError (one message: what, and what is allowed)."""
    found = check_extra(spec_dir, written, root)
    if isinstance(found, ExtraProblem):
        raise PackageError(f"{found.message}; allowed: {found.allowed}")
    return found


def extra_packages(written: tuple[str, ...], spec_dir: Path, root: Path) -> list[ExtraPackage]:
    """Every extra package of a spec, checked (extra_package_path) and digested, in the spec's order."""
    import hashlib

    out = []
    for item in written:
        path = extra_package_path(spec_dir, item, root)
        out.append(ExtraPackage(item, path, hashlib.sha256(read_regular(path)).hexdigest()))
    return out


__all__ = ["ARCHIVE_SUFFIXES", "REQUIREMENTS_FILE", "REQUIREMENTS_NAME", "ExtraPackage", "ExtraProblem", "ExtraRule",
           "check_extra", "extra_package_path",
           "extra_packages", "requirements_digest", "requirements_uri", "write_requirements_sdist"]
