"""The local paths a spec names: the one list every reader of them derives from.

A package path, its extra package files, a build context and its Dockerfile are files of the
spec's own repository that trainjobs reads, packages or digests. Validation checks each
(provider.validation.rules.paths), a Pulumi Check may carry its verdict only for a spec that
names none (provider.resources.job_check), and a GitOps plan digests their folders on both
sides (provider.gitops.sources): all of them ask :func:`local_paths`, so they cannot disagree.
"""

from __future__ import annotations

import enum
import posixpath

from provider.core.record import Record
from provider.spec.model import Container, DocPath, PythonPackage, TrainingJob, path_of


class LocalKind(enum.Enum):
    """What a local path is: its word in messages, and whether it names a folder or a file."""

    PACKAGE = "package path"
    EXTRA_PACKAGE = "extra package"
    BUILD_CONTEXT = "build context"
    DOCKERFILE = "Dockerfile"

    @property
    def folder(self) -> bool:
        """A directory (the package, the build context); else a file."""
        return self in (LocalKind.PACKAGE, LocalKind.BUILD_CONTEXT)


class LocalPath(Record):
    """One local path of a spec: what it is, where it was written, and the path as written.

    ``under``: the path it is relative to, itself relative to the spec file ("" for the spec's
    folder; the build context for a Dockerfile, as Docker reads it)."""

    kind: LocalKind
    where: DocPath
    written: str
    under: str = ""

    @property
    def from_spec(self) -> str:
        """The path relative to the spec file's folder (not normalized: as the spec composes it)."""
        return posixpath.join(self.under, self.written) if self.under else self.written


def local_paths(job: TrainingJob) -> tuple[LocalPath, ...]:
    """Every local path ``job`` names, in the order the spec gives them (none: it reads no local file)."""
    app = job.application
    out: list[LocalPath] = []
    if isinstance(app, PythonPackage):
        if app.source_path is not None:  # "" is the spec's own folder, as packaging takes it
            out.append(LocalPath(LocalKind.PACKAGE, path_of(app, "source_path"), app.source_path))
        where = path_of(app, "extra_packages")
        out += [LocalPath(LocalKind.EXTRA_PACKAGE, where + (i,) if where else where, extra)
                for i, extra in enumerate(app.extra_packages)]
    elif isinstance(app, Container) and app.build is not None:
        build = app.build
        out.append(LocalPath(LocalKind.BUILD_CONTEXT, path_of(build, "context"), build.context))
        # Docker reads CONTEXT/Dockerfile when none is named: a path of the spec all the same
        where = path_of(build, "dockerfile") if build.dockerfile else path_of(build, "context")
        out.append(LocalPath(LocalKind.DOCKERFILE, where, build.dockerfile or "Dockerfile", under=build.context))
    return tuple(out)
