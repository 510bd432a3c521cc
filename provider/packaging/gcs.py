"""Stage packages in Cloud Storage (or the emulator's storage) with google-cloud-storage.

    stager = GcsStager(gcs_client(project))                              # Google Cloud
    stager = GcsStager(gcs_client(project, "http://127.0.0.1:PORT"))     # the trainjobs emulator

google-cloud-storage is imported only when a client is built. Uploads use
``if_generation_match=0``: staged URIs are content-addressed, so when another process wins the
race to upload the same URI, the object already holds the same bytes and that is success.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from provider.core.errors import FailedPrecondition, InvalidArgument, PermissionDenied, Unavailable


def gcs_client(project: str, api_endpoint: str | None = None, credentials: Any = None) -> Any:
    """A storage.Client; an ``http://`` endpoint (the emulator) gets anonymous credentials."""
    from google.cloud import storage

    options = {"api_endpoint": api_endpoint.rstrip("/")} if api_endpoint else None
    if credentials is None and api_endpoint and api_endpoint.startswith("http://"):
        from google.auth.credentials import AnonymousCredentials

        credentials = AnonymousCredentials()  # type: ignore[no-untyped-call]  # google-auth leaves it untyped
    return storage.Client(project=project, credentials=credentials, client_options=options)


def split_uri(uri: str) -> tuple[str, str]:
    if not uri.startswith("gs://"):
        raise InvalidArgument(f"{uri!r} is not a gs:// URI")
    bucket, _, name = uri[len("gs://"):].partition("/")
    if not bucket or not name:
        raise InvalidArgument(f"{uri!r} names no object (gs://BUCKET/PATH)")
    return bucket, name


class GcsStager:
    """The Stager protocol (exists, put) over a google-cloud-storage client."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def _blob(self, uri: str) -> Any:
        bucket, name = split_uri(uri)
        return self.client.bucket(bucket).blob(name)

    def exists(self, uri: str) -> bool:
        try:
            return bool(self._blob(uri).exists())
        except Exception as exc:
            raise _translate(exc, uri, "read") from exc

    def put(self, uri: str, file: Path) -> None:
        from google.api_core.exceptions import PreconditionFailed

        blob = self._blob(uri)
        content_type = "application/gzip" if uri.endswith((".tar.gz", ".tgz")) else None
        try:
            blob.upload_from_filename(str(file), content_type=content_type, if_generation_match=0)
        except PreconditionFailed:
            return  # another stager uploaded the same content-addressed object first
        except Exception as exc:
            raise _translate(exc, uri, "write") from exc


def _message(exc: Exception) -> str:
    """Cloud Storage's own message, without the URL and response dump the client adds around it."""
    response = getattr(exc, "response", None)
    try:
        return str(json.loads(response.text)["error"]["message"])  # type: ignore[union-attr]
    except (AttributeError, ValueError, KeyError, TypeError):
        return str(getattr(exc, "message", exc))


def _translate(exc: Exception, uri: str, action: str) -> Exception:
    from google.api_core import exceptions as gexc

    bucket = "gs://" + split_uri(uri)[0]
    if isinstance(exc, gexc.Forbidden | gexc.Unauthorized):
        role = "roles/storage.objectViewer" if action == "read" else "roles/storage.objectCreator (and objectViewer)"
        return PermissionDenied(f"permission denied to {action} {uri}: {_message(exc)}. The caller needs {role} on "
                                f"{bucket}")
    if isinstance(exc, gexc.NotFound):
        return FailedPrecondition(f"cannot {action} {uri}: the bucket {bucket} does not exist ({_message(exc)}). "
                                  "Create it first (pulumi up creates the team bucket)")
    if isinstance(exc, gexc.ServerError | ConnectionError) or type(exc).__module__.startswith("requests"):
        return Unavailable(f"Cloud Storage is unavailable to {action} {uri}: {exc}")
    return exc
