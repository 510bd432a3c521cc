"""From a validated spec to a submission: stage its package, build its exact request, label it.

Shared by ``trainjobs run``, the Pulumi provider and the emulator's tests, so a spec is
submitted the same way whichever path it takes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from provider.backends.base import Submission
from provider.core.labels import job_labels
from provider.core.vertex_request import VertexRequest
from provider.packaging import UploadKind, checked_source, package_uris, staging_base, uploads
from provider.packaging.stage import Stager, stage_upload
from provider.spec.model import Container, PythonPackage, TrainingJob
from provider.submission.request import build_request


def labels_for(job: TrainingJob, stack: str | None = None, identity: str | None = None,
               extra: dict[str, str] | None = None) -> dict[str, str]:
    """The labels of ``job`` (provider.core.labels owns the keys and the value rules)."""
    return job_labels(job.name, stack=stack, identity=identity, extra=extra)


def prepare(
    job: TrainingJob,
    spec_dir: Path,
    project: str,
    stager: Stager | None = None,
    default_bucket: str | None = None,
    labels: dict[str, str] | None = None,
    image_uri: str | None = None,
    check: Callable[[VertexRequest], None] | None = None,
) -> VertexRequest:
    """The request for ``job``; its local package, extra packages and requirements are staged
    when a stager is given (provider.packaging.uploads lists them).

    Every refusal comes before anything is staged: this function's own, then ``check``'s (the
    backend's, e.g. LocalBackend.check: too few GPUs), so a refused submit writes nothing."""
    source = checked_source(job, spec_dir)  # the repository boundary, again: PackageError (a BackendError)
    staged = uploads(job, spec_dir, default_bucket)
    uris = package_uris(job, spec_dir, default_bucket, staged=staged) or None
    if source is not None and (not any(u.kind is UploadKind.SOURCE for u in staged) or not source.is_dir()):
        raise ValueError(f"{job.name}: the package path {source} cannot be staged (it needs a job dir or a "
                         "staging bucket, and must be a directory)")
    app = job.application
    if isinstance(app, PythonPackage) and (app.requirements or app.extra_packages) and staging_base(
            job, default_bucket) is None:
        raise ValueError(f"{job.name}: requirements and extraPackages are staged as packages, which needs a job "
                         "dir or a staging bucket")
    if isinstance(job.application, Container) and job.application.build is not None and image_uri is None:
        raise ValueError(f"{job.name}: the image is built from {job.application.build.context}; build and push it "
                         "first (pulumi up does), or name an image")
    request = build_request(job, project, labels=labels, package_uris=uris, image_uri=image_uri)
    if check is not None:
        check(request)
    if stager is not None:
        for upload in staged:
            stage_upload(upload, stager)
    return request


def submission(job: TrainingJob, request: VertexRequest, cpu_only: bool = False) -> Submission:
    return Submission(request=request, max_wait_seconds=job.scheduling.max_wait_seconds, cpu_only=cpu_only)
