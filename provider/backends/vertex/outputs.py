"""What the Vertex AI backend reads for the seam's incremental calls: Cloud Logging from a cursor, the
objects of an output directory in Cloud Storage, and the jobs the API lists that cannot be read.

A log cursor is JSON: ``{"after": <timestamp of the newest entry read>, "seen": [<insertIds at that
timestamp>]}``. Entries are listed from that timestamp on (Cloud Logging's filter is ``>=``, so an
entry written in the same instant is not lost) and the ones already seen are skipped, as
``gcloud ai custom-jobs stream-logs`` does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from provider.backends.base import InvalidArgument, JobStatus, LogChunk, StoredObject, UnreadableJob
from provider.backends.vertex.status import job_status

if TYPE_CHECKING:
    from provider.backends.vertex.logs import CloudLogs

Json = dict[str, Any]


def _cursor(cursor: str) -> tuple[str | None, set[str]]:
    if not cursor:
        return None, set()
    try:
        data = json.loads(cursor)
        after, seen = data["after"], data["seen"]
    except (ValueError, KeyError, TypeError):
        after, seen = None, None
    if not isinstance(after, str) or not isinstance(seen, list):
        raise InvalidArgument(f"{cursor[:80]!r} is not a cursor of Vertex AI's logs: pass the cursor the last "
                              "read returned, or none to read from the start")
    return after, {str(s) for s in seen}


def read_logs(logs: CloudLogs, job_id: str, cursor: str, replica: str | None) -> LogChunk:
    """The entries of the job's logs past the cursor, as ``[replica] message`` lines."""
    from provider.backends.vertex.logs import entry_key, entry_lines, entry_time

    after, seen = _cursor(cursor)
    lines: list[str] = []
    for entry in logs.entries(job_id, replica, after):
        key, stamp = entry_key(entry), entry_time(entry)
        if key in seen:
            continue
        if stamp and stamp != after:
            after, seen = stamp, set()
        seen.add(key)
        lines.extend(line.text() for line in entry_lines(entry))
    return LogChunk(tuple(lines), json.dumps({"after": after or "", "seen": sorted(seen)}) if after else cursor)


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
