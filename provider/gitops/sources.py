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
from provider.spec.model import Container, PythonPackage, TrainingJob
from provider.stack.config import StackConfig


def _relative(spec_file: str, path: str) -> str:
    return posixpath.normpath(posixpath.join(posixpath.dirname(spec_file), path))


def local_folders(job: TrainingJob, spec_file: str) -> list[tuple[str, tuple[str, ...]]]:
    """The folders of the tree (and the files beside them) the job's request digests: what ``_mark``
    asks provider.gitops.shared about, so that a plan proves them all at once."""
    app = job.application
    if isinstance(app, Container) and app.build is not None:
        return [(_relative(spec_file, app.build.context), ())]
    if isinstance(app, PythonPackage) and app.source_path:
        return [(_relative(spec_file, app.source_path), BUILD_FILES)]  # a package's digest reads them too
    return []


def _mark(tree: Tree, folder: str, beside: tuple[str, ...] = ()) -> None:
    """Mark this side's copy of ``folder`` as the other side's when both hold it alike (provider.gitops.shared)."""
    key = tree.shared.key(folder, beside) if tree.shared is not None else None
    if key is not None:
        same(tree.root / posixpath.normpath(folder), key)


def built_image(job: TrainingJob, spec_file: str, tree: Tree) -> str | None:
    """``<built from CONTEXT: NAME:src-DIGEST>`` for a container built from source, else None: the
    name and tag the Pulumi program pushes the image as (provider.packaging.digest.image_tag)."""
    app = job.application
    if not isinstance(app, Container) or app.build is None:
        return None
    context = _relative(spec_file, app.build.context)
    local = tree.local_dir(context)
    if local.is_dir():
        _mark(tree, context)
        tag = image_tag(job.name, once("context", local, lambda: directory_digest(local)))
    else:
        tag = "missing"
    dockerfile = f", {app.build.dockerfile}" if app.build.dockerfile else ""
    return f"<built from {context}{dockerfile}: {tag}>"


def staged_packages(job: TrainingJob, spec_file: str, tree: Tree, stack: StackConfig) -> list[str] | None:
    """The job's package URIs as the stack would stage them (None: the job names no package)."""
    app = job.application
    if not isinstance(app, PythonPackage):
        return None
    if app.source_path:
        source = _relative(spec_file, app.source_path)
        tree.local_dir(source)
        _mark(tree, source, BUILD_FILES)
    for extra in app.extra_packages:  # a file: its folder holds it, as this tree has it
        tree.local_dir(posixpath.dirname(_relative(spec_file, extra)) or ".")
    spec_dir = tree.root / posixpath.dirname(spec_file)
    return planned_package_uris(job, spec_dir, tree.root, default_bucket=f"gs://{stack.bucket}") or None
