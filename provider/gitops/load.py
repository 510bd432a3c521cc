"""Both sides of a plan: the base commit and the working tree of the project directory (a folder both
hold alike digested once: provider.gitops.shared)."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from provider.gitops.git import Git
from provider.gitops.shared import SharedFolders
from provider.gitops.side import Side
from provider.gitops.tree import CommitTree, WorkTree
from provider.packaging.digest import shared


@contextmanager
def sides(cwd: Path, base: str | None) -> Iterator[tuple[Side, Side]]:
    """(base, head); the base commit's package sources are written to a temporary directory."""
    git = Git(cwd)
    ref, commit = git.resolve(base)
    head = Side(WorkTree(git), check_paths=True)
    with tempfile.TemporaryDirectory(prefix="trainjobs-plan-") as scratch, shared():
        tree = CommitTree(git, ref, commit, Path(scratch))
        head.tree.shared = tree.shared = SharedFolders(git, commit, tree.entries)  # a folder both hold: one digest
        yield Side(tree, check_paths=False, reuse=head), head
