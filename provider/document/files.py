"""Spec and stack files on disk: which ones a run checks, how each is named, read safely.

``expand`` turns the paths given into the spec files under them; ``SpecFile`` resolves one
file's path once (where it really is, how messages name it); ``read_file`` reads it within the
size limit, following a symlink only to a regular file inside the repository that holds it
(provider.document.boundary). Nothing here parses what it reads.

``open_inside`` and ``read_inside`` are the one safe read of trainjobs, whatever it reads: spec
and stack files (``read_file``), a package's files (provider.packaging), the files a directory
digest hashes (a build context, provider.packaging.digest) and a saved plan (the console). One
strength: a regular file only, a symlink followed only to a regular file inside the boundary,
never more than the limit in memory, opened without following a link put in its place meanwhile
and without waiting on a FIFO.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from provider.core.problem import Problem
from provider.core.record import Record
from provider.document.boundary import file_kind, inside, repository_root, resolve
from provider.document.loaded import MAX_BYTES

SPEC_SUFFIXES = (".yaml", ".yml")


class Refused(Exception):
    """Why a file was not read: its rule (file.symlink, file.type, file.size) and the message (it
    quotes nothing from the file, nor from where a link leads)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


def open_inside(path: str | Path, root: Path | None = None) -> tuple[int, os.stat_result]:
    """An open descriptor on the regular file ``path``, and its stat; Refused or OSError otherwise.

    A symlink is followed only to a regular file inside ``root`` (default: the repository that
    holds the link, provider.document.boundary). A file that was not a symlink when looked at is
    opened without following one, and without waiting (a FIFO put there does not block).
    """
    st = os.lstat(path)
    flags = _READ_FLAGS | os.O_NOFOLLOW
    if stat.S_ISLNK(st.st_mode):
        _check_link(Path(path), root)
        st = os.stat(path)
        flags = _READ_FLAGS
    if not stat.S_ISREG(st.st_mode):
        raise Refused("file.type", f"not a regular file (it is {file_kind(st.st_mode)})")
    return os.open(path, flags), st


def read_inside(path: str | Path, limit: int = MAX_BYTES, root: Path | None = None) -> bytes:
    """The bytes of the regular file ``path`` (``open_inside``): Refused when it is larger than
    ``limit``; one that grew since it was looked at is read to one byte past the limit at most."""
    fd, st = open_inside(path, root)
    if st.st_size > limit:
        os.close(fd)
        raise Refused("file.size", f"the file is {st.st_size:,} bytes, larger than the {limit:,}-byte limit")
    return _read_at_most(fd, st.st_size, limit)


def read_file(path: str | Path, shown: str) -> tuple[bytes | None, Problem | None]:
    """Read a spec or stack file safely (``read_inside``), or the one problem that says why not."""
    try:
        return read_inside(path), None
    except Refused as refused:
        if refused.rule == "file.size":
            return None, Problem(file=shown, line=1, column=1, rule="file.size", message=refused.message,
                                 allowed="spec files up to 1 MiB")
        allowed = "YAML spec files" if refused.rule == "file.type" else \
            "a spec or stack file inside the repository, or a symlink to a regular file inside it"
        return None, Problem(file=shown, message=refused.message, allowed=allowed, rule=refused.rule)
    except OSError as exc:
        return None, Problem(file=shown, message=f"cannot read the file: {exc.strerror or exc}", rule="file.read",
                             allowed="a readable file")


# os.open and os.read, not open(): no buffered file object, no isatty or seek per file (a run
# reads thousands of small files).
_READ_FLAGS = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK


def _read_at_most(fd: int, size: int, limit: int) -> bytes:
    """What the open ``fd`` holds (``size`` bytes when looked at), and on to one byte past the
    limit if it grew since; the descriptor is closed."""
    try:
        data = os.read(fd, size + 1)
        if len(data) > size:  # it grew: read on (one read need not return all that is there)
            while len(data) <= limit and (more := os.read(fd, limit + 1 - len(data))):
                data += more
        return data
    finally:
        os.close(fd)


def _check_link(link: Path, root: Path | None) -> None:
    """Refused when the symlink ``link`` leads nowhere, or out of ``root`` (default: its repository)."""
    target = resolve(link)
    if target.path is None:
        raise Refused("file.symlink", f"the file {target.problem}")
    boundary = root if root is not None else repository_root(Path(os.path.abspath(link)).parent)
    if not inside(target.path, boundary):
        what = "the repository" if root is None else "its folder"
        raise Refused("file.symlink", f"the file is a symlink to a target outside {what} ({boundary}); it was not read")


def real_path(path: Path) -> Path:
    """``path`` with its symlinks followed as far as they go; a loop never raises."""
    return Path(os.path.realpath(path))


def expand(paths: Iterable[str]) -> tuple[list[str], list[Problem]]:
    """Files and directories -> the spec files under them (sorted), and paths that do not exist.

    Strings, not Paths: a run over a large tree makes one for each of thousands of files.
    """
    files: list[str] = []
    problems: list[Problem] = []
    for raw in paths:
        if os.path.isdir(raw):
            for dirpath, dirnames, filenames in os.walk(raw):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                files.extend(os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(SPEC_SUFFIXES))
        elif os.path.lexists(raw):
            files.append(raw)
        else:
            problems.append(Problem(file=raw, message="no such file or directory", rule="file.missing",
                                    allowed="spec files or directories"))
    return files, problems


def display_name(path: Path) -> str:
    """How a file is named in messages: relative to the current directory when it is below it."""
    return SpecFile.of(path, real_path(Path.cwd())).shown


class SpecFile(Record):
    """One file to check, its path resolved once: as given, where it really is, as shown."""

    given: str
    real: Path  # every symlink followed (as far as they go)
    shown: str  # the name in messages (display_name)

    @classmethod
    def of(cls, path: str | Path, cwd: Path, real_dirs: dict[str, str] | None = None) -> SpecFile:
        """``cwd``: the current directory, already resolved (once per run, not per file).

        ``real_dirs`` remembers each directory's real path across the files of one run: a file
        that is not a symlink is then where its directory really is, without resolving it again.
        """
        given = os.fspath(path)
        if real_dirs is None or os.path.islink(given):
            text = os.path.realpath(given)
        else:  # on strings: this runs for every file of a run
            directory, name = os.path.split(given)
            real_dir = real_dirs.get(directory)
            if real_dir is None:
                real_dir = real_dirs[directory] = os.path.realpath(directory or os.curdir)
            text = os.path.join(real_dir, name)
        # real.relative_to(cwd), on strings: both are absolute and normalised (realpath)
        base = str(cwd)
        prefix = base if base.endswith(os.sep) else base + os.sep
        shown = text[len(prefix):] if text.startswith(prefix) else "." if text == base else _as_given(given)
        return cls(given, Path(text), shown)


def _as_given(path: str) -> str:
    """``str(Path(path))``: a path as given, its empty and ``.`` parts left out.

    ``os.path.normpath`` gives the same for a path without ``..`` (which it would fold, and
    Path keeps), in a tenth of the time.
    """
    return os.path.normpath(path) if ".." not in path else str(Path(path))
