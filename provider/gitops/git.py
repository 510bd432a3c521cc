"""Reading a repository with git plumbing: one process per question, every blob in one batch.

Paths are relative to the project directory (where the command runs, which holds ``specs/``
and ``stacks/``), also when the project is a subdirectory of the repository.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

from provider.core.errors import UserError
from provider.core.record import Record

DEFAULT_BASES = ("origin/main", "main", "HEAD")
# What GitHub (and git's hooks) give as the "before" of a push that created the branch: no commit.
NULL_IDS = frozenset({"0" * 40, "0" * 64})


class Entry(Record):
    """A file in a commit: its mode (100644, 100755, 120000) and blob id."""

    mode: str
    sha: str

    @property
    def executable(self) -> bool:
        return self.mode == "100755"

    @property
    def link(self) -> bool:
        """A symlink: the blob holds the path it points to."""
        return self.mode == "120000"


def blob_id(data: bytes, length: int = 40) -> str:
    """The id git gives a blob with this content (SHA-1, or SHA-256 in a sha256 repository)."""
    h = hashlib.sha1() if length == 40 else hashlib.sha256()
    h.update(b"blob %d\0" % len(data))
    h.update(data)
    return h.hexdigest()


class Git:
    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd.resolve()
        try:
            out = self._run("rev-parse", "--show-toplevel", "--show-prefix").decode()
        except FileNotFoundError as exc:
            raise UserError("git is not installed (trainjobs plan reads the specs from git)", exit_code=2) from exc
        except subprocess.CalledProcessError as exc:
            raise UserError(f"{self.cwd} is not inside a git repository: trainjobs plan compares git commits; "
                            "run it from the project directory of a git checkout", exit_code=2) from exc
        top, prefix = (out.split("\n") + ["", ""])[:2]
        self.top = Path(top)
        self.prefix = prefix  # "" or "sub/dir/"

    def _run(self, *args: str, data: bytes | None = None) -> bytes:
        env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
        return subprocess.run(["git", *args], cwd=self.cwd, input=data, capture_output=True, check=True,
                               env=env).stdout

    def run(self, *args: str, data: bytes | None = None) -> bytes:
        """git ``args`` in the project directory: its output (CalledProcessError on a non-zero exit)."""
        return self._run(*args, data=data)

    def commit(self, ref: str) -> str | None:
        """The commit a ref names, or None if it names none."""
        try:
            return self._run("rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}").decode().strip()
        except subprocess.CalledProcessError:
            return None

    def default_base(self) -> str:
        """origin/main if it exists, else main, else HEAD."""
        for ref in DEFAULT_BASES:
            if self.commit(ref):
                return ref
        raise UserError("no base to compare with: neither origin/main, main nor HEAD exists (a repository without "
                        "commits); commit first, or pass --base REF", exit_code=2)

    def resolve(self, ref: str | None) -> tuple[str, str]:
        """(ref, commit) for --base, or a usage error that says what exists."""
        ref = ref or self.default_base()
        if ref in NULL_IDS:  # the push created the branch: compare with nothing, so every stack is affected
            return ref, self.empty_tree()
        commit = self.commit(ref)
        if commit is None:
            raise UserError(f"--base {ref!r} is not a commit in this repository; allowed: a branch, tag or commit "
                            f"such as origin/main, main or HEAD~1 (in CI, check out with fetch-depth: 0 so the base "
                            f"branch is there)", exit_code=2)
        return ref, commit

    def empty_tree(self) -> str:
        """The id of the empty tree in this repository's hash (SHA-1 or SHA-256): a base with no files."""
        return self._run("hash-object", "-t", "tree", "--stdin", data=b"").decode().strip()

    def tree(self, commit: str) -> dict[str, Entry]:
        """Every file of the project directory in ``commit`` (submodules and directories left out)."""
        out: dict[str, Entry] = {}
        raw = self._run("ls-tree", "-r", "-z", "--full-tree", commit, "--", self.prefix or ".")
        for record in raw.split(b"\0"):
            if not record:
                continue
            meta, _, path = record.partition(b"\t")
            mode, kind, sha = meta.decode().split(" ")
            name = path.decode("utf-8", "surrogateescape")
            if kind == "blob" and name.startswith(self.prefix):
                out[name[len(self.prefix):]] = Entry(mode, sha)
        return out

    def blobs(self, shas: Iterable[str]) -> dict[str, bytes]:
        """The content of many blobs, read by one ``git cat-file --batch``."""
        wanted = sorted(set(shas))
        if not wanted:
            return {}
        raw = self._run("cat-file", "--batch", data="".join(s + "\n" for s in wanted).encode())
        out: dict[str, bytes] = {}
        pos = 0
        for sha in wanted:
            end = raw.index(b"\n", pos)
            header = raw[pos:end].decode().split(" ")
            if len(header) != 3:  # "<sha> missing"
                raise UserError(f"git cannot read the blob {sha} ({' '.join(header)})")
            size = int(header[2])
            out[sha] = raw[end + 1:end + 1 + size]
            pos = end + 1 + size + 1
        return out

    def worktree_files(self) -> list[str]:
        """The files of the working tree: tracked and untracked, not ignored, that exist on disk.

        A symlink is one of them whatever it points to (a folder, nothing, out of the repository):
        git keeps the link, and the plan reports a link it must not follow instead of losing it.
        """
        raw = self._run("ls-files", "-z", "--cached", "--others", "--exclude-standard")
        names = {p.decode("utf-8", "surrogateescape") for p in raw.split(b"\0") if p}
        return sorted(n for n in names if os.path.islink(self.cwd / n) or os.path.isfile(self.cwd / n))
