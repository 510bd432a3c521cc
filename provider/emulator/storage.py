"""The part of the Cloud Storage JSON API that google-cloud-storage needs to stage a package.

``gs://BUCKET/OBJECT`` is the file ``<storage root>/BUCKET/OBJECT``: the same storage the local
backend reads packages from and writes job outputs to. A bucket is a directory of the root. A
name no path can hold (a segment over 255 bytes, ``d`` beside ``d/e``, ``a//b``, ``dir/``) is
set aside under ``<storage root>/.objects`` (provider/backends/local/objects.py), where the
local backend finds it too. Names follow Cloud Storage's rules: 1 to 1024 bytes of UTF-8, no
carriage return or line feed, not ``.`` or ``..``, not under ``.well-known/acme-challenge/``.

* buckets: get, create (``POST /storage/v1/b``), list objects (``prefix``, ``delimiter``)
* objects: metadata get, delete, download (``alt=media``, also under ``/download``, with Range)
* uploads to ``/upload/storage/v1/b/BUCKET/o``: ``uploadType=media``, ``multipart`` and
  ``resumable`` (with chunks), checking the CRC32C and MD5 the client sends, and
  ``ifGenerationMatch`` (0: only if the object does not exist yet)

An object's generation is its file's modification time in nanoseconds; its content type is
guessed from its name. There are no ACLs, versions or custom metadata. An object is at most
framing.MAX_BODY bytes; bodies are streamed to ``<storage root>/.uploads`` and renamed into
place, and downloads are sent from the file, so no object is ever held in memory.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import mimetypes
import re
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

from provider.backends.local import objects
from provider.core.record import Record
from provider.emulator import paging, uploads
from provider.emulator.framing import Body, new_spool_file
from provider.emulator.uploads import Session, append, check_digests, digests, discard, split_multipart
from provider.emulator.uploads import storage_error as _error

Json = dict[str, Any]

_BUCKET = re.compile(r"^[a-z0-9][-_.a-z0-9]{1,61}[a-z0-9]$")


class Answer(Record):
    """What the HTTP layer writes: a status, headers, and a JSON object, raw bytes or a span of a file."""

    status: int = 200
    json: Json | None = None
    data: bytes | None = None
    headers: tuple[tuple[str, str], ...] = ()
    file: Path | None = None  # sent a block at a time (an object's bytes)
    span: tuple[int, int] | None = None  # (offset, length) of ``file``; None: all of it


MAX_NAME = 1024  # bytes of UTF-8
_ACME = ".well-known/acme-challenge/"
_MAX_RESULTS = 1000


def check_object_name(name: str) -> None:
    """400 for a name Cloud Storage refuses (cloud.google.com/storage/docs/objects#naming)."""
    size = len(name.encode("utf-8", "surrogatepass"))
    if not name:
        raise _error(400, "required", "Required: the object name is empty (1 to 1024 bytes of UTF-8).")
    if size > MAX_NAME:
        raise _error(400, "invalid", f"The maximum object length is {MAX_NAME} characters, but got a name with "
                                     f"{size} characters: '{name[:64]}...'")
    bad = next((c for c in "\r\n\0" if c in name), None)
    if bad is not None:
        raise _error(400, "invalid", f"Invalid object name {name[:64]!r}: it holds {bad!r}; object names cannot "
                                     "contain carriage return, line feed (or NUL) characters.")
    if name in (".", ".."):
        raise _error(400, "invalid", f"Invalid object name {name!r}: objects cannot be named . or ..")
    if name.startswith(_ACME):
        raise _error(400, "invalid", f"Invalid object name {name[:64]!r}: object names cannot start with {_ACME}")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in name):
        raise _error(400, "invalid", f"Invalid object name {name[:64]!r}: it is not valid UTF-8.")


def _rfc3339(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def folder_stamp() -> str:
    """Now, as Vertex AI writes it in the folders it makes in Cloud Storage (a dataset's or a
    model's export): 2026-01-31T12:00:00.000Z."""
    return _rfc3339(time.time())


def int_param(params: dict[str, str], key: str, minimum: int = 0) -> int | None:
    """A query parameter that must be an integer (a generation, maxResults); 400 when it is not."""
    raw = params.get(key)
    if raw is None:
        return None
    if not re.fullmatch(r"-?[0-9]{1,19}", raw) or int(raw) < minimum:
        raise _error(400, "invalid", f"Invalid value for {key}: {raw[:64]!r} is not an integer of at least "
                                     f"{minimum}.")
    return int(raw)


def _content_range(header: str | None) -> tuple[int | None, int | None, int | None]:
    """``bytes A-B/TOTAL``, ``bytes */TOTAL`` or ``bytes */*`` -> (A, B, TOTAL) with None for ``*``."""
    m = re.fullmatch(r"bytes (?:([0-9]{1,19})-([0-9]{1,19})|\*)/([0-9]{1,19}|\*)", (header or "").strip())
    if header is not None and m is None:
        raise _error(400, "invalid", f"Invalid Content-Range {header[:80]!r}: send bytes FIRST-LAST/TOTAL, "
                                     "bytes */TOTAL or bytes */*.")
    if m is None:
        return None, None, None
    first, last, total = (int(g) if g not in (None, "*") else None for g in m.groups())
    if first is not None and last is not None and (last < first or (total is not None and last >= total)):
        raise _error(400, "invalid", f"Invalid Content-Range {header!r}: the range is empty or past the total.")
    return first, last, total


class StorageService:
    def __init__(self, root: Path, base_url: str = "") -> None:
        self.root = root
        self.base_url = base_url  # http://127.0.0.1:PORT, for selfLink and resumable session URLs
        self.sessions = uploads.Sessions()
        self.spool = root / ".uploads"  # request bodies on their way to disk, and resumable uploads

    def sweep(self, older_than: float = 86400.0) -> None:
        """Remove the spool files of uploads an earlier emulator never finished (sessions do not outlive it)."""
        if self.spool.is_dir():
            cutoff = time.time() - older_than
            for path in self.spool.glob("upload-*"):
                with contextlib.suppress(OSError):
                    if path.stat().st_mtime < cutoff:
                        path.unlink()

    # -- paths ----------------------------------------------------------------------------------
    def bucket_dir(self, bucket: str) -> Path:
        if not _BUCKET.match(bucket):
            raise _error(400, "invalid", f"Invalid bucket name: '{bucket[:80]}'")
        return self.root / bucket

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
        sums = digests(path)
        generation = str(st.st_mtime_ns)
        link = f"{self.base_url}/storage/v1/b/{bucket}/o/{quote(name, safe='')}"
        return {
            "kind": "storage#object", "id": f"{bucket}/{name}/{generation}", "name": name, "bucket": bucket,
            "generation": generation, "metageneration": "1",
            "contentType": mimetypes.guess_type(name)[0] or "application/octet-stream",
            "size": str(st.st_size), "md5Hash": sums.md5, "crc32c": sums.crc32c,
            "storageClass": "STANDARD", "timeCreated": _rfc3339(st.st_mtime), "updated": _rfc3339(st.st_mtime),
            "timeStorageClassUpdated": _rfc3339(st.st_mtime), "etag": f"C{generation[-8:]}=",
            "selfLink": link, "mediaLink": f"{self.base_url}/download/storage/v1/b/{bucket}/o/"
                                           f"{quote(name, safe='')}?generation={generation}&alt=media",
        }

    def _existing(self, bucket: str, name: str) -> Path:
        check_object_name(name)
        self._need_bucket(bucket)
        path = objects.locate(self.root, bucket, name)
        if path is None:
            raise _error(404, "notFound", f"No such object: {bucket}/{name}")
        return path

    # -- buckets --------------------------------------------------------------------------------
    def get_bucket(self, bucket: str) -> Answer:
        return Answer(json=self.bucket_resource(bucket))

    def create_bucket(self, body: Json) -> Answer:
        name = body.get("name")
        if not isinstance(name, str):
            raise _error(400, "required", "Required: the bucket's name, a string (bucket.name).")
        d = self.bucket_dir(name)
        if d.is_dir():
            raise _error(409, "conflict", "Your previous request to create the named bucket succeeded and you "
                                          "already own it.")
        d.mkdir(parents=True)
        return Answer(json=self.bucket_resource(name))

    def list_objects(self, bucket: str, params: dict[str, str]) -> Answer:
        """Objects and prefixes in name order, ``maxResults`` (at most 1000) a page."""
        self._need_bucket(bucket)
        prefix, delimiter = params.get("prefix", ""), params.get("delimiter", "")
        size = min(int_param(params, "maxResults") or _MAX_RESULTS, _MAX_RESULTS)  # 0: the default
        request = (bucket, prefix, delimiter)
        after = (paging.decode(params.get("pageToken"), *request) or ("", ""))[0]
        entries: dict[str, Path | None] = {}  # name -> file, or None for a prefix
        for name, path in objects.walk(self.root, bucket):
            if not name.startswith(prefix):
                continue
            rest = name[len(prefix):]
            if delimiter and delimiter in rest:
                entries.setdefault(prefix + rest[:rest.index(delimiter) + len(delimiter)], None)
            else:
                entries[name] = path
        names = sorted(n for n in entries if n > after)
        page = names[:size]
        out: Json = {"kind": "storage#objects",
                     "items": [self.object_resource(bucket, n, p) for n in page if (p := entries[n]) is not None]}
        prefixes = [n for n in page if entries[n] is None]
        if prefixes:
            out["prefixes"] = prefixes
        if len(names) > size:
            out["nextPageToken"] = paging.encode((page[-1], bucket), *request)
        return Answer(json=out)

    # -- objects --------------------------------------------------------------------------------
    def get_object(self, bucket: str, name: str, params: dict[str, str], range_header: str | None) -> Answer:
        path = self._existing(bucket, name)
        self._preconditions(path, params)
        if params.get("alt", "json") not in ("json", "media"):
            raise _error(400, "invalid", f"Invalid value for alt: {params['alt'][:40]!r} (json or media).")
        if params.get("alt") != "media":
            return Answer(json=self.object_resource(bucket, name, path))
        size = path.stat().st_size
        sums = digests(path)
        headers = [("Content-Type", mimetypes.guess_type(name)[0] or "application/octet-stream"),
                   ("X-Goog-Hash", f"crc32c={sums.crc32c},md5={sums.md5}"),
                   ("X-Goog-Generation", str(path.stat().st_mtime_ns)), ("X-Goog-Stored-Content-Length", str(size)),
                   ("Accept-Ranges", "bytes")]
        # One range of bytes; anything else in Range is ignored, as RFC 9110 section 14.2 allows.
        m = re.fullmatch(r"bytes=([0-9]{0,19})-([0-9]{0,19})", (range_header or "").strip())
        if m is None or not (m.group(1) or m.group(2)) or (m.group(1) and m.group(2) and
                                                           int(m.group(2)) < int(m.group(1))):
            return Answer(file=path, headers=tuple(headers))
        if m.group(1):
            start = int(m.group(1))
            end = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
        else:
            start, end = max(0, size - int(m.group(2))), size - 1
        if start >= size or end < start:
            raise _error(416, "requestedRangeNotSatisfiable", "The requested range cannot be satisfied.")
        headers.append(("Content-Range", f"bytes {start}-{end}/{size}"))
        return Answer(status=206, file=path, span=(start, end - start + 1), headers=tuple(headers))

    def delete_object(self, bucket: str, name: str, params: dict[str, str]) -> Answer:
        path = self._existing(bucket, name)
        self._preconditions(path, params)
        if not objects.remove(self.root, bucket, name):
            raise _error(404, "notFound", f"No such object: {bucket}/{name}")
        return Answer(status=204)

    @staticmethod
    def _preconditions(path: Path | None, params: dict[str, str]) -> None:
        current = path.stat().st_mtime_ns if path is not None and path.is_file() else 0
        want, avoid = int_param(params, "ifGenerationMatch"), int_param(params, "ifGenerationNotMatch")
        for key in ("ifMetagenerationMatch", "ifMetagenerationNotMatch", "generation"):
            int_param(params, key)
        if (want is not None and want != current) or (avoid is not None and avoid == current):
            raise _error(412, "conditionNotMet", "At least one of the pre-conditions you specified did not hold.")

    # -- uploads --------------------------------------------------------------------------------
    def _store(self, bucket: str, name: str, source: Path, metadata: Json, params: dict[str, str]) -> Answer:
        try:
            check_digests(source, metadata)
            self._preconditions(objects.locate(self.root, bucket, name), params)
            target = objects.place(self.root, bucket, name, source)
        finally:
            discard(source)  # gone already when it was placed
        return Answer(json=self.object_resource(bucket, name, target))

    def _name(self, bucket: str, metadata: Json, params: dict[str, str]) -> str:
        name = metadata.get("name", params.get("name", ""))
        if not isinstance(name, str):
            raise _error(400, "invalid", f"Invalid object name {name!r}: a name is a string.")
        check_object_name(name)
        self._need_bucket(bucket)
        return name

    def upload(self, bucket: str, params: dict[str, str], content_type: str, body: Body) -> Answer:
        self._need_bucket(bucket)
        kind = params.get("uploadType", "media")
        if kind == "media":
            name = self._name(bucket, {}, params)
            return self._store(bucket, name, body.to_file(self.spool), {}, params)
        if kind == "multipart":
            whole = body.to_file(self.spool)
            try:
                metadata, data = split_multipart(content_type, whole, whole.stat().st_size, self.spool)
            finally:
                discard(whole)
            try:
                name = self._name(bucket, metadata, params)
            except BaseException:
                discard(data)
                raise
            return self._store(bucket, name, data, metadata, params)
        if kind == "resumable":
            return self._begin(bucket, params, body)
        raise _error(400, "invalid", f"Invalid uploadType: '{kind[:40]}' (media, multipart or resumable)")

    def _begin(self, bucket: str, params: dict[str, str], body: Body) -> Answer:
        if "upload_id" in params:
            raise _error(400, "invalid", "Resumable upload chunks are sent with PUT.")
        raw = body.bytes()
        try:
            metadata = json.loads(raw) if raw.strip() else {}
        except ValueError:
            raise _error(400, "invalid", "The resumable upload's metadata is not JSON.") from None
        if not isinstance(metadata, dict):
            raise _error(400, "invalid", "The resumable upload's metadata is not a JSON object.")
        name = self._name(bucket, metadata, params)
        self._preconditions(objects.locate(self.root, bucket, name), params)
        upload_id = uuid.uuid4().hex
        self.sessions.begin(upload_id, Session(bucket, name, metadata, new_spool_file(self.spool)))
        location = f"{self.base_url}/upload/storage/v1/b/{bucket}/o?uploadType=resumable&upload_id={upload_id}"
        return Answer(json={}, headers=(("Location", location),))

    def upload_chunk(self, params: dict[str, str], content_range: str | None, body: Body) -> Answer:
        upload_id = params.get("upload_id", "")
        session = self.sessions.get(upload_id)
        first, last, total = _content_range(content_range)
        if first is not None and last is not None:
            if first != session.received:
                raise _error(400, "invalid", f"The chunk starts at {first}, but {session.received} bytes were "
                                             "received.")
            if last - first + 1 != body.size:
                raise _error(400, "invalid", f"Content-Range {content_range!r} names {last - first + 1} bytes, but the "
                                             f"body has {body.size}.")
        if body.size:
            chunk = body.to_file(self.spool)
            try:
                append(session, chunk, chunk.stat().st_size)
            finally:
                discard(chunk)
        if content_range is None:
            total = session.received
        if total is not None and total < session.received:
            raise _error(400, "invalid", f"The upload's total is {total} bytes, but {session.received} were received.")
        if total is None or total > session.received:
            headers = (("Range", f"bytes=0-{session.received - 1}"),) if session.received else ()
            return Answer(status=308, headers=headers, data=b"")
        self.sessions.end(upload_id)
        return self._store(session.bucket, session.name, session.file, session.metadata, params)


def multipart_parts(content_type: str, body: bytes) -> list[bytes] | None:
    """The parts' contents of a multipart body in memory, bytes kept exactly; None without a boundary.

    Uploads are split on disk (uploads.split_multipart); this is for small bodies (the tests' stand-ins)."""
    delimiter = uploads.delimiter_of(content_type)
    if delimiter is None:
        return None
    parts = []
    for section in body.split(delimiter)[1:]:
        if section.startswith(b"--"):
            break
        # Headers end at the first blank line; gcloud writes bare \n line ends, most clients \r\n.
        # The line end before the next boundary belongs to the boundary, in the same style.
        crlf, lf = section.find(b"\r\n\r\n"), section.find(b"\n\n")
        eol = b"\r\n" if crlf >= 0 and (lf < 0 or crlf <= lf) else b"\n"
        content = section.partition(eol + eol)[2]
        parts.append(content[:-len(eol)] if content.endswith(eol) else content)
    return parts
