"""Application, outputs, scheduling and limits: the rules of seeds 000 and 003."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from provider.core.labels import ALLOWED as LABEL_RULE
from provider.core.labels import valid_key, valid_value
from provider.core.problem import Severity
from provider.spec.model import PythonPackage, TrainingJob, path_of
from provider.validation.rules.base import (
    JOB_RULES,
    SEED_000,
    SEED_003,
    Context,
    Finding,
    Target,
    join,
    rule,
)
from provider.validation.rules.containers import named_images, offered_python

_SPACE = re.compile(r"\s")  # what str.isspace() counts as whitespace
_PLACEHOLDER = re.compile(r"\{[A-Za-z_-]+\}|<[A-Za-z_-]+>|\$\{?[A-Z_]+\}?")


def _bucket(uri: str) -> str:
    return uri[len("gs://"):].split("/", 1)[0] if uri.startswith("gs://") else ""


@rule
def max_wait(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    minimum = ctx.catalog.limits()["max_wait"]["min_seconds"]
    wait = job.scheduling.max_wait_seconds
    if job.scheduling.max_wait_is_vertex:
        return  # Vertex AI's maxWaitDuration: rules/vertex_fields.py checks it
    if wait is not None and wait < minimum:
        yield Finding(
            f"maxWaitTime is {wait:g}s, below the minimum",
            path_of(job.scheduling, "max_wait"),
            "scheduling.max_wait",
            SEED_003 + " (scheduling.maxWaitTime: at least 1800s)",
            allowed=f"at least {minimum}s (30 minutes), or no max wait",
        )
    if wait is not None and ctx.target is not Target.LOCAL and job.scheduling.strategy != "FLEX_START":
        yield Finding(
            f"maxWaitTime {wait:g}s is not sent to Vertex AI: Vertex AI enforces a max wait only for FLEX_START jobs "
            "(scheduling.maxWaitDuration), so there this job may wait longer; the local backend enforces it",
            path_of(job.scheduling, "max_wait"),
            "scheduling.max_wait_vertex",
            JOB_RULES + " (vx.scheduling.other)",
            allowed="strategy FLEX_START to make Vertex AI enforce it",
            severity=Severity.WARNING,
        )


@rule
def strategy(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    deprecated = ctx.catalog.limits()["scheduling_strategies"]["vertex_deprecated"]
    if job.scheduling.strategy in deprecated:
        yield Finding(
            f"scheduling strategy {job.scheduling.strategy} is deprecated on Vertex AI",
            path_of(job.scheduling, "strategy"),
            "scheduling.strategy",
            JOB_RULES + " (vx.scheduling.other)",
            allowed="STANDARD, SPOT or FLEX_START",
            severity=Severity.WARNING,
        )


def _default_image(job: TrainingJob, app: PythonPackage, ctx: Context) -> Iterator[Finding]:
    """No runtimeVersion and no image (seeds 001 and 003): the catalog's default container runs it."""
    default = ctx.catalog.runtimes()["default_without_runtime"]
    gpu_pools = [p for p in job.pools if p.gpus and not (p.override and p.override.image_uri)]
    cpu_pools = [p for p in job.pools if not p.gpus and not (p.override and p.override.image_uri)]
    builds = ([f"{default['cpu']} (pools without GPUs)"] if cpu_pools else []) + (
        [f"{default['gpu']} (pools with GPUs)"] if gpu_pools else [])
    if not builds:
        return
    end = default.get("end_of_availability")
    served = ctx.catalog.default_container_served(ctx.today)
    message = "no runtimeVersion or executorImage: the package runs on the prebuilt container " + join(builds, "and")
    if not served:
        message += f", which Vertex AI stopped serving on {end}"
    yield Finding(
        message,
        path_of(app),
        "package.default_image",
        "tools/catalog/curated/prebuilt_containers.json (default_without_runtime)",
        allowed="executorImage (a Vertex AI prebuilt training container) or runtimeVersion with pythonVersion, "
        "to choose the container yourself",
        severity=Severity.WARNING if served else ctx.offering_severity,
    )


def _version_key(v: object) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in str(v).split("."))
    except ValueError:
        return (0,)


def _without_python(runtime: str, app: PythonPackage, runtimes: dict[str, Any]) -> Finding:
    """No pythonVersion: before 2020-01-13 AI Platform read that as Python 2.7, which a 1.x runtime
    offered and no Vertex AI container runs; name the runtime and the Python it implies."""
    source = JOB_RULES + " (aip.runtime_python_required_2020: both are required since 2020-01-13; before, " \
        "pythonVersion defaulted to 2.7)"
    ceiling = runtimes["python_versions"].get("2.7", {}).get("max_runtime")
    if ceiling and _version_key(runtime) <= _version_key(ceiling):
        return Finding(
            f"runtimeVersion {runtime!r} without pythonVersion means Python 2.7 (AI Platform's default for runtimes "
            f"up to {ceiling}), and no Vertex AI prebuilt container runs Python 2.7",
            path_of(app, "runtime_version"), "runtime.python", source,
            allowed="pythonVersion '3.7' with runtimeVersion '1.15' (or an executorImage of your choice)")
    return Finding(f"runtimeVersion {runtime!r} is set without pythonVersion", path_of(app, "runtime_version"),
                   "runtime.python", source, allowed="pythonVersion '3.7' (the only Python of runtimes after 1.15)")


@rule
def runtime_and_python(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """runtimeVersion and pythonVersion are compatible (seed 003), and map to a prebuilt container."""
    app = job.application
    if not isinstance(app, PythonPackage):
        return
    runtimes = ctx.catalog.runtimes()
    if app.executor_image_uri is None and app.runtime_version is None:
        yield from _default_image(job, app, ctx)
    if app.runtime_version is None:
        if app.python_version is not None:
            yield Finding("pythonVersion is set without runtimeVersion", path_of(app, "python_version"),
                          "runtime.python", JOB_RULES + " (aip.runtime_python_required_2020)",
                          allowed="runtimeVersion and pythonVersion together")
        return
    runtime = app.runtime_version
    known = runtimes["runtime_versions"]["verified"] + runtimes["runtime_versions"]["unverified"]
    if runtime not in known:
        yield Finding(f"runtimeVersion {runtime!r} is not an AI Platform runtime version", path_of(app, "runtime_version"),
                      "runtime.version", JOB_RULES + " (ai_platform_runtime_versions)",
                      allowed=join(sorted(known, key=_version_key)))
        return
    if app.python_version is None:
        yield _without_python(runtime, app, runtimes)
    else:
        rules = runtimes["python_versions"].get(app.python_version)
        if rules is None:
            yield Finding(f"pythonVersion {app.python_version!r} was never offered by AI Platform Training",
                          path_of(app, "python_version"), "runtime.python", SEED_003,
                          allowed=join(sorted(runtimes["python_versions"])))
        else:
            lo, hi = rules.get("min_runtime"), rules.get("max_runtime")
            if not offered_python(runtime, app.python_version, runtimes):
                span = f"runtime {lo} or later" if lo and not hi else f"runtime {hi} or earlier" if hi and not lo else f"runtimes {lo} to {hi}"
                yield Finding(
                    f"Python {app.python_version} is not available with runtime {runtime}",
                    path_of(app, "python_version"),
                    "runtime.python",
                    SEED_003 + " (Python 3.7 with runtime 1.15 and later; 3.5 with 1.4 to 1.14)",
                    allowed=f"Python {app.python_version} needs {span}",
                )
    if app.executor_image_uri is None and runtime not in runtimes["runtime_to_container"]["map"]:
        yield Finding(
            f"no Vertex AI prebuilt training container matches runtime {runtime}",
            path_of(app, "runtime_version"),
            "runtime.container",
            "tools/catalog/curated/prebuilt_containers.json",
            allowed="executorImage, or a runtime with a container: "
            + join(sorted(runtimes["runtime_to_container"]["map"], key=_version_key)),
            severity=ctx.offering_severity,
        )


@rule
def package_staging(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """A local package needs somewhere to be uploaded: jobDir or a staging bucket (gcloud rule)."""
    app = job.application
    if not isinstance(app, PythonPackage) or app.source_path is None:
        return
    if job.output is None and job.staging_bucket is None and ctx.staging_bucket is None:
        yield Finding(
            "a package path needs a job dir or a staging bucket to upload the package to",
            path_of(app, "source_path"),
            "package.staging",
            JOB_RULES + " (aip.gcloud.staging: '--staging-bucket or --job-dir must be given')",
            allowed="jobDir (or baseOutputDirectory) or stagingBucket, or a stack that provides the team bucket",
        )


def _placeholder(image: str) -> str | None:
    """What in an image URI looks like a template left unfilled: ``{...}``, ``<...>``, ``$VAR``, a space."""
    m = _PLACEHOLDER.search(image)
    if m:
        return m.group(0)
    for ch in ("{", "}", "<", ">", "[", "]"):  # [project-id]: a documentation's placeholder
        if ch in image:
            return repr(ch)
    if _SPACE.search(image):
        return "a space"
    return _upper_case(image)


def _upper_case(image: str) -> str | None:
    """An upper-case repository path (``TRAIN_IMAGE_PLACEHOLDER``, sed's target): no image reference has one.

    The registry host is case-insensitive and a tag may hold capitals; the path between them may not
    (docker reference grammar: path components are ``[a-z0-9]`` with separators). ``placeholders``
    refuses a bare name so written and warns of a path (``gcr.io/PROJECT_ID/app``, a documentation's
    example, which the corpora convert as written).
    """
    name = image.split("@", 1)[0]
    if name.rfind(":") > name.rfind("/"):
        name = name[: name.rfind(":")]  # the tag
    parts = name.split("/")
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        parts = parts[1:]  # the registry host
    upper = next((part for part in parts if part != part.lower()), None)
    return None if upper is None else f"upper case ({upper!r}: a repository path is lower case)"


@rule
def placeholders(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """An image URI with braces, brackets, spaces or an upper-case path is a template left unfilled (seed 004's
    gcr.io/{YOUR-PROJECT-ID}, a README's us-docker.pkg.dev/[project-id]/..., a sed target TRAIN_IMAGE_PLACEHOLDER)."""
    seen: set[str] = set()
    for image, where in named_images(job):
        found = _placeholder(image)
        if found is None or image in seen:
            continue
        seen.add(image)
        path_case = found.startswith("upper case") and "/" in image
        yield Finding(
            f"the image {image!r} looks like an unfilled placeholder: it contains {found}",
            where,
            "image.placeholder",
            "docker image reference grammar (no braces, brackets or spaces; a lower-case path); seed 004 writes "
            "gcr.io/{YOUR-PROJECT-ID}/...",
            allowed="a real image URI, such as gcr.io/my-project/multiworker:cassava (put your project ID in place "
            "of the placeholder)",
            severity=Severity.WARNING if path_case else Severity.ERROR,
        )
    account = job.service_account or ""
    found = next((repr(ch) for ch in "[]{}<>" if ch in account), None) or (
        m.group(0) if (m := _PLACEHOLDER.search(account)) else None)
    if found:  # a README's ad-placement-service-account@[project-id].iam.gserviceaccount.com
        yield Finding(f"the service account {account!r} looks like an unfilled placeholder: it contains {found}",
                      path_of(job, "service_account"), "service_account.placeholder",
                      "IAM service account emails: NAME@PROJECT_ID.iam.gserviceaccount.com (no brackets or braces)",
                      allowed="a real service account email, such as trainer@my-project.iam.gserviceaccount.com")


@rule
def env_and_args(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    limits = ctx.catalog.limits()
    own = [p.override.env for p in job.pools if p.override is not None and p.override.env]
    for env in (job.env, *own):  # the job's env, and each pool's own
        names: set[str] = set()
        for var in env:
            if var.name in names:
                yield Finding(f"environment variable {var.name} is set twice", path_of(var), "env.duplicate", None,
                              allowed="each name once")
            names.add(var.name)
    if len(job.env) > limits["env"]["max"]:
        yield Finding(f"{len(job.env)} environment variables", path_of(job, "env"), "env.max",
                      JOB_RULES + " (vx.env.max)", allowed=f"at most {limits['env']['max']}")
    app_args = job.application.args
    total = sum(len(a) for a in app_args + job.user_args)
    if total > limits["args"]["max_total_chars"]:
        yield Finding(f"the arguments add up to {total:,} characters", path_of(job, "args"), "args.max",
                      JOB_RULES + " (vx.args.total_len)", allowed=f"at most {limits['args']['max_total_chars']:,}")


@rule
def bucket_region(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """Run the job in the region of its bucket (seeds 000 and 003); otherwise it may be slower."""
    if job.region is None or not ctx.bucket_regions:
        return
    known = dict(ctx.bucket_regions)
    uris = []
    if job.output:
        uris.append((job.output.uri, path_of(job.output)))
    if job.staging_bucket:
        uris.append((job.staging_bucket, path_of(job, "staging_bucket")))
    if isinstance(job.application, PythonPackage):
        uris += [(u, path_of(job.application, "package_uris")) for u in job.application.package_uris]
    for uri, where in uris:
        bucket = _bucket(uri)
        region = known.get(bucket)
        if region and region != job.region:
            yield Finding(
                f"bucket {bucket} is in {region}, the job runs in {job.region}",
                where,
                "bucket.region",
                SEED_000 + "; " + SEED_003 + " (run the job in the region of the bucket with its data)",
                allowed=f"region {region}, or a bucket in {job.region}",
                severity=Severity.WARNING,
            )
            return


@rule
def labels_unicode(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    """International characters in labels must be lowercase letters (Unicode Ll/Lo) or digits
    (provider.core.labels: the catalog's rule; an ASCII-only label is the schema's to check)."""
    for key, value in job.labels:
        if key.isascii() and value.isascii():
            continue
        if not valid_key(key) or not valid_value(value):
            yield Finding(
                f"label {key}={value} uses characters that are not lowercase letters or digits",
                path_of(job, "labels"),
                "labels.unicode",
                JOB_RULES + " (aip.labels: international characters are allowed)",
                allowed=LABEL_RULE,
            )
