"""What a job's local sources make of its request, on either side of a plan.

A package path becomes a content-addressed staged URI (provider.packaging, the same code the
provider uses), so an edited trainer changes the request and replaces the job; so do an
edited extra package file and a changed requirement. An image built
from a context cannot be known before it is pushed; the plan stands in a placeholder that
names the context and a digest of its files, so a changed Dockerfile or context replaces the
job and an unchanged one does not.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import stat
from pathlib import Path

from provider.gitops.tree import Tree
from provider.packaging import SKIP_DIRS, planned_package_uris
from provider.spec.model import Container, PythonPackage, TrainingJob
from provider.stack.config import StackConfig


def _relative(spec_file: str, path: str) -> str:
    return posixpath.normpath(posixpath.join(posixpath.dirname(spec_file), path))


def directory_digest(directory: Path) -> str:
    """SHA-256 over the names, modes and contents of the files under ``directory`` (caches skipped).

    A symlink counts by the path it holds, never by what it points to (a build copies the link,
    and the plan reads nothing out of the repository); a FIFO, socket or device by its kind (it is
    never opened: a FIFO would block the plan).
    """
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = Path(dirpath) / name
            rel = path.relative_to(directory).as_posix()
            mode = os.lstat(path).st_mode
            if not stat.S_ISREG(mode):
                what = os.readlink(path) if stat.S_ISLNK(mode) else stat.S_IFMT(mode)
                h.update(f"{rel}\0special\0{what}\0".encode("utf-8", "surrogateescape"))
                continue
            data = path.read_bytes()
            h.update(f"{rel}\0{int(os.access(path, os.X_OK))}\0{len(data)}\0".encode("utf-8", "surrogateescape"))
            h.update(data)
    return h.hexdigest()


def built_image(job: TrainingJob, spec_file: str, tree: Tree) -> str | None:
    """``<built from CONTEXT @ sha256:...>`` for a container built from source, else None."""
    app = job.application
    if not isinstance(app, Container) or app.build is None:
        return None
    context = _relative(spec_file, app.build.context)
    local = tree.local_dir(context)
    digest = directory_digest(local)[:16] if local.is_dir() else "missing"
    dockerfile = f", {app.build.dockerfile}" if app.build.dockerfile else ""
    return f"<built from {context}{dockerfile} @ sha256:{digest}>"


def staged_packages(job: TrainingJob, spec_file: str, tree: Tree, stack: StackConfig) -> list[str] | None:
    """The job's package URIs as the stack would stage them (None: the job names no package)."""
    app = job.application
    if not isinstance(app, PythonPackage):
        return None
    if app.source_path:
        tree.local_dir(_relative(spec_file, app.source_path))
    for extra in app.extra_packages:  # a file: its folder holds it, as this tree has it
        tree.local_dir(posixpath.dirname(_relative(spec_file, extra)) or ".")
    spec_dir = tree.root / posixpath.dirname(spec_file)
    return planned_package_uris(job, spec_dir, tree.root, default_bucket=f"gs://{stack.bucket}") or None
