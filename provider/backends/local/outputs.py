"""What the local backend reads for the seam's incremental calls: the cursor of its logs, and the
objects of an output directory in its storage (the gs:// paths its jobs write, as files).

A log cursor is JSON: ``{"<replica's log, relative to logs/>": <bytes read>}``, the offsets a
provider.backends.local.log_times.Reader had reached; a Reader made from it reads on from there.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from provider.backends.base import InvalidArgument, StoredObject
from provider.backends.local.paths import Storage


def offsets(cursor: str) -> dict[str, int]:
    """The offsets of a log cursor ("": none); InvalidArgument for text that is no cursor of these logs."""
    if not cursor:
        return {}
    try:
        data = json.loads(cursor)
    except ValueError:
        data = None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, int) for k, v in data.items()):
        raise InvalidArgument(f"{cursor[:80]!r} is not a cursor of the local backend's logs: pass the cursor the "
                              "last read returned, or none to read from the start")
    return data


def cursor(offsets: dict[str, int]) -> str:
    return json.dumps(offsets, sort_keys=True)


def _root(storage: Storage, uri: str) -> Path:
    if not uri.startswith("gs://"):
        raise InvalidArgument(f"the output directory {uri!r} is not a gs:// URI")
    try:
        return storage.path(uri.rstrip("/") + "/")
    except ValueError as exc:
        raise InvalidArgument(str(exc)) from exc


def objects(storage: Storage, uri: str) -> list[StoredObject]:
    """The files under ``uri`` in the storage (never through a symbolic link), sorted by URI."""
    root = _root(storage, uri)
    base = uri.rstrip("/")
    out: list[StoredObject] = []
    if root.is_dir():
        for dirpath, _, files in os.walk(root):
            for name in files:
                path = Path(dirpath) / name
                if path.is_symlink() or not path.is_file():
                    continue
                rel = path.relative_to(root).as_posix()
                out.append(StoredObject(f"{base}/{rel}", path.stat().st_size, str(path)))
    return sorted(out, key=lambda o: o.uri)


def copy(storage: Storage, stored: StoredObject, target: Path) -> None:
    """Copy a stored object's file to ``target``."""
    source = Path(stored.local_path) if stored.local_path else storage.path(stored.uri)
    shutil.copyfile(source, target)
