"""Where a gs:// object lives under the storage root: in place, or set aside.

Cloud Storage's names are flat: ``d`` and ``d/e`` are two objects, a segment may be 1024 bytes
long, and ``a//b``, ``a/./b`` or ``dir/`` are names like any other. A file system holds only
some of them as paths. So an object lives

* **in place**, as the file ``<root>/BUCKET/NAME``, wherever that path can hold it: what the
  trainers write through their job dirs and what the local backend reads (packages, outputs);
* **set aside**, as ``<root>/.objects/BUCKET/<sha256 of the name>/<its last segment>`` (or
  ``object`` when that segment cannot be a file name) with the name in ``<sha256>.name`` beside
  the folder, when it cannot: a segment longer than ``NAME_MAX`` bytes, an empty,
  ``.`` or ``..`` segment, a name ending in ``/``, or a path that is taken the other way (``d``
  is a file and ``d/e`` arrives, ``f/g`` exists and ``f`` arrives).

A name has at most one of the two files, so existing storage dirs (every object in place) read
as they always did. ``.objects`` cannot collide with a bucket: a bucket name starts with a
lower-case letter or digit.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path

NAME_MAX = 255  # bytes in one path segment (ext4, xfs, btrfs, tmpfs)
ASIDE = ".objects"


def _is_file(path: Path) -> bool:
    """Whether ``path`` is a file; False (not an error) for a path too long or through a file."""
    try:
        return path.is_file()
    except OSError:
        return False


def in_place(root: Path, bucket: str, name: str) -> Path | None:
    """The path that holds ``name`` in place, or None when no path can (see the module's list)."""
    parts = name.split("/")
    if any(p in ("", ".", "..") or len(p.encode("utf-8", "surrogateescape")) > NAME_MAX for p in parts):
        return None
    return root.joinpath(bucket, *parts)


def _folder(root: Path, bucket: str, name: str) -> Path:
    return root / ASIDE / bucket / hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()


def aside(root: Path, bucket: str, name: str) -> Path:
    """The file that holds ``name`` when it is set aside: its last segment, in a folder named by the name's hash.

    The last segment is kept because readers go by it (``trainer-0.1.tar.gz``, a wheel's name)."""
    base = name.rsplit("/", 1)[-1]
    if base in ("", ".", "..") or len(base.encode("utf-8", "surrogateescape")) > NAME_MAX:
        base = "object"
    return _folder(root, bucket, name) / base


def set_aside(root: Path, bucket: str, name: str) -> Path | None:
    """The set-aside file of ``name`` when the object lives there, else None."""
    path = aside(root, bucket, name)
    return path if _is_file(path) else None


def locate(root: Path, bucket: str, name: str) -> Path | None:
    """The file that holds object ``name`` now, or None when there is no such object."""
    found = set_aside(root, bucket, name)
    if found is not None:
        return found
    path = in_place(root, bucket, name)
    return path if path is not None and _is_file(path) else None


def _make_room(path: Path) -> bool:
    """Make the parents of ``path`` directories; False when a file (or a non-empty directory) is in the way."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:  # a parent is a file (NotADirectoryError, FileExistsError), or a path too long
        return False
    if path.is_dir():  # ``f/`` was emptied of ``f/g``: the name is free again
        with contextlib.suppress(OSError):
            path.rmdir()
    return not path.is_dir()


def place(root: Path, bucket: str, name: str, source: Path) -> Path:
    """Move the finished file ``source`` (on the same file system) into place as object ``name``."""
    path = in_place(root, bucket, name)
    if path is not None and _make_room(path):
        try:
            os.replace(source, path)  # atomic: a reader sees the old object or the new one
        except (IsADirectoryError, NotADirectoryError, FileExistsError):
            pass  # a directory appeared there meanwhile: set it aside
        else:
            remove_aside(root, bucket, name)
            return path
    target = aside(root, bucket, name)
    target.parent.mkdir(parents=True, exist_ok=True)
    label = _folder(root, bucket, name).with_suffix(".name")
    tmp = Path(f"{label}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_bytes(name.encode("utf-8", "surrogateescape"))
    os.replace(tmp, label)
    os.replace(source, target)
    return target


def remove_aside(root: Path, bucket: str, name: str) -> None:
    folder = _folder(root, bucket, name)
    with contextlib.suppress(FileNotFoundError):
        aside(root, bucket, name).unlink()
    with contextlib.suppress(OSError):
        folder.rmdir()
    with contextlib.suppress(FileNotFoundError):
        folder.with_suffix(".name").unlink()


def remove(root: Path, bucket: str, name: str) -> bool:
    """Delete object ``name``; False when there was none."""
    path = locate(root, bucket, name)
    if path is None:
        return False
    if path == aside(root, bucket, name):
        remove_aside(root, bucket, name)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    return True


def walk(root: Path, bucket: str) -> Iterator[tuple[str, Path]]:
    """Every object of a bucket, as (name, file), in no particular order."""
    base = root / bucket
    for dirpath, _dirs, files in os.walk(base):
        for f in files:
            path = Path(dirpath) / f
            yield path.relative_to(base).as_posix(), path
    folder = root / ASIDE / bucket
    if folder.is_dir():
        for label in folder.glob("*.name"):
            with contextlib.suppress(OSError):
                name = label.read_bytes().decode("utf-8", "surrogateescape")
                path = aside(root, bucket, name)
                if _is_file(path):
                    yield name, path
