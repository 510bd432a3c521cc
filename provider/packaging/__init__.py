"""Training packages: content digests, staged locations, and sdist builds like gcloud's.

A local package path (gcloud ``--package-path``) is identified by a digest of its source, so
an unchanged trainer maps to the same staged URI: Pulumi sees no diff, and the local backend
reuses its installed environment.
"""

from __future__ import annotations

import os
from enum import Enum
from pathlib import Path

from provider.core.record import Record
from provider.document.boundary import repository_root
from provider.packaging.extras import extra_packages, requirements_uri
from provider.packaging.files import (
    BUILD_FILES,
    MAX_PACKAGE_BYTES,
    MAX_PACKAGE_FILES,
    SKIP_DIRS,
    PackageError,
    check_boundary,
    source_files,
)
from provider.spec.model import PythonPackage, TrainingJob

__all__ = [
    "BUILD_FILES",
    "MAX_PACKAGE_BYTES",
    "MAX_PACKAGE_FILES",
    "SKIP_DIRS",
    "PackageError",
    "Upload",
    "UploadKind",
    "check_boundary",
    "checked_source",
    "package_uris",
    "planned_package_uris",
    "resolve_source",
    "source_digest",
    "source_files",
    "staged_uri",
    "staging_base",
    "uploads",
]


def resolve_source(job: TrainingJob, spec_dir: Path) -> Path | None:
    app = job.application
    if not isinstance(app, PythonPackage) or app.source_path is None or "\x00" in app.source_path:
        return None  # a NUL is no path at all (validation says so)
    return Path(os.path.realpath(spec_dir / app.source_path))  # a symlink loop never raises here


def checked_source(job: TrainingJob, spec_dir: Path) -> Path | None:
    """The job's package directory, resolved and inside the repository that holds the spec.

    PackageError (a BackendError) when it resolves outside, loops, or is not a directory:
    what packages a directory calls this first, whatever validated the spec before.
    """
    app = job.application
    if not isinstance(app, PythonPackage) or app.source_path is None:
        return None
    return check_boundary(spec_dir / app.source_path, repository_root(spec_dir))  # refuses a NUL too


def source_digest(package_dir: Path) -> str:
    """SHA-256 over the package's file names, modes and contents (provider.packaging.digest)."""
    from provider.packaging.digest import files_digest, once

    return once("source", package_dir, lambda: files_digest(source_files(package_dir)))


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


class UploadKind(Enum):
    """What a staged URI holds."""

    SOURCE = "source"  # the sdist built from the package path
    EXTRA = "extra"  # an extra package file, as it is
    REQUIREMENTS = "requirements"  # the sdist of the spec's requirements (provider.packaging.extras)


class Upload(Record):
    """One file the job's request names and staging must put there (provider.packaging.stage)."""

    kind: UploadKind
    uri: str
    source: Path | None = None  # the package directory or the extra file (resolved); None for requirements
    requirements: tuple[str, ...] = ()


def uploads(job: TrainingJob, spec_dir: Path, default_bucket: str | None = None,
            root: Path | None = None) -> list[Upload]:
    """What the job's local package, extra packages and requirements stage, in request order.

    The package path and the extra packages must stay inside ``root`` (by default the repository
    that holds ``spec_dir``), and their files must follow provider.packaging.files and
    provider.packaging.extras: PackageError otherwise. Without a staging base there is nothing
    to stage (validation says a bucket is needed).
    """
    app = job.application
    base = staging_base(job, default_bucket)
    if not isinstance(app, PythonPackage) or base is None:
        return []
    out = []
    source = resolve_source(job, spec_dir)
    # the boundary only where a local file is read: a lookup is a walk up the tree (issue 31)
    boundary = root or (repository_root(spec_dir) if source is not None or app.extra_packages else spec_dir)
    if source is not None and source.is_dir():
        assert app.source_path is not None
        check_boundary(spec_dir / app.source_path, boundary)
        out.append(Upload(UploadKind.SOURCE, staged_uri(base, source, source_digest(source)), source))
    extras = {extra.uri(base): extra.path for extra in extra_packages(app.extra_packages, spec_dir, boundary)}
    out += [Upload(UploadKind.EXTRA, uri, path) for uri, path in extras.items()]  # a file named twice: once
    if app.requirements:
        out.append(Upload(UploadKind.REQUIREMENTS, requirements_uri(base, app.requirements),
                          requirements=app.requirements))
    return out


def package_uris(job: TrainingJob, spec_dir: Path, default_bucket: str | None = None,
                 root: Path | None = None, staged: list[Upload] | None = None) -> list[str]:
    """All package URIs of the job, in the order Vertex AI gets them: the staged build of its
    package path, its gs:// URIs, its extra package files, then the sdist of its requirements
    (``uploads`` says what each local one holds, and raises PackageError; ``staged``: its result
    for these same arguments, when the caller has it already)."""
    app = job.application
    if not isinstance(app, PythonPackage):
        return []
    if staged is None:
        staged = uploads(job, spec_dir, default_bucket, root)
    first = [u.uri for u in staged if u.kind is UploadKind.SOURCE]
    return first + list(app.package_uris) + [u.uri for u in staged if u.kind is not UploadKind.SOURCE]


def planned_package_uris(job: TrainingJob, spec_dir: Path, root: Path, default_bucket: str | None = None) -> list[str]:
    """``package_uris`` for a plan: a package that breaks the rules is left out instead of raising.

    Validation reports that package on the side being planned; the plan must still be made.
    """
    try:
        return package_uris(job, spec_dir, default_bucket, root)
    except PackageError:
        app = job.application
        return list(app.package_uris) if isinstance(app, PythonPackage) else []
