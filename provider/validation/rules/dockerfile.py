"""A spec that builds its image is judged by its Dockerfile's base: a ``FROM`` of a Vertex AI
prebuilt training container gets the verdict a named one gets (containers.py ``judge``), at the
Dockerfile's own file and line.

The Dockerfile is read only where it resolves inside the spec's repository (the boundary every
local path of a spec keeps, provider.document.boundary), and at most ``MAX_BYTES`` of it; one
outside is refused by name and never read. Messages name the FROM as written and the image it
became; they never quote anything else of the file. dockerfile_from.py says what is read and what
is not judged.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from provider.core.problem import Severity
from provider.document.boundary import inside, repository_root, resolve
from provider.document.excerpt import clip
from provider.spec.model import Container, ContainerBuild, DocPath, TrainingJob, path_of
from provider.validation.rules.base import Context, Finding, rule
from provider.validation.rules.containers import judge, prebuilt_name
from provider.validation.rules.dockerfile_from import base_images

MAX_BYTES = 1 << 20  # a Dockerfile is a few kilobytes; a larger file is not read


def _where(build: ContainerBuild) -> DocPath:
    return path_of(build, "dockerfile") if build.dockerfile else path_of(build, "context")


def _read(build: ContainerBuild, ctx: Context) -> tuple[Path | None, Finding | None]:
    """The Dockerfile to read, or a finding that says why it is not read (None, None: nothing to say,
    the missing context or Dockerfile is rules/paths.py's)."""
    assert ctx.spec_dir is not None
    name = build.dockerfile or "Dockerfile"
    target = resolve(ctx.spec_dir / build.context / name)
    if target.path is None or not target.path.is_file():
        return None, None
    root = repository_root(ctx.spec_dir)
    if not inside(target.path, root):
        return None, Finding(
            f"the Dockerfile {clip(name, 120)} resolves to {target.path}, outside the repository {root}",
            _where(build), "path.boundary", None, allowed="a Dockerfile inside the repository that holds the spec",
            hint="trainjobs reads, packages and uploads only files of the spec's own repository")
    return target.path, None


def _text(path: Path, build: ContainerBuild) -> tuple[str | None, Finding | None]:
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except OSError as exc:
        return None, Finding(f"the Dockerfile {path} cannot be read: {exc.strerror or exc}", _where(build),
                             "dockerfile.read", None, allowed="a readable Dockerfile", severity=Severity.WARNING)
    if len(raw) > MAX_BYTES:
        return None, Finding(f"the Dockerfile {path} is over {MAX_BYTES // 2**20} MiB: its FROM images are not "
                             "checked against the prebuilt containers' dates", _where(build), "dockerfile.read",
                             None, allowed=f"a Dockerfile of at most {MAX_BYTES // 2**20} MiB",
                             severity=Severity.WARNING)
    return raw.decode("utf-8", errors="replace"), None


@rule
def dockerfile_base(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """Each FROM of the stages the built image needs, judged as a named prebuilt container."""
    app = job.application
    if ctx.spec_dir is None or not isinstance(app, Container) or app.build is None:
        return
    build = app.build
    path, refused = _read(build, ctx)
    if refused is not None:
        yield refused
    if path is None:
        return
    text, unread = _text(path, build)
    if unread is not None:
        yield unread
    if text is None:
        return
    shown = os.path.normpath(os.path.join(build.context, build.dockerfile or "Dockerfile"))
    for base in base_images(text):
        name = prebuilt_name(base.image) if base.image else None
        if name is None:
            continue
        became = "" if base.written == base.image else f" (with its ARG defaults: {clip(base.image or '', 160)})"
        said = f"the Dockerfile builds FROM {clip(base.written, 160)}{became}: "
        yield from judge(name, _where(build), ctx, said=said, kind="dockerfile", file=shown, line=base.line)
