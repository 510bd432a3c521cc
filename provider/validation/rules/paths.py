"""Local folders a spec names (package path, build context): they exist, and stay in the repository.

The spec's local paths are provider.spec.local_paths's one list; this rule checks its folders
(and a build context's Dockerfile), rules/package_extras.py its extra package files.

A spec in a pull request must not make trainjobs read, package or upload files from outside
the repository that holds it (provider.document.boundary): the path, with every symlink
followed, must be a directory inside that repository (the repository itself only as a flat
folder of modules, with no ``__init__.py``). Packaging checks the same again
(provider.packaging.files), so a spec that skipped validation is refused there too.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from provider.document.boundary import inside, repository_root, resolve
from provider.document.excerpt import clip
from provider.spec.local_paths import LocalKind, LocalPath, local_paths
from provider.spec.model import DocPath, TrainingJob
from provider.validation.rules.base import Context, Finding, rule


def real_path(path: Path) -> Path:
    """``path`` with its symlinks followed as far as they go (never raises on a loop)."""
    return Path(os.path.realpath(path))


_WHAT = {LocalKind.PACKAGE: "a directory holding the Python package", LocalKind.BUILD_CONTEXT: "a directory with a Dockerfile"}


@rule
def local_paths_exist(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """A package path or build context exists where the spec says (relative to it), inside the repository."""
    named = local_paths(job)
    if ctx.spec_dir is None or not any(p.kind.folder for p in named):
        return  # no local folder: no walk up the tree for the boundary (issue 31)
    root = repository_root(ctx.spec_dir)
    boundary = f"a directory inside the repository that holds the spec ({root}), relative to the spec file"
    for item in named:
        if item.kind.folder:
            yield from _folder(item, ctx.spec_dir, root, boundary, named)


def _folder(item: LocalPath, spec_dir: Path, root: Path, boundary: str,
            named: tuple[LocalPath, ...]) -> Iterator[Finding]:
    raw, where, what, word = item.written, item.where, _WHAT[item.kind], item.kind.value
    rel = clip(raw, 120)
    target = resolve(spec_dir / raw)
    if target.path is None:
        if target.problem == "does not exist":
            looked = clip(str(real_path(spec_dir / raw)), 160)
            yield Finding(f"{rel} does not exist (looked for {looked})", where, "path.exists", None,
                          allowed=f"{what}, relative to the spec file")
        else:
            yield Finding(f"the {word} {rel} {target.problem}", where, "path.boundary", None, allowed=boundary)
    elif not inside(target.path, root):
        yield Finding(f"the {word} {rel} resolves to {target.path}, outside the repository {root}", where,
                      "path.boundary", None, allowed=boundary,
                      hint="trainjobs reads, packages and uploads only files of the spec's own repository")
    elif not target.path.is_dir():
        yield Finding(f"the {word} {rel} is not a directory (looked for {target.path})", where, "path.exists",
                      None, allowed=f"{what}, relative to the spec file")
    elif item.kind is LocalKind.PACKAGE and target.path == root and not _flat(target.path):
        yield Finding(f"the package path {rel} is the repository {root} itself", where, "path.boundary", None,
                      allowed="the Python package directory inside the repository (gcloud's --package-path); "
                      "setup.py or pyproject.toml go beside it")
    elif item.kind is LocalKind.PACKAGE:
        yield from _package_files(target.path, where)
    else:  # a build context: its Dockerfile (the one named, else Dockerfile) is there
        for dockerfile in (p.written for p in named if p.kind is LocalKind.DOCKERFILE and p.under == raw):
            if not (target.path / dockerfile).is_file():
                yield Finding(f"no {dockerfile} in the build context {rel}", where, "path.exists", None,
                              allowed="a build context with a Dockerfile")


def _flat(package_dir: Path) -> bool:
    """A folder of top-level modules (no __init__.py): the repository root may be one (gcloud's
    ``local-package-path=.``); a root that is a Python package would take its setup.py from above."""
    from provider.packaging.files import is_flat

    return is_flat(package_dir)


def _package_files(package_dir: Path, where: DocPath) -> Iterator[Finding]:
    """The package's files as packaging will take them: regular, not linked out, within the limits."""
    # Imported here: packaging's errors are the backend seam's, which validate otherwise never loads.
    from provider.packaging.files import MAX_PACKAGE_BYTES, MAX_PACKAGE_FILES, PackageError, source_files

    try:
        source_files(package_dir)  # names and lstat only: no file is read here
    except PackageError as exc:
        yield Finding(exc.message, where, "package.files", None,
                      allowed=f"regular files inside the package directory, at most {MAX_PACKAGE_FILES:,} files and "
                      f"{MAX_PACKAGE_BYTES // 2**20} MiB (docs/security.md)")
    except OSError as exc:
        yield Finding(f"the package directory {package_dir} cannot be read: {exc.strerror or exc}", where,
                      "package.files", None, allowed="a readable directory")
    else:
        yield from _package_requirements(package_dir, where)


def _package_requirements(package_dir: Path, where: DocPath) -> Iterator[Finding]:
    """The requirements.txt the default setup.py takes as install_requires (docs/migration.md), line by line."""
    from provider.packaging.files import PackageError
    from provider.packaging.requirements import project_requirements

    try:
        project_requirements(package_dir)  # reads that one small file, which source_files found regular
    except PackageError as exc:
        yield Finding(exc.message, where, "package.requirements", None,
                      allowed="one requirement per line (name, extras, versions, markers, or name @ URL), or a "
                      "setup.py or pyproject.toml of the package's own")
    except OSError as exc:
        yield Finding(f"{exc.filename or package_dir} cannot be read: {exc.strerror or exc}", where,
                      "package.requirements", None, allowed="a readable requirements.txt")
