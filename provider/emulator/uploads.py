"""The bytes of Cloud Storage uploads, handled a block at a time: a multipart body split on disk,
the checksums an object is checked and described with, and the resumable sessions in progress.

Nothing here holds an object in memory: a multipart body is scanned for its boundary in blocks
and its data part copied to a file of its own; MD5 and CRC32C are computed while reading, and
remembered per file version (inode, size, mtime), so a listing does not hash every object again.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import re
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from provider.core.record import Record
from provider.core.rpc_code import RpcCode
from provider.emulator.errors import ApiError
from provider.emulator.framing import BLOCK, MAX_BODY, new_spool_file

Json = dict[str, Any]

MAX_SESSIONS = 256  # resumable uploads begun and not finished
_HEAD = 1024 * 1024  # the metadata part and the part headers are within the first MiB
_DIGESTS = 4096  # files whose checksums are remembered


# Cloud Storage's JSON API answers with HTTP statuses outside google.rpc's mapping: the code each stands for.
_STORAGE_ONLY = {412: RpcCode.FAILED_PRECONDITION, 413: RpcCode.INVALID_ARGUMENT, 416: RpcCode.OUT_OF_RANGE}


def storage_error(http: int, reason: str, message: str) -> ApiError:
    """A Cloud Storage error: its own HTTP status, and the google.rpc code name it stands for."""
    code = _STORAGE_ONLY.get(http) or RpcCode.of_http(http) or RpcCode.UNKNOWN
    return ApiError(code.name, message, http=http, reason=reason)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


class Digests(Record):
    """An object's checksums as the JSON API writes them (base64)."""

    md5: str
    crc32c: str


def _digest_file(path: Path) -> Digests:
    import google_crc32c

    md5, crc = hashlib.md5(), google_crc32c.Checksum()  # type: ignore[no-untyped-call]
    with open(path, "rb") as f:
        while block := f.read(BLOCK):
            md5.update(block)
            crc.update(block)  # type: ignore[no-untyped-call]
    return Digests(_b64(md5.digest()), _b64(crc.digest()))  # type: ignore[no-untyped-call]


_cache: OrderedDict[tuple[int, int, int, int], Digests] = OrderedDict()
_cache_lock = threading.Lock()


def digests(path: Path) -> Digests:
    st = path.stat()
    key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    found = _digest_file(path)
    with _cache_lock:
        _cache[key] = found
        while len(_cache) > _DIGESTS:
            _cache.popitem(last=False)
    return found


def check_digests(path: Path, metadata: Json) -> None:
    """400 when the client's CRC32C or MD5 does not match the bytes received (as Cloud Storage answers)."""
    want_crc, want_md5 = metadata.get("crc32c"), metadata.get("md5Hash")
    if not want_crc and not want_md5:
        return
    have = digests(path)
    if want_crc and want_crc != have.crc32c:
        raise storage_error(400, "invalid", f"Provided CRC32C \"{want_crc}\" doesn't match calculated CRC32C "
                                            f"\"{have.crc32c}\".")
    if want_md5 and want_md5 != have.md5:
        raise storage_error(400, "invalid", f"Provided MD5 hash \"{want_md5}\" doesn't match calculated MD5 hash "
                                            f"\"{have.md5}\".")


def delimiter_of(content_type: str) -> bytes | None:
    """``--BOUNDARY`` of a multipart Content-Type; None when it is not multipart or has no boundary."""
    # gcloud writes the boundary in single quotes (boundary='===...=='); others in double quotes or bare.
    m = re.search(r"""boundary=(?:'([^']+)'|"([^"]+)"|([^;\s]+))""", content_type)
    boundary = next((g for g in m.groups() if g), "") if m else ""
    if not content_type.startswith("multipart/") or not boundary:
        return None
    return b"--" + boundary.encode("utf-8", "replace")


def _boundary(content_type: str) -> bytes:
    delimiter = delimiter_of(content_type)
    if delimiter is None:
        raise storage_error(400, "invalid", "A multipart upload needs a multipart/related body with a boundary.")
    return delimiter


def _part(head: bytes, start: int) -> tuple[int, bytes]:
    """Where a part's content starts (after its headers' blank line), and the line end it uses."""
    # Headers end at the first blank line; gcloud writes bare \n line ends, most clients \r\n.
    crlf, lf = head.find(b"\r\n\r\n", start), head.find(b"\n\n", start)
    if crlf < 0 and lf < 0:
        raise storage_error(400, "invalid", "A part of the multipart upload has no blank line after its headers "
                                            "(or its headers are longer than 1 MiB).")
    if crlf >= 0 and (lf < 0 or crlf <= lf):
        return crlf + 4, b"\r\n"
    return lf + 2, b"\n"


def _find(path: Path, needle: bytes, start: int, end: int) -> int:
    """The first offset of ``needle`` in the file's bytes [start, end), or -1; a block at a time."""
    with open(path, "rb") as f:
        f.seek(start)
        carry, offset = b"", start
        while offset < end:
            block = f.read(min(BLOCK, end - offset))
            if not block:
                break
            window = carry + block
            at = window.find(needle)
            if at >= 0 and offset - len(carry) + at + len(needle) <= end:
                return offset - len(carry) + at
            carry = window[-(len(needle) - 1):] if len(needle) > 1 else b""
            offset += len(block)
    return -1


def split_multipart(content_type: str, body: Path, size: int, spool: Path) -> tuple[Json, Path]:
    """A multipart/related body on disk -> (its JSON metadata part, a new file with its data part)."""
    delimiter = _boundary(content_type)
    with open(body, "rb") as f:
        head = f.read(_HEAD)
        f.seek(max(0, size - len(delimiter) - 8))
        tail = f.read()
    first = head.find(delimiter)
    meta_start, eol = _part(head, first + len(delimiter)) if first >= 0 else (-1, b"")
    meta_end = head.find(delimiter, max(meta_start, 0))
    if first < 0 or meta_end < 0:
        raise storage_error(400, "invalid", "A multipart upload has two parts: the metadata, then the data.")
    data_start, data_eol = _part(head, meta_end + len(delimiter))
    closing = tail.rfind(delimiter + b"--")
    data_end = size - len(tail) + closing if closing >= 0 else -1
    if data_end < data_start or _find(body, delimiter, data_start, data_end) >= 0:
        raise storage_error(400, "invalid", "A multipart upload has two parts: the metadata, then the data, and "
                                            "ends with its closing boundary.")
    raw = head[meta_start:meta_end]
    raw = raw[:-len(eol)] if raw.endswith(eol) else raw
    if data_end - len(data_eol) >= data_start and _find(body, data_eol, data_end - len(data_eol), data_end) >= 0:
        data_end -= len(data_eol)  # the line end before the boundary belongs to the boundary
    try:
        metadata = json.loads(raw or b"{}")
    except ValueError:
        raise storage_error(400, "invalid", "The metadata part of the upload is not JSON.") from None
    if not isinstance(metadata, dict):
        raise storage_error(400, "invalid", "The metadata part of the upload is not a JSON object.")
    out = new_spool_file(spool)
    try:
        with open(body, "rb") as src, open(out, "wb") as dst:
            src.seek(data_start)
            left = data_end - data_start
            while left > 0 and (block := src.read(min(BLOCK, left))):
                dst.write(block)
                left -= len(block)
    except BaseException:
        out.unlink(missing_ok=True)
        raise
    return metadata, out


class Session(Record, frozen=False):
    """A resumable upload in progress: the object it makes, its metadata, its spool file, bytes received."""

    bucket: str
    name: str
    metadata: Json
    file: Path
    received: int = 0


class Sessions:
    """The resumable uploads in progress, at most ``MAX_SESSIONS`` (their spool files take disk)."""

    def __init__(self) -> None:
        self._open: dict[str, Session] = {}
        self._lock = threading.Lock()

    def begin(self, upload_id: str, session: Session) -> None:
        with self._lock:
            if len(self._open) >= MAX_SESSIONS:
                session.file.unlink(missing_ok=True)
                raise storage_error(429, "rateLimitExceeded", f"{MAX_SESSIONS} resumable uploads are already in "
                                                              "progress in the trainjobs emulator; finish one first.")
            self._open[upload_id] = session

    def get(self, upload_id: str) -> Session:
        with self._lock:
            session = self._open.get(upload_id)
        if session is None:
            raise storage_error(404, "notFound", "No such upload session.")
        return session

    def end(self, upload_id: str) -> None:
        with self._lock:
            self._open.pop(upload_id, None)


def append(session: Session, chunk: Path, size: int) -> None:
    """Add a chunk (a spooled body) to a resumable upload; 413 past the object size limit."""
    if session.received + size > MAX_BODY:
        raise storage_error(413, "uploadTooLarge", f"The object would be larger than {MAX_BODY} bytes, the most the "
                                                   "trainjobs emulator stores.")
    with open(chunk, "rb") as src, open(session.file, "ab") as dst:
        while block := src.read(BLOCK):
            dst.write(block)
    session.received += size


def discard(path: Path | None) -> None:
    if path is not None:
        with contextlib.suppress(OSError):
            path.unlink()
