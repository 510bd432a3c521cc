"""What the Vertex AI backend reads for the seam's other calls: the objects of an output directory in
Cloud Storage, and the jobs the API lists that cannot be read (its logs: provider.backends.vertex.logs).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from provider.backends.base import InvalidArgument, JobStatus, StoredObject, UnreadableJob
from provider.backends.vertex.status import job_status

Json = dict[str, Any]


def _split(uri: str) -> tuple[str, str]:
    if not uri.startswith("gs://"):
        raise InvalidArgument(f"the output directory {uri!r} is not a gs:// URI")
    bucket, _, prefix = uri[len("gs://"):].partition("/")
    return bucket, prefix.rstrip("/") + "/" if prefix else ""


def objects(client: Any, uri: str) -> list[StoredObject]:
    """The objects under ``uri`` in Cloud Storage (``client``: google-cloud-storage's), sorted by URI."""
    bucket, prefix = _split(uri)
    out = [StoredObject(f"gs://{bucket}/{blob.name}", int(blob.size or 0))
           for blob in client.list_blobs(bucket, prefix=prefix)
           if blob.name[len(prefix):] and not blob.name.endswith("/")]
    return sorted(out, key=lambda o: o.uri)


def download(client: Any, stored: StoredObject, target: Path) -> None:
    bucket, name = stored.uri[len("gs://"):].split("/", 1)
    client.bucket(bucket).blob(name).download_to_filename(str(target))


def read_jobs(kind: str, jobs: list[Json]) -> tuple[list[JobStatus], list[UnreadableJob]]:
    """The API's jobs of one kind as statuses; one that cannot be read (a name that is no job's resource
    name, fields of the wrong type) is listed apart with why, and does not hide the others."""
    out: list[JobStatus] = []
    broken: list[UnreadableJob] = []
    for job in jobs:
        try:
            out.append(job_status(kind, job))
        except (KeyError, ValueError, TypeError, AttributeError) as exc:
            name = str(job.get("name") or "") if isinstance(job, dict) else ""
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            broken.append(UnreadableJob(name.rsplit("/", 1)[-1] or "?", name or "(no name)",
                                        f"Vertex AI returned a {kind} trainjobs cannot read ({reason})"))
    return out, broken
