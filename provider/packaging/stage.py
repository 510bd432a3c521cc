"""Put a job's local packages where its request says they are: content-addressed, built once.

The package path is built into an sdist (``stage``), the requirements into their own tiny sdist
(``stage_requirements``), and an extra package file is copied as it is (``stage_file``);
``stage_upload`` does whichever one a ``provider.packaging.Upload`` needs.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Protocol

from provider.document.boundary import repository_root
from provider.packaging import Upload, UploadKind
from provider.packaging.extras import extra_package_path, write_requirements_sdist
from provider.packaging.files import PackageError, check_boundary, read_regular
from provider.packaging.sdist import build_sdist


class Stager(Protocol):
    def exists(self, uri: str) -> bool: ...

    def put(self, uri: str, file: Path) -> None: ...


class LocalPaths(Protocol):
    """Where a gs:// URI lives on this machine (the local backend's Storage is one)."""

    def path(self, uri: str) -> Path: ...


class LocalStager:
    """gs:// URIs in the local backend's storage."""

    def __init__(self, storage: LocalPaths) -> None:
        self.storage = storage

    def exists(self, uri: str) -> bool:
        return self.storage.path(uri).is_file()

    def put(self, uri: str, file: Path) -> None:
        target = self.storage.path(uri)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as out:
            out.write(file.read_bytes())
        os.replace(tmp, target)  # atomic: concurrent stagers of the same content all end with a whole file


def stage(package_dir: Path, uri: str, stager: Stager, repository: Path | None = None) -> bool:
    """Build and upload ``package_dir`` to ``uri`` unless it is already there. True if it uploaded.

    With ``repository`` (a directory of the repository: the project root), a package directory
    outside that repository is refused (PackageError) before anything is read.
    """
    if repository is not None:
        package_dir = check_boundary(package_dir, repository_root(repository))
    if stager.exists(uri):
        return False
    with tempfile.TemporaryDirectory(prefix="trainjobs-sdist-") as tmp:
        built = build_sdist(package_dir, Path(tmp))
        stager.put(uri, built)
    return True


def stage_requirements(requirements: tuple[str, ...], uri: str, stager: Stager) -> bool:
    """Write and upload the sdist of ``requirements`` to ``uri`` unless it is there. True if it uploaded."""
    if stager.exists(uri):
        return False
    with tempfile.TemporaryDirectory(prefix="trainjobs-requirements-") as tmp:
        stager.put(uri, write_requirements_sdist(requirements, Path(tmp)))
    return True


def stage_file(file: Path, uri: str, stager: Stager, repository: Path | None = None) -> bool:
    """Upload the extra package ``file`` as it is to ``uri`` unless it is there. True if it uploaded.

    With ``repository``, a file outside that repository is refused (PackageError) before it is
    read; a file whose content no longer matches the digest in ``uri`` is refused too (it changed
    since the request was made: staging it would put other bytes under that name).
    """
    if repository is not None:
        root = repository_root(repository)
        file = extra_package_path(root, os.path.abspath(file), root)
    if stager.exists(uri):
        return False
    data = read_regular(file)
    digest = hashlib.sha256(data).hexdigest()
    if f"/packages/{digest[:32]}/" not in uri:
        raise PackageError(f"the extra package {file} changed since its URI {uri} was computed; run again")
    with tempfile.TemporaryDirectory(prefix="trainjobs-extra-") as tmp:
        copy = Path(tmp) / file.name
        copy.write_bytes(data)
        stager.put(uri, copy)
    return True


def stage_upload(upload: Upload, stager: Stager, repository: Path | None = None) -> bool:
    """Stage one of ``provider.packaging.uploads``; True if it uploaded."""
    if upload.kind is UploadKind.REQUIREMENTS:
        return stage_requirements(upload.requirements, upload.uri, stager)
    assert upload.source is not None
    if upload.kind is UploadKind.EXTRA:
        return stage_file(upload.source, upload.uri, stager, repository)
    return stage(upload.source, upload.uri, stager, repository)
