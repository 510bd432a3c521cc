"""The repository boundary: what trainjobs may read on behalf of a spec.

A spec can name local paths (a package path, a build context), and a spec or stack file can
itself be a symlink. trainjobs runs on pull requests, so whatever a spec names must resolve,
after following every symlink, inside the repository that holds the spec:

* the git work tree that holds it (the nearest directory above it with a ``.git``), or
* when there is none, the project root: the nearest directory above it with a ``Pulumi.yaml``,
  else the git work tree or project root of the current directory (where trainjobs runs),
  else the current directory.

Nothing here reads a file: only ``lstat``/``stat`` and directory names. A symlink loop, or a
link chain too long to follow, is reported as such and never raises.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from provider.core.record import Record

REPOSITORY_MARKERS = (".git",)
PROJECT_MARKERS = ("Pulumi.yaml",)


def _find_up(start: Path, markers: tuple[str, ...]) -> Path | None:
    for directory in (start, *start.parents):
        if any(os.path.lexists(directory / m) for m in markers):
            return directory
    return None


def _real(path: Path) -> Path:
    """``path`` with every symlink followed, as far as that goes (never raises on loops)."""
    return Path(os.path.realpath(path))


# Directory -> its boundary, while a run that checks many files holds ``memo()`` open.
_roots: dict[Path, Path] | None = None


@contextmanager
def memo() -> Iterator[None]:
    """Within this block, each directory's boundary is looked up once (``validate`` of many specs).

    Outside it every call looks again: a long-lived process (the console, the emulator) sees a
    repository created after it started.
    """
    global _roots
    outer, _roots = _roots, ({} if _roots is None else _roots)
    try:
        yield
    finally:
        _roots = outer


# (cwd, directory) -> (its boundary, the directories its lookup read, their stat), once ``watch()``.
_watched: dict[tuple[str, Path], tuple[Path, tuple[str, ...], tuple[tuple[int, ...], ...]]] | None = None


def watch() -> None:
    """From now on in this process, a directory's boundary is looked up again only when a directory
    the lookup read has changed (its inode, mtime, ctime or link count), however many specs share it.

    For a process that checks many specs over its life with no run to scope ``memo()`` to: the
    Pulumi provider's host, which Checks every job of a stack, one call each (issue 31). What it
    remembers is re-validated on every call (a few ``stat``s instead of the lookup's ``lstat`` per
    component and per marker), so a tree changed since (a new ``.git``, a moved symlink) gets its
    new answer. As git does with its index ("racy git"), an answer is remembered only when every
    directory it read last changed more than ``RACY_NS`` before the lookup: a file system stamps a
    change with a coarse clock (a tick of 1-10 ms on Linux, up to 2 s elsewhere), so a second change
    within the tick of one already seen could leave the times as they were; one made a tick after
    the lookup always moves them.
    """
    global _watched
    if _watched is None:
        _watched = {}


def _chain(path: str) -> list[str]:
    out = [path]
    while (parent := os.path.dirname(out[-1])) != out[-1]:
        out.append(parent)
    return out


# A change this recent (ns) may share its time stamp with the next one: its lookup is not remembered.
RACY_NS = 2_000_000_000


def _stats(dirs: tuple[str, ...]) -> tuple[tuple[int, ...], ...] | None:
    out = []
    for directory in dirs:
        try:
            st = os.stat(directory)
        except (OSError, ValueError):
            return None  # cannot be watched: looked up each time
        out.append((st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_nlink))
    return tuple(out)


def _watched_root(start: Path, watched: dict[tuple[str, Path], tuple[Path, tuple[str, ...],
                                                                     tuple[tuple[int, ...], ...]]]) -> Path:
    cwd = os.getcwd()
    key = (cwd, start)
    seen = watched.get(key)
    if seen is not None and _stats(seen[1]) == seen[2]:
        return seen[0]
    here = os.path.join(cwd, start)
    # every directory the lookup reads: the path as written (a symlink on it moved changes what its
    # stat follows to), where it really is, and the current directory (the fallback), and above
    dirs = tuple(dict.fromkeys([*_chain(here), *_chain(os.path.realpath(here)), *_chain(os.path.realpath(cwd))]))
    now = time.time_ns()
    stats = _stats(dirs)  # before the lookup: a change during it is seen by the next call
    found = _repository_root(start)
    if stats is not None and all(st[3] < now - RACY_NS for st in stats):  # st[3]: ctime, moved by any change
        watched[key] = (found, dirs, stats)
    else:
        watched.pop(key, None)
    return found


def repository_root(start: Path) -> Path:
    """The boundary for a spec whose directory is ``start`` (see the module docstring)."""
    if _roots is None:
        return _repository_root(start) if _watched is None else _watched_root(start, _watched)
    found = _roots.get(start)
    if found is None:
        found = _roots[start] = _repository_root(start)
    return found


def _repository_root(start: Path) -> Path:
    here = _real(start if start.is_absolute() else Path.cwd() / start)
    found = _find_up(here, REPOSITORY_MARKERS) or _find_up(here, PROJECT_MARKERS)
    if found is not None:
        return found
    cwd = _real(Path.cwd())
    return _find_up(cwd, REPOSITORY_MARKERS) or _find_up(cwd, PROJECT_MARKERS) or cwd


def inside(path: Path, root: Path) -> bool:
    """True if ``path`` (already resolved) is ``root`` or below it."""
    return path == root or root in path.parents


class Resolved(Record):
    """Where a path leads: its real location, or why it leads nowhere usable."""

    path: Path | None  # the resolved path, when it resolves
    problem: str | None = None  # "is a symlink loop", "does not exist", ...


def resolve(path: Path) -> Resolved:
    """Follow ``path``'s symlinks strictly: a loop or a dangling link is a problem, not an exception."""
    if "\x00" in str(path):
        return Resolved(None, "is not a valid path (it contains a NUL character)")
    try:
        return Resolved(Path(os.path.realpath(path, strict=True)))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return Resolved(None, "is a symlink loop (or a chain of links too long to follow)")
        if exc.errno == errno.ENOENT:
            # A missing directory before a '..' (dir/missing/../x): resolved as Path.resolve() does.
            loose = os.path.realpath(path)
            if os.path.exists(loose) and os.path.realpath(loose, strict=True) == loose:
                return Resolved(Path(loose))
            return Resolved(None, "is a dangling symlink" if os.path.islink(path) else "does not exist")
        return Resolved(None, f"cannot be followed: {exc.strerror or exc}")
    except RuntimeError:  # pragma: no cover - Python < 3.13 may raise this on loops
        return Resolved(None, "is a symlink loop (or a chain of links too long to follow)")


def file_kind(mode: int) -> str:
    """A word for what a stat mode is, for messages ("a FIFO", "a directory")."""
    kinds = ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symlink"),
             (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"))
    return next((word for test, word in kinds if test(mode)), "a special file")
