"""What a job's local sources make of its request, on either side of a plan.

A package path becomes a content-addressed staged URI (provider.packaging, the same code the
provider uses), so an edited trainer changes the request and replaces the job; so do an
edited extra package file and a changed requirement. An image built
from a context cannot be known before it is pushed; the plan stands in a placeholder that
names the context and the image's name and tag, made from a digest of its files as the Pulumi
program makes the tag it pushes (provider.packaging.digest), so a changed Dockerfile or context
replaces the job and an unchanged one does not.
"""

from __future__ import annotations

import posixpath

from provider.gitops.tree import Tree
from provider.packaging import planned_package_uris
from provider.packaging.digest import directory_digest, image_tag, once, same
from provider.packaging.files import BUILD_FILES
from provider.spec.local_paths import LocalKind, LocalPath, local_paths
from provider.spec.model import Container, PythonPackage, TrainingJob
from provider.stack.config import StackConfig

# The folders a plan proves alike on both sides (provider.gitops.shared), with the files beside
# each that its digest reads too: a package's setup.py and the like. An extra package's folder
# and a Dockerfile's are read as this tree has them, not proven (their files digest on their own).
_PROVEN: dict[LocalKind, tuple[str, ...]] = {LocalKind.PACKAGE: BUILD_FILES, LocalKind.BUILD_CONTEXT: ()}


def _relative(spec_file: str, path: str) -> str:
    return posixpath.normpath(posixpath.join(posixpath.dirname(spec_file), path))


def tree_folder(spec_file: str, item: LocalPath) -> str:
    """The folder of the tree that holds ``item`` of the spec ``spec_file``: the folder it names, or
    the one a file it names is in."""
    path = _relative(spec_file, item.from_spec)
    return path if item.kind.folder else posixpath.dirname(path) or "."


def local_folders(job: TrainingJob, spec_file: str) -> list[tuple[str, tuple[str, ...]]]:
    """The folders of the tree (and the files beside them) the job's request digests: what ``_mark``
    asks provider.gitops.shared about, so that a plan proves them all at once."""
    return [(tree_folder(spec_file, p), _PROVEN[p.kind]) for p in local_paths(job) if p.kind in _PROVEN]


def _mark(tree: Tree, folder: str, beside: tuple[str, ...] = ()) -> None:
    """Mark this side's copy of ``folder`` as the other side's when both hold it alike (provider.gitops.shared)."""
    key = tree.shared.key(folder, beside) if tree.shared is not None else None
    if key is not None:
        same(tree.root / posixpath.normpath(folder), key)


def built_image(job: TrainingJob, spec_file: str, tree: Tree) -> str | None:
    """``<built from CONTEXT: NAME:src-DIGEST>`` for a container built from source, else None: the
    name and tag the Pulumi program pushes the image as (provider.packaging.digest.image_tag)."""
    app = job.application
    named = {p.kind: p for p in local_paths(job)}
    item = named.get(LocalKind.BUILD_CONTEXT)
    if not isinstance(app, Container) or app.build is None or item is None:
        return None
    context = tree_folder(spec_file, item)
    local = tree.local_dir(context)
    if local.is_dir():
        _mark(tree, context, _PROVEN[item.kind])
        tag = image_tag(job.name, once("context", local, lambda: directory_digest(local)))
    else:
        tag = "missing"
    dockerfile = f", {app.build.dockerfile}" if app.build.dockerfile else ""
    return f"<built from {context}{dockerfile}: {tag}>"


def staged_packages(job: TrainingJob, spec_file: str, tree: Tree, stack: StackConfig) -> list[str] | None:
    """The job's package URIs as the stack would stage them (None: the job names no package)."""
    if not isinstance(job.application, PythonPackage):
        return None
    for item in local_paths(job):  # each as this tree has it: a package path, an extra package's folder
        folder = tree_folder(spec_file, item)
        tree.local_dir(folder)
        if item.kind in _PROVEN:
            _mark(tree, folder, _PROVEN[item.kind])
    spec_dir = tree.root / posixpath.dirname(spec_file)
    return planned_package_uris(job, spec_dir, tree.root, default_bucket=f"gs://{stack.bucket}") or None
