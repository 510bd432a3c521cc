"""One side of a plan: the files of a git commit, or of the working tree.

Both answer the same questions: which files there are, what a file holds (many at once), and
where a directory's content lies on disk, so a package digest is computed by the same code on
both sides. A commit's directories are written into a temporary directory when first asked.

Both follow a symlink only to a regular file inside the repository (provider.document.boundary
for the working tree; within the commit's own files for a commit). A file that cannot be read
so is in ``unreadable`` with one message, and ``link_problems`` names every symlink in the
project's folders that leads to a folder, nowhere, or out of the repository: git keeps only the
link, so what is behind it would otherwise vanish from the plan in silence.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from provider.core.problem import Problem
from provider.document import boundary
from provider.document.files import read_file
from provider.gitops.git import Entry, Git, blob_id
from provider.gitops.shared import SharedFolders

MAX_HOPS = 40  # links followed in a row, as the kernel's limit (ELOOP)
LINK_ALLOWED = "a regular file or folder, or a symlink to a regular file inside the repository"


def _link_problem(path: str, what: str) -> Problem:
    return Problem(file=path, message=f"{what}; trainjobs plan does not follow it", allowed=LINK_ALLOWED,
                   rule="file.symlink")


def _under(path: str, folders: tuple[str, ...]) -> bool:
    return any(path == f or path.startswith(f + "/") for f in folders)


class Tree(Protocol):
    label: str  # "working tree", or "main (1a2b3c4)"
    root: Path  # where local_dir() puts what it is asked for
    unreadable: dict[str, Problem]  # files read() could not read, and why
    shared: SharedFolders | None  # the folders both sides of the plan hold alike (None: not known)

    def paths(self) -> list[str]:
        """Every file, relative to the project directory, sorted."""
        ...

    def read(self, paths: Iterable[str]) -> dict[str, bytes]:
        """The content of these files (a file that cannot be read is left out)."""
        ...

    def local_dir(self, rel: str) -> Path:
        """A directory on disk holding ``rel`` as this tree has it, and the files beside it."""
        ...

    def link_problems(self, folders: tuple[str, ...]) -> dict[str, Problem]:
        """The symlinks in ``folders`` (or that are one of them) that lead anywhere but to a
        regular file inside the repository."""
        ...


class WorkTree:
    label = "working tree"

    def __init__(self, git: Git) -> None:
        self.git = git
        self.root = git.cwd
        self._paths: list[str] | None = None
        # Files that are there but cannot be read as a spec (a link out of the repository, a loop,
        # not a regular file): the plan reports each, with the reader's one message.
        self.unreadable: dict[str, Problem] = {}
        self.shared: SharedFolders | None = None

    def paths(self) -> list[str]:
        if self._paths is None:
            self._paths = self.git.worktree_files()
        return self._paths

    def read(self, paths: Iterable[str]) -> dict[str, bytes]:
        out = {}
        for p in paths:
            data, problem = read_file(self.root / p, p)
            if data is not None:
                out[p] = data
            elif problem is not None:
                self.unreadable[p] = problem
        return out

    def local_dir(self, rel: str) -> Path:
        return self.root / rel

    def link_problems(self, folders: tuple[str, ...]) -> dict[str, Problem]:
        out = {}
        top = Path(os.path.realpath(self.git.top))
        for p in self.paths():
            full = self.root / p
            if not _under(p, folders) or not os.path.islink(full):
                continue
            target = boundary.resolve(full)
            if target.path is None:
                out[p] = _link_problem(p, f"the path {target.problem}")
            elif not boundary.inside(target.path, top):
                out[p] = _link_problem(p, "a symlink to a target outside the repository")
            elif target.path.is_dir():
                out[p] = _link_problem(p, "a symlink to a folder (git keeps the link, not the files behind it)")
        return out


class CommitTree:
    def __init__(self, git: Git, ref: str, commit: str, scratch: Path) -> None:
        self.git = git
        self.ref = ref
        self.commit = commit
        self.label = f"{ref} ({commit[:7]})"
        self.root = scratch
        self.entries: dict[str, Entry] = git.tree(commit)
        self._written: set[str] = set()
        self._known: dict[str, bytes] = {}
        self.unreadable: dict[str, Problem] = {}
        self.shared: SharedFolders | None = None

    def reuse(self, files: Iterable[bytes]) -> None:
        """Contents read elsewhere (the working tree): blobs with the same id need no reading."""
        length = len(next(iter(self.entries.values())).sha) if self.entries else 40
        self._known.update((blob_id(data, length), data) for data in files)

    def paths(self) -> list[str]:
        return sorted(self.entries)

    def _blob(self, sha: str) -> bytes:
        if sha not in self._known:
            self._known.update(self.git.blobs([sha]))
        return self._known[sha]

    def follow(self, path: str) -> tuple[str | None, str | None]:
        """(the regular file ``path`` leads to, None), or (None, why it leads to none), within the commit."""
        for _ in range(MAX_HOPS):
            entry = self.entries.get(path)
            if entry is None:
                folder = any(p.startswith(path + "/") for p in self.entries)
                return None, "a symlink to a folder (git keeps the link, not the files behind it)" if folder \
                    else "a dangling symlink (its target is not in the commit)"
            if not entry.link:
                return path, None
            target = self._blob(entry.sha).decode("utf-8", "surrogateescape")
            step = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
            if target.startswith("/") or step == ".." or step.startswith("../"):
                return None, "a symlink to a target outside the repository"
            path = step
        return None, "a symlink loop (or a chain of links too long to follow)"

    def read(self, paths: Iterable[str]) -> dict[str, bytes]:
        wanted: dict[str, str] = {}
        for p in paths:
            if p not in self.entries:
                continue
            real, why = self.follow(p) if self.entries[p].link else (p, None)
            if real is None:
                self.unreadable[p] = _link_problem(f"{p} (in {self.label})", f"the file is {why}")
            else:
                wanted[p] = self.entries[real].sha
        self._known.update(self.git.blobs(sha for sha in wanted.values() if sha not in self._known))
        return {p: self._known[sha] for p, sha in wanted.items()}

    def link_problems(self, folders: tuple[str, ...]) -> dict[str, Problem]:
        out = {}
        for p, entry in self.entries.items():
            if entry.link and _under(p, folders):
                real, why = self.follow(p)
                if real is None:
                    out[p] = _link_problem(f"{p} (in {self.label})", f"the file is {why}")
        return out

    def local_dir(self, rel: str) -> Path:
        rel = posixpath.normpath(rel)
        if rel == ".." or rel.startswith(("../", "/")):  # outside the project: the commit has no such files
            return self.root / ".outside-the-project"
        if rel not in self._written:
            self._written.add(rel)
            parent = posixpath.dirname(rel)
            inside = [p for p in self.entries if p.startswith(rel + "/")]
            beside = [p for p in self.entries if posixpath.dirname(p) == parent and p != rel]
            links = [p for p in inside + beside if self.entries[p].link]
            files = self.read(p for p in inside + beside if not self.entries[p].link)
            for p, data in files.items():
                target = self.root / p
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                if self.entries[p].executable:
                    os.chmod(target, 0o755)
            for p in links:  # a link stays a link, as the working tree has it (never followed there)
                (self.root / p).parent.mkdir(parents=True, exist_ok=True)
                os.symlink(self._blob(self.entries[p].sha).decode("utf-8", "surrogateescape"), self.root / p)
        return self.root / rel
