"""Folders the two sides of a plan share, proven cheaply, so that each is digested once.

A plan digests a job's local trainer (its package folder, with the build files beside it) and a
build context on each side: the base commit's copy in a scratch folder, and the working tree's.
Where the working tree's folder holds exactly the commit's files, both digests are the same
digest, so it is made once (provider.packaging.digest ``shared``/``same``/``once``).

The proof costs no read of the files' content, and three git processes per plan whatever the
number of folders (``prepare``, given every folder the plan may digest): git compares the
project's working tree with the commit through its index's stat cache (``git diff --name-only
COMMIT``, re-hashing only a file whose stat changed), ``git check-attr --stdin`` reads the
attributes of the folders' files, and ``git ls-files --others --directory`` lists what git does not
track (an untracked folder as one name). A folder is shared only when all of these hold, else each
side digests its own as before:
* git sees no difference there, with the exec bit compared, no line-ending conversion
  (``core.fileMode=true``, ``core.autocrlf=false``) and no rename pairing (a file moved out of the
  folder is a file gone from it), and no file there has a conversion attribute (``text``, ``eol``,
  ``filter``, ``ident``, ``working-tree-encoding``, ``crlf``): so equal to git is equal bytes,
  which the digests read;
* no untracked file or folder there but what both digests skip (a ``__pycache__`` or other
  skipped folder, a ``.pyc``);
* no symlink in or above it in the commit (a link reads differently from the scratch copy).
The key of a shared folder is its files' names, modes and blob ids in the commit.
"""

from __future__ import annotations

import hashlib
import posixpath
import subprocess
from collections.abc import Iterable

from provider.gitops.git import Entry, Git
from provider.packaging.files import SKIP_DIRS

ATTRIBUTES = ("text", "eol", "filter", "ident", "working-tree-encoding", "crlf")
_NO_CONVERSION = {"unspecified", "unset"}

Folder = tuple[str, tuple[str, ...]]  # a folder relative to the project, and the names of files beside it


def _skipped(path: str) -> bool:
    """A file neither digest reads (provider.packaging.files.source_files, digest.directory_digest);
    a folder (``name/``, as ``ls-files --directory`` gives an untracked one) whose name they skip."""
    return path.endswith((".pyc", ".pyo")) or any(part in SKIP_DIRS for part in path.split("/")[:-1])


def _with_folders(paths: Iterable[str]) -> set[str]:
    """The paths, and every folder above each of them."""
    out: set[str] = set()
    for path in paths:
        path = path.rstrip("/")
        while path and path not in out:
            out.add(path)
            path = posixpath.dirname(path)
    return out


def _lines(raw: bytes) -> list[str]:
    return [p.decode("utf-8", "surrogateescape") for p in raw.split(b"\0") if p]


class SharedFolders:
    """Which folders of the working tree hold exactly what ``entries`` (the base commit's files) hold."""

    def __init__(self, git: Git, commit: str, entries: dict[str, Entry]) -> None:
        self.git = git
        self.commit = commit
        self.entries = entries
        self._keys: dict[Folder, str | None] = {}

    def key(self, folder: str, beside: tuple[str, ...] = ()) -> str | None:
        """The key of ``folder`` (relative to the project) and the files named ``beside`` it, when the
        working tree and the commit hold the same there; None when that is not proven. A folder not
        given to ``prepare`` costs a proof of its own."""
        wanted = (posixpath.normpath(folder), beside)
        if wanted not in self._keys:
            self.prepare([wanted])
        return self._keys[wanted]

    def prepare(self, folders: Iterable[Folder]) -> None:
        """Prove all these folders at once: three git processes, however many they are."""
        listed: dict[Folder, list[tuple[str, Entry]]] = {}
        for folder, beside in folders:
            wanted = (posixpath.normpath(folder), beside)
            if wanted not in self._keys:
                files = self._files(*wanted)
                self._keys[wanted] = None
                if files:
                    listed[wanted] = files
        if not listed:
            return
        paths = sorted({p for files in listed.values() for p, _ in files})
        differ = self._differ(paths)
        for (folder, beside), files in listed.items():
            near = [posixpath.join(posixpath.dirname(folder), name) for name in beside]
            if differ is None or folder in differ or any(p in differ for p in near):
                continue
            text = f"{folder}\0{beside}\0" + "".join(f"{p}\0{e.mode}\0{e.sha}\0" for p, e in files)
            self._keys[(folder, beside)] = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()

    def _files(self, folder: str, beside: tuple[str, ...]) -> list[tuple[str, Entry]]:
        """The commit's files of ``folder`` and beside it; none when it cannot be shared (no files, a
        link among them, a file or link where the folder or one above it should be)."""
        if folder in (".", "..") or folder.startswith(("../", "/")):
            return []
        parent = posixpath.dirname(folder)
        files = sorted((p, e) for p, e in self.entries.items() if p.startswith(folder + "/"))
        files += [(p, self.entries[p]) for name in beside if (p := posixpath.join(parent, name)) in self.entries]
        above = [folder]
        while parent:
            above.append(parent)
            parent = posixpath.dirname(parent)
        if any(e.link for _, e in files) or any(a in self.entries for a in above):
            return []
        return files

    def _differ(self, paths: list[str]) -> set[str] | None:
        """The paths of the project (and the folders above them) where the working tree may differ
        from the commit: changed or untracked there, or a file of ``paths`` with a conversion
        attribute; None when git could not tell."""
        git = self.git
        try:
            changed = git.run("-c", "core.fileMode=true", "-c", "core.autocrlf=false", "diff", "--name-only", "-z",
                              "--relative", "--no-renames", "--no-ext-diff", "--no-textconv", self.commit, "--")
            attrs = git.run("check-attr", "--stdin", "-z", *ATTRIBUTES,
                            data="".join(p + "\0" for p in paths).encode("utf-8", "surrogateescape"))
            others = git.run("ls-files", "-z", "--others", "--directory", "--no-empty-directory")
        except (OSError, subprocess.CalledProcessError):
            return None
        fields = _lines(attrs)  # path, attribute, value, for each path and attribute
        converted = [p for p, value in zip(fields[0::3], fields[2::3]) if value not in _NO_CONVERSION]
        untracked = [p for p in _lines(others) if not _skipped(p)]
        return _with_folders(_lines(changed) + converted + untracked)
