"""Both sides of a plan: the base commit and the working tree of the project directory."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from provider.gitops.git import Git
from provider.gitops.side import Side
from provider.gitops.tree import CommitTree, WorkTree


@contextmanager
def sides(cwd: Path, base: str | None) -> Iterator[tuple[Side, Side]]:
    """(base, head); the base commit's package sources are written to a temporary directory."""
    git = Git(cwd)
    ref, commit = git.resolve(base)
    head = Side(WorkTree(git), check_paths=True)
    with tempfile.TemporaryDirectory(prefix="trainjobs-plan-") as scratch:
        yield Side(CommitTree(git, ref, commit, Path(scratch)), check_paths=False, reuse=head), head
