"""Cloud Storage arguments as gcloud parses them: ``--job-dir`` and ``--staging-bucket``.

gcloud (api_lib/storage/storage_util.py) checks the bucket name (3 to 63 characters, or up to 222
with dots and 63 per component; lowercase letters, digits, ``-``, ``_`` and ``.``; a letter or
digit at each end; not an IP address) and sends ``--job-dir`` as ``gs://BUCKET/NAME``, so
``gs://bucket`` becomes ``gs://bucket/``.
"""

from __future__ import annotations

import string

from provider.gcloud.command import GcloudError

_LENGTH = ("Bucket names must contain 3 to 63 characters. Names containing dots can contain up to 222 "
           "characters, but each dot-separated component can be no longer than 63 characters.")
_CHARS = "Bucket names must contain only lowercase letters, numbers, dashes (-), underscores (_), and dots (.)."
_ENDS = "Bucket names must start and end with a number or letter."
_IP = "Bucket names cannot be represented as an IP address in dotted-decimal notation (for example, 192.168.5.4)."


def bucket_problem(name: str) -> str | None:
    """Why gcloud refuses this bucket name, or None."""
    parts = name.split(".")
    if not 3 <= len(name) <= 222 or any(len(p) > 63 for p in parts):
        return _LENGTH
    if set(name) - set(string.ascii_lowercase + string.digits + "-_."):
        return _CHARS
    if set(name[0] + name[-1]) - set(string.ascii_lowercase + string.digits):
        return _ENDS
    if len(parts) == 4 and "".join(parts).isdigit():
        return _IP
    return None


def _split(flag: str, url: str) -> tuple[str, str]:
    if not url.startswith("gs://"):
        raise GcloudError(f"argument {flag}: {url!r} is not a Cloud Storage path: it must start with gs://")
    bucket, _, name = url[5:].partition("/")
    problem = bucket_problem(bucket)
    if problem is not None:
        raise GcloudError(f"argument {flag}: Invalid bucket name [{bucket}]: {problem}")
    return bucket, name


def job_dir(url: str) -> str:
    bucket, name = _split("--job-dir", url)
    return f"gs://{bucket}/{name}"


def staging_bucket(url: str) -> str:
    bucket, name = _split("--staging-bucket", url)
    if name.strip("/"):
        raise GcloudError(f"argument --staging-bucket: Must be a valid Google Cloud Storage bucket of the form "
                          f"[gs://somebucket], not a path ({url})")
    return f"gs://{bucket}"
