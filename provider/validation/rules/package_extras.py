"""``pythonPackage.requirements`` and ``extraPackages``: what packaging will stage, checked first.

Each requirement must be one PEP 508 requirement, as ``install_requires`` takes it (the same
check as a requirements.txt's lines: provider.packaging.requirements); each extra package a
regular archive file inside the spec's repository (provider.packaging.extras). Both are staged
as package URIs, so they need somewhere to be uploaded, as a package path does.
"""

from __future__ import annotations

from collections.abc import Iterator

from provider.spec.local_paths import LocalKind, local_paths
from provider.spec.model import PythonPackage, TrainingJob, path_of
from provider.validation.rules.base import Context, Finding, rule

_REQUIREMENT = ("one PEP 508 requirement per item: a name with extras, version specifiers and markers, or "
                "name @ URL, such as 'pandas>=2.0' (pip options such as -r or --index-url cannot be carried)")


@rule
def package_requirements(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """Each item of ``requirements`` is a requirement ``install_requires`` takes."""
    app = job.application
    if not isinstance(app, PythonPackage) or not app.requirements:
        return
    from provider.packaging.requirements import requirement_problem

    where = path_of(app, "requirements")
    for i, line in enumerate(app.requirements):
        problem = requirement_problem(line.strip()) if line.strip() else f"{line!r} is empty"
        if problem is not None:
            yield Finding(problem, where + (i,) if where else where, "package.requirements", None,
                          allowed=_REQUIREMENT)


@rule
def extra_package_files(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """Each item of ``extraPackages`` is an archive file inside the repository, relative to the spec."""
    app = job.application
    if not isinstance(app, PythonPackage) or not app.extra_packages or ctx.spec_dir is None:
        return
    from provider.document.boundary import repository_root
    from provider.packaging.extras import ExtraProblem, check_extra

    root = repository_root(ctx.spec_dir)
    for item in local_paths(job):  # the spec's one list of local paths (provider.spec.local_paths)
        if item.kind is LocalKind.EXTRA_PACKAGE:
            found = check_extra(ctx.spec_dir, item.written, root)
            if isinstance(found, ExtraProblem):
                yield Finding(found.message, item.where, found.rule.value, None, allowed=found.allowed)


@rule
def extras_staging(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """Requirements and extra packages are uploaded as packages: they need a job dir or a staging bucket."""
    app = job.application
    if not isinstance(app, PythonPackage) or app.source_path is not None:
        return  # a package path says the same already (rule package.staging of rules/job.py)
    if not (app.requirements or app.extra_packages):
        return
    if job.output is None and job.staging_bucket is None and ctx.staging_bucket is None:
        key = "requirements" if app.requirements else "extra_packages"
        yield Finding("requirements and extraPackages are uploaded as packages, so they need a job dir or a staging "
                      "bucket", path_of(app, key), "package.staging", None,
                      allowed="jobDir (or baseOutputDirectory) or stagingBucket, or a stack that provides the team "
                      "bucket")
