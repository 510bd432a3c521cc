"""What the local backend reads for the seam's incremental calls: log files from a cursor, and the
objects of an output directory in its storage (the gs:// paths its jobs write, as files).

A log cursor is JSON: ``{"<replica's log, relative to logs/>": <bytes read>}``. Reading from it
gives what each file holds past its offset, whole lines only while the job runs (a part-written
line waits until its newline, or the job's end).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from provider.backends.base import InvalidArgument, LogChunk, StoredObject
from provider.backends.local.paths import Storage


def _offsets(cursor: str) -> dict[str, int]:
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


def read_logs(logs: Path, files: list[Path], cursor: str, replica: str | None, whole_lines: bool) -> LogChunk:
    """The lines of ``files`` (under ``logs``) past the cursor's offsets, each prefixed by its replica."""
    offsets = _offsets(cursor)
    lines: list[str] = []
    for path in files:
        name = path.relative_to(logs).with_suffix("").as_posix()
        if replica and replica not in (name, path.stem):
            continue
        key = path.relative_to(logs).as_posix()
        with open(path, "rb") as f:
            f.seek(offsets.get(key, 0))
            data = f.read()
        end = data.rfind(b"\n") + 1 if whole_lines else len(data)
        if end == 0:
            continue
        offsets[key] = offsets.get(key, 0) + end
        lines.extend(f"[{name}] {line}" for line in data[:end].decode("utf-8", errors="replace").splitlines())
    return LogChunk(tuple(lines), json.dumps(offsets, sort_keys=True))


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
