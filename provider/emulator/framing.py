"""A request's body, read as RFC 9112 section 6 frames it, with bounded memory.

The length comes from exactly one of ``Content-Length`` (one header, decimal digits only) or
``Transfer-Encoding: chunked``; anything ambiguous (two Content-Length headers, a list, a sign,
both headers at once, a coding other than chunked) is a ``FramingError``: the answer is a 400
and the connection is closed, because where the next request starts is unknown (RFC 9112
section 6.3). A chunked body is capped like a Content-Length one; a chunk size that is not hex
or does not fit 64 bits is a 400; a body cut short (the peer stops before the last chunk, or
before Content-Length bytes) is refused, and nothing it carried is kept.

Up to ``IN_MEMORY`` bytes stay in memory; a larger body is streamed to a file in the spool
directory (the storage root's ``.uploads``, so an upload is renamed into place, never copied),
in blocks of ``BLOCK`` bytes: a 500 MiB upload costs a block of memory, not 3 x 500 MiB.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import tempfile
from collections.abc import Callable
from email.message import Message
from pathlib import Path
from typing import BinaryIO

from provider.emulator.errors import ApiError

MAX_BODY = 512 * 1024 * 1024  # an upload, and so an object, is at most this large
MAX_JSON = 32 * 1024 * 1024  # a JSON request (a job, a bucket, a log query) is far smaller than this
IN_MEMORY = 64 * 1024
BLOCK = 1024 * 1024
_MAX_LINE = 4096  # a chunk-size line, or a trailer line
_MAX_TRAILERS = 64
_DIGITS = re.compile(rb"[0-9]+")
_HEX = re.compile(rb"[0-9A-Fa-f]{1,16}")


class FramingError(ApiError):
    """The body's framing is broken or ambiguous: answer, then close the connection."""

    def __init__(self, message: str, http: int = 400) -> None:
        super().__init__("INVALID_ARGUMENT", message, http=http)


def too_large(limit: int = MAX_BODY) -> FramingError:
    return FramingError(f"The request body is larger than {limit} bytes, the most the trainjobs emulator "
                        "accepts; send a smaller object (or JSON request).", http=413)


class Body:
    """A request body: bytes in memory when small, else a spool file that an upload renames into place."""

    def __init__(self, data: bytes = b"", file: Path | None = None, size: int = 0) -> None:
        self._data = data
        self.file = file
        self.size = size if file is not None else len(data)

    def bytes(self, limit: int = MAX_JSON) -> bytes:
        """The whole body; 413 when it is larger than ``limit`` (JSON routes never need more)."""
        if self.file is None:
            return self._data
        if self.size > limit:
            raise too_large(limit)
        return self.file.read_bytes()

    def to_file(self, spool: Path) -> Path:
        """The body as a file of its own in ``spool``, which the caller now owns (renames or removes)."""
        if self.file is None:
            self.file = new_spool_file(spool, self._data)
        path, self.file = self.file, None
        self._data, self.size = b"", 0
        return path

    def discard(self) -> None:
        if self.file is not None:
            with contextlib.suppress(OSError):
                self.file.unlink()
            self.file = None


def new_spool_file(spool: Path, data: bytes = b"") -> Path:
    spool.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=spool, prefix="upload-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return Path(name)


def declared_length(headers: Message) -> int | None:
    """The body's length by Content-Length, None for chunked; FramingError when the framing is ambiguous."""
    lengths = headers.get_all("Content-Length") or []
    codings = [c.strip().lower() for value in headers.get_all("Transfer-Encoding") or [] for c in value.split(",")]
    if codings and lengths:
        raise FramingError("The request has both Content-Length and Transfer-Encoding, which RFC 9112 section 6.3 "
                           "calls a smuggling attempt: send one of them.")
    if codings:
        if codings[-1] != "chunked":
            raise FramingError(f"Transfer-Encoding {', '.join(codings)!r} does not end with chunked, so the body's "
                               "length cannot be known: send chunked (or Content-Length).")
        if codings != ["chunked"]:
            raise FramingError(f"Transfer-Encoding {', '.join(codings)!r} is not supported: the emulator decodes "
                               "chunked only.", http=501)
        return None
    if len(lengths) > 1:
        raise FramingError(f"The request has {len(lengths)} Content-Length headers ({', '.join(lengths)}): send "
                           "exactly one.")
    if not lengths:
        return 0
    raw = lengths[0].strip().encode("latin-1", "replace")
    if not _DIGITS.fullmatch(raw) or len(raw) > 19:
        raise FramingError(f"Content-Length {lengths[0]!r} is not a length: it must be decimal digits only.")
    return int(raw)


class _Sink:
    """Where body bytes go: memory until ``IN_MEMORY``, then a spool file."""

    def __init__(self, spool: Path, limit: int) -> None:
        self.spool, self.limit = spool, limit
        self.buffer = bytearray()
        self.file: BinaryIO | None = None
        self.path: Path | None = None
        self.size = 0

    def write(self, data: bytes) -> None:
        self.size += len(data)
        if self.size > self.limit:
            raise too_large(self.limit)
        if self.file is None and self.size <= IN_MEMORY:
            self.buffer += data
            return
        if self.file is None:
            self.path = new_spool_file(self.spool)
            self.file = open(self.path, "wb")  # noqa: SIM115  (closed in done() or abandon())
            self.file.write(self.buffer)
            self.buffer = bytearray()
        self.file.write(data)

    def done(self) -> Body:
        if self.file is None:
            return Body(bytes(self.buffer))
        self.file.close()
        return Body(file=self.path, size=self.size)

    def abandon(self) -> None:
        if self.file is not None:
            self.file.close()
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.unlink()


def _copy(rfile: io.BufferedIOBase, sink: _Sink, length: int, what: str) -> None:
    left = length
    while left:
        block = rfile.read(min(BLOCK, left))
        if not block:
            raise FramingError(f"The connection ended (or was too slow) after {length - left} of {length} bytes of "
                               f"{what}: nothing was stored.")
        sink.write(block)
        left -= len(block)


def _line(rfile: io.BufferedIOBase, what: str) -> bytes:
    line = rfile.readline(_MAX_LINE + 1)
    if not line.endswith(b"\n"):
        if len(line) > _MAX_LINE:
            raise FramingError(f"The {what} is longer than {_MAX_LINE} bytes.")
        raise FramingError(f"The connection ended before the {what}: the chunked body is cut short, nothing was "
                           "stored.")
    return line.rstrip(b"\r\n")


def _chunked(rfile: io.BufferedIOBase, sink: _Sink, rearm: Callable[[int], None]) -> None:
    while True:
        head = _line(rfile, "chunk-size line")
        size_text = head.split(b";", 1)[0].strip()
        if not _HEX.fullmatch(size_text):
            raise FramingError(f"Chunk size {size_text[:40]!r} is not a hexadecimal number of at most 16 digits.")
        size = int(size_text, 16)
        if size >= 1 << 63:
            raise FramingError(f"Chunk size {size_text.decode()} is absurd.")
        if sink.size + size > sink.limit:
            raise too_large(sink.limit)
        if size == 0:
            break
        rearm(sink.size + size)
        _copy(rfile, sink, size, "a chunk")
        if _line(rfile, "end of a chunk") != b"":
            raise FramingError("A chunk is longer than its size line says (no CRLF after its data).")
    for _ in range(_MAX_TRAILERS):
        if _line(rfile, "end of the chunked body") == b"":
            return
    raise FramingError(f"The chunked body has more than {_MAX_TRAILERS} trailer lines.")


def read_body(headers: Message, rfile: io.BufferedIOBase, spool: Path, rearm: Callable[[int], None],
              limit: int = MAX_BODY) -> Body:
    """Read one request's body off the wire; ``rearm(n)`` extends the read deadline for ``n`` bytes."""
    length = declared_length(headers)
    if length is not None and length > limit:
        raise too_large(limit)
    sink = _Sink(spool, limit)
    try:
        if length is None:
            _chunked(rfile, sink, rearm)
        elif length:
            rearm(length)
            _copy(rfile, sink, length, "the body")
        return sink.done()
    except BaseException:
        sink.abandon()
        raise


def is_large(headers: Message) -> bool:
    """Whether a body may be spooled to disk (so it takes one of the upload slots)."""
    lengths = headers.get_all("Content-Length") or []
    if headers.get_all("Transfer-Encoding"):
        return True
    raw = lengths[0].strip().encode("latin-1", "replace") if len(lengths) == 1 else b""
    return bool(_DIGITS.fullmatch(raw)) and int(raw[:19]) > IN_MEMORY
