"""Folders the two sides of a plan share, proven cheaply, so that each is digested once.

A plan digests a job's local trainer (its package folder, with the build files beside it) and a
build context on each side: the base commit's copy in a scratch folder, and the working tree's.
Where the working tree's folder holds exactly the commit's files, both digests are the same
digest, so it is made once (provider.packaging.digest ``shared``/``same``/``once``).

The proof costs no read of the files' content: git compares the working tree with the commit
through its index's stat cache (``git diff --quiet COMMIT -- FOLDER``, re-hashing only a file
whose stat changed), and ``git ls-files --others`` lists the files git does not track there. The
folder is shared only when all of these hold, else each side digests its own as before:
* git sees no difference, with the exec bit compared and no line-ending conversion
  (``core.fileMode=true``, ``core.autocrlf=false``), and no file there has a conversion
  attribute (``text``, ``eol``, ``filter``, ``ident``, ``working-tree-encoding``, ``crlf``): so
  equal to git is equal bytes, which the digests read;
* no untracked file there but what both digests skip (a ``__pycache__`` or other skipped folder,
  a ``.pyc``);
* no symlink in or above it in the commit (a link reads differently from the scratch copy).
The key of a shared folder is its files' names, modes and blob ids in the commit.
"""

from __future__ import annotations

import hashlib
import posixpath
import subprocess

from provider.gitops.git import Entry, Git
from provider.packaging.files import SKIP_DIRS

ATTRIBUTES = ("text", "eol", "filter", "ident", "working-tree-encoding", "crlf")
_NO_CONVERSION = {"unspecified", "unset"}


def _skipped(path: str) -> bool:
    """A file neither digest reads (provider.packaging.files.source_files, digest.directory_digest)."""
    return path.endswith((".pyc", ".pyo")) or any(part in SKIP_DIRS for part in path.split("/")[:-1])


class SharedFolders:
    """Which folders of the working tree hold exactly what ``entries`` (the base commit's files) hold."""

    def __init__(self, git: Git, commit: str, entries: dict[str, Entry]) -> None:
        self.git = git
        self.commit = commit
        self.entries = entries
        self._keys: dict[tuple[str, tuple[str, ...]], str | None] = {}

    def key(self, folder: str, beside: tuple[str, ...] = ()) -> str | None:
        """The key of ``folder`` (relative to the project) and the files named ``beside`` it, when the
        working tree and the commit hold the same there; None when that is not proven."""
        folder = posixpath.normpath(folder)
        if folder in (".", "..") or folder.startswith(("../", "/")):
            return None
        if (folder, beside) not in self._keys:
            self._keys[(folder, beside)] = self._key(folder, beside)
        return self._keys[(folder, beside)]

    def _key(self, folder: str, beside: tuple[str, ...]) -> str | None:
        parent = posixpath.dirname(folder)
        files = sorted((p, e) for p, e in self.entries.items() if p.startswith(folder + "/"))
        near = [posixpath.join(parent, name) for name in beside]
        files += [(p, self.entries[p]) for p in near if p in self.entries]
        above = [folder]  # a file or link where the folder or a folder above it should be
        while parent:
            above.append(parent)
            parent = posixpath.dirname(parent)
        if not files or any(e.link for _, e in files) or any(a in self.entries for a in above):
            return None
        specs = [f":(literal){folder}/", *(f":(literal){p}" for p in near)]
        if not self._unchanged(specs, [p for p, _ in files]):
            return None
        listed = f"{folder}\0{beside}\0" + "".join(f"{p}\0{e.mode}\0{e.sha}\0" for p, e in files)
        return hashlib.sha256(listed.encode("utf-8", "surrogateescape")).hexdigest()

    def _unchanged(self, specs: list[str], paths: list[str]) -> bool:
        git = self.git
        try:
            git.run("-c", "core.fileMode=true", "-c", "core.autocrlf=false", "diff", "--quiet",
                          "--no-ext-diff", "--no-textconv", self.commit, "--", *specs)
            attrs = git.run("check-attr", "--stdin", "-z", *ATTRIBUTES,
                                  data="".join(p + "\0" for p in paths).encode("utf-8", "surrogateescape"))
            others = git.run("ls-files", "-z", "--others", "--", *specs)
        except (OSError, subprocess.CalledProcessError):  # a difference (exit 1), or git could not tell
            return False
        values = attrs.split(b"\0")[2::3]
        if any(v.decode() not in _NO_CONVERSION for v in values):
            return False
        return all(_skipped(p.decode("utf-8", "surrogateescape")) for p in others.split(b"\0") if p)
