"""Cloud Storage paths a spec names: jobDir, baseOutputDirectory, stagingBucket, package URIs.

The JSON Schema only checks the ``gs://`` prefix. What Cloud Storage forbids, or what would
make a path mean something else, is checked here (the rules, with their sources, are
``gcs.bucket_name`` and ``gcs.object_name`` in tools/catalog/reference/job_rules.json):

* an empty bucket, or characters a bucket name cannot hold: an error;
* a bucket name Cloud Storage would refuse for being too long, its ends, an IP address form
  or a ``goog`` prefix: a warning. Names shorter than 3 characters are not reported at all:
  Google's own examples use them as placeholders (seed 004's ``gs://my/...``);
* ``.`` or ``..`` segments, NUL, CR, LF and other control characters, names over 1024 bytes,
  and the ``.well-known/acme-challenge/`` prefix in the object part: an error. The local
  backend and the emulator map object names to files, and a ``..`` must never climb out.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator
from typing import Any

from provider.core.problem import Severity
from provider.document.excerpt import quoted
from provider.spec.model import DocPath, PythonPackage, TrainingJob, path_of
from provider.validation.rules.base import JOB_RULES, Context, Finding, rule

BUCKET_SOURCE = JOB_RULES + " (gcs.bucket_name: cloud.google.com/storage/docs/naming)"
OBJECT_SOURCE = JOB_RULES + " (gcs.object_name: cloud.google.com/storage/docs/objects)"
_BUCKET_CHARS = re.compile(r"[a-z0-9_.-]+\Z")
_DIGITS_AND_DOTS = re.compile(r"[0-9.]+\Z")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # C0 controls, DEL and C1 controls


def _uris(job: TrainingJob) -> list[tuple[str, str, DocPath]]:
    """(what, uri, where) of every gs:// location of the job."""
    out = []
    if job.output is not None:
        out.append(("the output directory", job.output.uri, path_of(job.output)))
    if job.staging_bucket:
        out.append(("the staging bucket", job.staging_bucket, path_of(job, "staging_bucket")))
    app = job.application
    if isinstance(app, PythonPackage):
        where = path_of(app, "package_uris")
        out += [("a package URI", uri, where + (i,) if where else where) for i, uri in enumerate(app.package_uris)]
    return [(what, uri, where) for what, uri, where in out if uri.startswith("gs://")]


def bucket_problem(bucket: str, rules: dict[str, Any]) -> tuple[str, Severity] | None:
    """Why Cloud Storage would not have this bucket name, and how sure that is."""
    if not bucket:
        return "names no bucket", Severity.ERROR
    if not _BUCKET_CHARS.match(bucket):
        return "has characters a bucket name cannot hold", Severity.ERROR
    limit = rules["max_length_with_dots"] if "." in bucket else rules["max_length_without_dots"]
    if len(bucket) > limit or any(len(c) > rules["max_component_length"] for c in bucket.split(".")):
        return f"is {len(bucket)} characters long", Severity.WARNING
    if not (bucket[0].isalnum() and bucket[-1].isalnum()):
        return "does not start and end with a letter or digit", Severity.WARNING
    if bucket.startswith(rules["forbidden_prefix"]) or rules["forbidden_substring"] in bucket:
        return "begins with 'goog' or contains 'google'", Severity.WARNING
    if not _DIGITS_AND_DOTS.match(bucket):  # an IPv4 address is nothing else: no exception to raise
        return None
    try:
        ipaddress.IPv4Address(bucket)
        return "is an IP address", Severity.WARNING
    except ValueError:
        return None


def object_problem(name: str, rules: dict[str, Any]) -> str | None:
    """Why this object name (or prefix) is refused, or None."""
    segments = name.split("/")
    if any(s in rules["forbidden_names"] for s in segments):
        return "has a '.' or '..' segment"
    if _CONTROL.search(name):
        return "holds a control character (NUL, CR, LF, ...)"
    if len(name.encode("utf-8", "surrogatepass")) > rules["max_bytes"]:
        return f"is longer than {rules['max_bytes']} bytes"
    if name.startswith(rules["forbidden_prefix"]):
        return f"starts with {rules['forbidden_prefix']}"
    return None


@rule
def gcs_paths(job: TrainingJob, ctx: Context) -> Iterator[Finding]:
    gcs = ctx.catalog.limits()["gcs"]
    for what, uri, where in _uris(job):
        bucket, _, name = uri[len("gs://"):].partition("/")
        found = bucket_problem(bucket, gcs["bucket"])
        if found is not None:
            why, severity = found
            yield Finding(f"{what} {quoted(uri, 80)}: the bucket {quoted(bucket)} {why}", where, "gcs.bucket",
                          BUCKET_SOURCE, severity=severity,
                          allowed="gs://BUCKET/PATH, BUCKET of 3-63 lowercase letters, digits, '-', '_' and '.', "
                          "starting and ending with a letter or digit")
        problem = object_problem(name, gcs["object"])
        if problem is not None:
            yield Finding(f"{what} {quoted(uri, 80)}: the path after the bucket {problem}", where, "gcs.object",
                          OBJECT_SOURCE,
                          allowed="a path of at most 1024 bytes without '.' or '..' segments and without control "
                          "characters")
