"""Put a job's local package where its request says it is: content-addressed, built once."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Protocol

from provider.document.boundary import repository_root
from provider.packaging.files import check_boundary
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
