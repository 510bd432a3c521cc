"""The part of the Cloud Storage JSON API that google-cloud-storage needs to stage a package.

``gs://BUCKET/OBJECT`` is the file ``<storage root>/BUCKET/OBJECT``: the same storage the local
backend reads packages from and writes job outputs to. A bucket is a directory of the root.

* buckets: get, create (``POST /storage/v1/b``), list objects (``prefix``, ``delimiter``)
* objects: metadata get, delete, download (``alt=media``, also under ``/download``, with Range)
* uploads to ``/upload/storage/v1/b/BUCKET/o``: ``uploadType=media``, ``multipart`` and
  ``resumable`` (with chunks), checking the CRC32C and MD5 the client sends, and
  ``ifGenerationMatch`` (0: only if the object does not exist yet)

An object's generation is its file's modification time in nanoseconds; its content type is
guessed from its name. There are no ACLs, versions or custom metadata.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import mimetypes
import os
import re
import tempfile
import threading
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

from provider.backends.local.paths import Storage, StorageError
from provider.core.record import Record
from provider.emulator.errors import ApiError

Json = dict[str, Any]

_BUCKET = re.compile(r"^[a-z0-9][-_.a-z0-9]{1,61}[a-z0-9]$")


class Answer(Record):
    """What the HTTP layer writes: a status, headers, and a JSON object or raw bytes."""

    status: int = 200
    json: Json | None = None
    data: bytes | None = None
    headers: tuple[tuple[str, str], ...] = ()


def _error(http: int, reason: str, message: str) -> ApiError:
    status = {400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 409: "ALREADY_EXISTS", 412: "FAILED_PRECONDITION",
              416: "OUT_OF_RANGE"}.get(http, "UNKNOWN")
    return ApiError(status, message, http=http, reason=reason)


def _rfc3339(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _crc32c(data: bytes) -> bytes:
    import google_crc32c

    return int(google_crc32c.value(data)).to_bytes(4, "big")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


class _Upload(Record, frozen=False):
    """A resumable upload in progress: the object it makes, its metadata, its spool file, bytes received."""

    bucket: str
    name: str
    metadata: Json
    file: Path
    received: int = 0


class StorageService:
    def __init__(self, root: Path, base_url: str = "") -> None:
        self.storage = Storage(root)
        self.root = root
        self.base_url = base_url  # http://127.0.0.1:PORT, for selfLink and resumable session URLs
        self._uploads: dict[str, _Upload] = {}
        self._lock = threading.Lock()
        self._tmp = root / ".uploads"

    # -- paths ----------------------------------------------------------------------------------
    def bucket_dir(self, bucket: str) -> Path:
        if not _BUCKET.match(bucket):
            raise _error(400, "invalid", f"Invalid bucket name: '{bucket}'")
        return self.root / bucket

    def object_path(self, bucket: str, name: str) -> Path:
        self.bucket_dir(bucket)
        if not name or name.endswith("/"):
            raise _error(400, "invalid", f"Invalid object name: '{name}'")
        if any(c in name for c in "\0\r\n"):  # Cloud Storage forbids them; a NUL cannot be a file name
            raise _error(400, "invalid", f"Invalid object name: {name!r} (NUL, CR and LF are not allowed)")
        try:
            return self.storage.path(f"gs://{bucket}/{name}")
        except StorageError as exc:
            raise _error(400, "invalid", f"Invalid object name: '{name}' ({exc})") from None

    def _need_bucket(self, bucket: str) -> Path:
        d = self.bucket_dir(bucket)
        if not d.is_dir():
            raise _error(404, "notFound", "The specified bucket does not exist.")
        return d

    # -- resources ------------------------------------------------------------------------------
    def bucket_resource(self, bucket: str) -> Json:
        d = self._need_bucket(bucket)
        st = d.stat()
        return {"kind": "storage#bucket", "id": bucket, "name": bucket, "selfLink": f"{self.base_url}/storage/v1/b/{bucket}",
                "projectNumber": "0", "metageneration": "1", "location": "US", "storageClass": "STANDARD",
                "timeCreated": _rfc3339(st.st_ctime), "updated": _rfc3339(st.st_mtime), "etag": "CAE="}

    def object_resource(self, bucket: str, name: str, path: Path) -> Json:
        st = path.stat()
        data = path.read_bytes()
        generation = str(st.st_mtime_ns)
        link = f"{self.base_url}/storage/v1/b/{bucket}/o/{quote(name, safe='')}"
        return {
            "kind": "storage#object", "id": f"{bucket}/{name}/{generation}", "name": name, "bucket": bucket,
            "generation": generation, "metageneration": "1",
            "contentType": mimetypes.guess_type(name)[0] or "application/octet-stream",
            "size": str(st.st_size), "md5Hash": _b64(hashlib.md5(data).digest()), "crc32c": _b64(_crc32c(data)),
            "storageClass": "STANDARD", "timeCreated": _rfc3339(st.st_mtime), "updated": _rfc3339(st.st_mtime),
            "timeStorageClassUpdated": _rfc3339(st.st_mtime), "etag": f"C{generation[-8:]}=",
            "selfLink": link, "mediaLink": f"{self.base_url}/download/storage/v1/b/{bucket}/o/"
                                           f"{quote(name, safe='')}?generation={generation}&alt=media",
        }

    def _existing(self, bucket: str, name: str) -> Path:
        self._need_bucket(bucket)
        if name.endswith("/"):
            # A "folder" name: no such object here, as Cloud Storage answers (gcloud storage ls
            # gs://BUCKET/PREFIX/ asks for it before it lists the prefix).
            raise _error(404, "notFound", f"No such object: {bucket}/{name}")
        path = self.object_path(bucket, name)
        if not path.is_file():
            raise _error(404, "notFound", f"No such object: {bucket}/{name}")
        return path

    # -- buckets --------------------------------------------------------------------------------
    def get_bucket(self, bucket: str) -> Answer:
        return Answer(json=self.bucket_resource(bucket))

    def create_bucket(self, body: Json) -> Answer:
        name = str(body.get("name") or "")
        d = self.bucket_dir(name)
        if d.is_dir():
            raise _error(409, "conflict", "Your previous request to create the named bucket succeeded and you "
                                          "already own it.")
        d.mkdir(parents=True)
        return Answer(json=self.bucket_resource(name))

    def list_objects(self, bucket: str, params: dict[str, str]) -> Answer:
        d = self._need_bucket(bucket)
        prefix, delimiter = params.get("prefix", ""), params.get("delimiter", "")
        items, prefixes = [], set()
        for dirpath, dirnames, filenames in os.walk(d):
            dirnames[:] = sorted(n for n in dirnames if not n.startswith("."))
            for f in sorted(filenames):
                if f.startswith("."):
                    continue
                path = Path(dirpath) / f
                name = path.relative_to(d).as_posix()
                if not name.startswith(prefix):
                    continue
                if delimiter and delimiter in name[len(prefix):]:
                    prefixes.add(name[: len(prefix) + name[len(prefix):].index(delimiter) + len(delimiter)])
                    continue
                items.append(self.object_resource(bucket, name, path))
        out: Json = {"kind": "storage#objects", "items": sorted(items, key=lambda o: o["name"])}
        if prefixes:
            out["prefixes"] = sorted(prefixes)
        return Answer(json=out)

    # -- objects --------------------------------------------------------------------------------
    def get_object(self, bucket: str, name: str, params: dict[str, str], range_header: str | None) -> Answer:
        path = self._existing(bucket, name)
        self._preconditions(path, params)
        if params.get("alt") != "media":
            return Answer(json=self.object_resource(bucket, name, path))
        data = path.read_bytes()
        headers = [("Content-Type", mimetypes.guess_type(name)[0] or "application/octet-stream"),
                   ("X-Goog-Hash", f"crc32c={_b64(_crc32c(data))},md5={_b64(hashlib.md5(data).digest())}"),
                   ("X-Goog-Generation", str(path.stat().st_mtime_ns)), ("X-Goog-Stored-Content-Length", str(len(data))),
                   ("Accept-Ranges", "bytes")]
        m = re.fullmatch(r"bytes=(\d*)-(\d*)", (range_header or "").strip())
        if m and (m.group(1) or m.group(2)):
            if m.group(1):
                start = int(m.group(1))
                end = min(int(m.group(2)), len(data) - 1) if m.group(2) else len(data) - 1
            else:
                start, end = max(0, len(data) - int(m.group(2))), len(data) - 1
            if start >= len(data) and len(data) > 0:
                raise _error(416, "requestedRangeNotSatisfiable", "The requested range cannot be satisfied.")
            headers.append(("Content-Range", f"bytes {start}-{end}/{len(data)}"))
            return Answer(status=206, data=data[start:end + 1], headers=tuple(headers))
        return Answer(data=data, headers=tuple(headers))

    def delete_object(self, bucket: str, name: str, params: dict[str, str]) -> Answer:
        path = self._existing(bucket, name)
        self._preconditions(path, params)
        path.unlink()
        return Answer(status=204)

    @staticmethod
    def _preconditions(path: Path, params: dict[str, str]) -> None:
        current = str(path.stat().st_mtime_ns) if path.is_file() else "0"
        want = params.get("ifGenerationMatch")
        if want is not None and want != current:
            raise _error(412, "conditionNotMet", "At least one of the pre-conditions you specified did not hold.")
        avoid = params.get("ifGenerationNotMatch")
        if avoid is not None and avoid == current:
            raise _error(412, "conditionNotMet", "At least one of the pre-conditions you specified did not hold.")

    # -- uploads --------------------------------------------------------------------------------
    def _store(self, bucket: str, name: str, source: Path, metadata: Json, params: dict[str, str]) -> Answer:
        data = source.read_bytes()
        if metadata.get("crc32c") and metadata["crc32c"] != _b64(_crc32c(data)):
            raise _error(400, "invalid", f"Provided CRC32C \"{metadata['crc32c']}\" doesn't match calculated CRC32C "
                                         f"\"{_b64(_crc32c(data))}\".")
        if metadata.get("md5Hash") and metadata["md5Hash"] != _b64(hashlib.md5(data).digest()):
            raise _error(400, "invalid", f"Provided MD5 hash \"{metadata['md5Hash']}\" doesn't match calculated MD5 "
                                         f"hash \"{_b64(hashlib.md5(data).digest())}\".")
        target = self.object_path(bucket, name)
        self._preconditions(target, params)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(source, target)  # atomic: a reader sees the old object or the new one
        return Answer(json=self.object_resource(bucket, name, target))

    def _spool(self, data: bytes) -> Path:
        self._tmp.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self._tmp, prefix="upload-")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        return Path(tmp)

    def upload(self, bucket: str, params: dict[str, str], content_type: str, body: bytes) -> Answer:
        self._need_bucket(bucket)
        kind = params.get("uploadType", "media")
        if kind == "media":
            name = params.get("name", "")
            self.object_path(bucket, name)
            return self._store(bucket, name, self._spool(body), {}, params)
        if kind == "multipart":
            metadata, data = _multipart(content_type, body)
            name = str(metadata.get("name") or params.get("name") or "")
            self.object_path(bucket, name)
            return self._store(bucket, name, self._spool(data), metadata, params)
        if kind == "resumable":
            if "upload_id" in params:
                raise _error(400, "invalid", "Resumable upload chunks are sent with PUT.")
            metadata = json.loads(body or b"{}") if body.strip() else {}
            name = str(metadata.get("name") or params.get("name") or "")
            self.object_path(bucket, name)
            self._preconditions(self.object_path(bucket, name), params)
            upload_id = uuid.uuid4().hex
            with self._lock:
                self._uploads[upload_id] = _Upload(bucket, name, metadata, self._spool(b""))
            location = f"{self.base_url}/upload/storage/v1/b/{bucket}/o?uploadType=resumable&upload_id={upload_id}"
            return Answer(json={}, headers=(("Location", location),))
        raise _error(400, "invalid", f"Invalid uploadType: '{kind}' (media, multipart or resumable)")

    def upload_chunk(self, params: dict[str, str], content_range: str | None, body: bytes) -> Answer:
        upload = self._uploads.get(params.get("upload_id", ""))
        if upload is None:
            raise _error(404, "notFound", "No such upload session.")
        m = re.fullmatch(r"bytes (?:(\d+)-(\d+)|\*)/(\d+|\*)", (content_range or "").strip())
        if content_range and m is None:
            raise _error(400, "invalid", f"Invalid Content-Range: {content_range!r}")
        if m and m.group(1) is not None:
            start = int(m.group(1))
            if start != upload.received:
                raise _error(400, "invalid", f"The chunk starts at {start}, but {upload.received} bytes were received.")
            with open(upload.file, "ab") as f:
                f.write(body)
            upload.received += len(body)
        elif body:
            with open(upload.file, "ab") as f:
                f.write(body)
            upload.received += len(body)
        total = m.group(3) if m else str(upload.received)
        if total == "*" or int(total) > upload.received:
            headers = (("Range", f"bytes=0-{upload.received - 1}"),) if upload.received else ()
            return Answer(status=308, headers=headers, data=b"")
        with self._lock:
            self._uploads.pop(params["upload_id"], None)
        return self._store(upload.bucket, upload.name, upload.file, upload.metadata, params)


def multipart_parts(content_type: str, body: bytes) -> list[bytes] | None:
    """The parts' contents of a multipart body, bytes kept exactly; None without a boundary."""
    # gcloud writes the boundary in single quotes (boundary='===...=='); others in double quotes or bare.
    m = re.search(r"""boundary=(?:'([^']+)'|"([^"]+)"|([^;\s]+))""", content_type)
    boundary = next((g for g in m.groups() if g), "") if m else ""
    if not content_type.startswith("multipart/") or not boundary:
        return None
    parts = []
    for section in body.split(b"--" + boundary.encode())[1:]:
        if section.startswith(b"--"):
            break
        # Headers end at the first blank line; gcloud writes bare \n line ends, most clients \r\n.
        # The line end before the next boundary belongs to the boundary, in the same style.
        crlf, lf = section.find(b"\r\n\r\n"), section.find(b"\n\n")
        eol = b"\r\n" if crlf >= 0 and (lf < 0 or crlf <= lf) else b"\n"
        content = section.partition(eol + eol)[2]
        parts.append(content[:-len(eol)] if content.endswith(eol) else content)
    return parts


def _multipart(content_type: str, body: bytes) -> tuple[Json, bytes]:
    """A multipart/related body -> (its JSON metadata part, its data part), bytes kept exactly."""
    parts = multipart_parts(content_type, body)
    if parts is None:
        raise _error(400, "invalid", "A multipart upload needs a multipart/related body with a boundary.")
    if len(parts) != 2:
        raise _error(400, "invalid", "A multipart upload has two parts: the metadata, then the data.")
    try:
        metadata = json.loads(parts[0] or b"{}")
    except ValueError:
        raise _error(400, "invalid", "The metadata part of the upload is not JSON.") from None
    return metadata, parts[1]
