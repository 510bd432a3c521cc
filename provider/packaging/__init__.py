"""Training packages: content digests, staged locations, and sdist builds like gcloud's.

A local package path (gcloud ``--package-path``) is identified by a digest of its source, so
an unchanged trainer maps to the same staged URI: Pulumi sees no diff, and the local backend
reuses its installed environment.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from provider.spec.model import PythonPackage, TrainingJob

# Files next to the package that shape its sdist (gcloud looks for setup.py in the parent; a
# pyproject.toml's backend may also read the readme and licence it names).
BUILD_FILES = (
    "setup.py", "setup.cfg", "pyproject.toml", "MANIFEST.in", "requirements.txt",
    "README.md", "README.rst", "README.txt", "README", "LICENSE", "LICENSE.txt", "LICENSE.md",
)
SKIP_DIRS = {"__pycache__", ".git", ".hg", ".svn", ".venv", "build", "dist", ".mypy_cache", ".pytest_cache"}


def resolve_source(job: TrainingJob, spec_dir: Path) -> Path | None:
    app = job.application
    if not isinstance(app, PythonPackage) or app.source_path is None:
        return None
    return (spec_dir / app.source_path).resolve()


def source_files(package_dir: Path) -> list[tuple[str, Path]]:
    """(relative name, path) of the files that make the package, in a stable order."""
    out: list[tuple[str, Path]] = []
    root = package_dir.parent
    for name in BUILD_FILES:
        p = root / name
        if p.is_file():
            out.append((name, p))
    for dirpath, dirnames, filenames in os.walk(package_dir):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.endswith(".egg-info"))
        for f in sorted(filenames):
            if f.endswith((".pyc", ".pyo")) or f.startswith("."):
                continue
            p = Path(dirpath) / f
            out.append((p.relative_to(root).as_posix(), p))
    return out


def source_digest(package_dir: Path) -> str:
    """SHA-256 over the package's file names, modes and contents."""
    h = hashlib.sha256()
    for rel, path in source_files(package_dir):
        data = path.read_bytes()
        executable = os.access(path, os.X_OK)
        h.update(f"{rel}\0{int(executable)}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def staging_base(job: TrainingJob, default_bucket: str | None = None) -> str | None:
    """Where packages are uploaded: the staging bucket, or the job dir's packages/ (like gcloud)."""
    if job.staging_bucket:
        return job.staging_bucket.rstrip("/") + "/trainjobs"
    if job.output is not None:
        return job.output.uri.rstrip("/")
    if default_bucket:
        return default_bucket.rstrip("/") + "/trainjobs"
    return None


def staged_uri(base: str, package_dir: Path, digest: str) -> str:
    """gs://.../packages/<digest>/<package>.tar.gz: content-addressed, so unchanged means equal."""
    return f"{base}/packages/{digest[:32]}/{package_dir.name}.tar.gz"


def package_uris(job: TrainingJob, spec_dir: Path, default_bucket: str | None = None) -> list[str]:
    """All package URIs of the job: the staged build of its package path first, then its gs:// URIs."""
    app = job.application
    if not isinstance(app, PythonPackage):
        return []
    uris = list(app.package_uris)
    source = resolve_source(job, spec_dir)
    base = staging_base(job, default_bucket)
    if source is not None and source.is_dir() and base is not None:
        uris.insert(0, staged_uri(base, source, source_digest(source)))
    return uris
