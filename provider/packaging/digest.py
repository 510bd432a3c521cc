"""Digests of files and folders: the one way trainjobs fingerprints local sources.

* ``files_digest`` hashes (name, path) pairs: each file's name, whether it is executable, its
  size and its bytes. A package's digest (``source_digest``: its staged URI) is the digest of
  the files that make the package (provider.packaging.files.source_files).
* ``directory_digest`` is the digest of every file under a folder (caches and ``.pyc`` skipped):
  a container's build context. The plan's image placeholder and the tag the Pulumi program pushes
  are both ``image_tag`` of it, so an unchanged context is the same image in both.

A symlink counts by the path it holds, never by what it points to (a build copies the link, and
nothing is read out of the repository); a FIFO, socket or device by its kind (it is never opened:
a FIFO would block). Files are read through provider.document.files.open_inside, in chunks.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from provider.packaging.files import SKIP_DIRS

if TYPE_CHECKING:
    import hashlib

_CHUNK = 1 << 20

# Within ``shared()``: folders a caller proved to hold the same files (``same``: trainjobs plan's
# base commit and working tree, provider.gitops.shared) -> the proof's key; and each key's digests.
# A context variable: plans made at once in the console's threads do not share it.
_shared: ContextVar[tuple[dict[str, str], dict[tuple[str, str], str]] | None] = ContextVar("shared_digests",
                                                                                         default=None)


@contextmanager
def shared() -> Iterator[None]:
    """Within this block, folders marked alike by ``same`` are digested once (``once``)."""
    token = _shared.set(({}, {}))
    try:
        yield
    finally:
        _shared.reset(token)


def same(folder: Path, key: str) -> None:
    """``folder`` holds the files every other folder marked with ``key`` holds (within ``shared()``)."""
    state = _shared.get()
    if state is not None:
        state[0][os.path.realpath(folder)] = key


def once(kind: str, folder: Path, digest: Callable[[], str]) -> str:
    """``digest()`` of ``folder``, or the digest of this ``kind`` already made of a folder marked the same."""
    state = _shared.get()
    key = None if state is None else state[0].get(os.path.realpath(folder))
    if state is None or key is None:
        return digest()
    found = state[1].get((kind, key))
    if found is None:
        found = state[1][(kind, key)] = digest()
    return found


def _update(h: hashlib._Hash, rel: str, path: Path, root: Path | None) -> None:
    from provider.document.files import open_inside

    fd, st = open_inside(path, root)
    with os.fdopen(fd, "rb") as f:
        h.update(f"{rel}\0{int(os.access(path, os.X_OK))}\0{st.st_size}\0".encode("utf-8", "surrogateescape"))
        while chunk := f.read(_CHUNK):
            h.update(chunk)


def files_digest(files: Iterable[tuple[str, Path]], root: Path | None = None) -> str:
    """SHA-256 over each file's name, mode (executable or not), size and bytes, in the order given."""
    import hashlib  # here: loading OpenSSL costs a validate run ~12 ms, and only staging digests

    h = hashlib.sha256()
    for rel, path in files:
        _update(h, rel, path, root)
    return h.hexdigest()


def directory_digest(directory: Path) -> str:
    """SHA-256 over the names, modes and contents of the files under ``directory`` (see the module)."""
    import hashlib

    h = hashlib.sha256()
    root = Path(os.path.realpath(directory))
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = Path(dirpath) / name
            rel = path.relative_to(directory).as_posix()
            mode = os.lstat(path).st_mode
            if stat.S_ISREG(mode):
                _update(h, rel, path, root)
                continue
            what = os.readlink(path) if stat.S_ISLNK(mode) else stat.S_IFMT(mode)
            h.update(f"{rel}\0special\0{what}\0".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def image_tag(job_name: str, digest: str) -> str:
    """``vision-tuner:src-0123456789ab``: the name and tag of a job's image built from a context
    whose ``directory_digest`` is ``digest`` (the registry's path goes before it)."""
    return f"{job_name.lower().replace('_', '-')}:src-{digest[:12]}"
