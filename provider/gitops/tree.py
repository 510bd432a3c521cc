"""One side of a plan: the files of a git commit, or of the working tree.

Both answer the same questions: which files there are, what a file holds (many at once), and
where a directory's content lies on disk, so a package digest is computed by the same code on
both sides. A commit's directories are written into a temporary directory when first asked.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from provider.core.problem import Problem
from provider.document.files import read_file
from provider.gitops.git import Entry, Git, blob_id


class Tree(Protocol):
    label: str  # "working tree", or "main (1a2b3c4)"
    root: Path  # where local_dir() puts what it is asked for

    def paths(self) -> list[str]:
        """Every file, relative to the project directory, sorted."""
        ...

    def read(self, paths: Iterable[str]) -> dict[str, bytes]:
        """The content of these files (a file that cannot be read is left out)."""
        ...

    def local_dir(self, rel: str) -> Path:
        """A directory on disk holding ``rel`` as this tree has it, and the files beside it."""
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

    def reuse(self, files: Iterable[bytes]) -> None:
        """Contents read elsewhere (the working tree): blobs with the same id need no reading."""
        length = len(next(iter(self.entries.values())).sha) if self.entries else 40
        self._known.update((blob_id(data, length), data) for data in files)

    def paths(self) -> list[str]:
        return sorted(self.entries)

    def read(self, paths: Iterable[str]) -> dict[str, bytes]:
        wanted = {p: self.entries[p].sha for p in paths if p in self.entries}
        self._known.update(self.git.blobs(sha for sha in wanted.values() if sha not in self._known))
        return {p: self._known[sha] for p, sha in wanted.items()}

    def local_dir(self, rel: str) -> Path:
        rel = posixpath.normpath(rel)
        if rel == ".." or rel.startswith(("../", "/")):  # outside the project: the commit has no such files
            return self.root / ".outside-the-project"
        if rel not in self._written:
            self._written.add(rel)
            parent = posixpath.dirname(rel)
            inside = [p for p in self.entries if p.startswith(rel + "/")]
            beside = [p for p in self.entries if posixpath.dirname(p) == parent and p != rel]
            files = self.read(inside + beside)
            for p, data in files.items():
                target = self.root / p
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                if self.entries[p].executable:
                    os.chmod(target, 0o755)
        return self.root / rel
