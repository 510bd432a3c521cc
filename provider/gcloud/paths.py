"""The local files and folders a gcloud command names (``--config``, ``--flags-file``, ``--package-path``).

gcloud reads them from the current directory; trainjobs reads only what the repository holds
(provider.document.boundary, issue 9), so each must resolve, every symlink followed, inside the
repository of the folder the command runs in. A file is then read by the one safe reader of spec
files (provider.document.files.read_file: regular files only, size-capped, never blocking on a
FIFO, never following a link out), and an error says where and why without quoting what it holds.
"""

from __future__ import annotations

import os
from pathlib import Path

from provider.gcloud.command import GcloudError


def in_repository(text: str, cwd: Path, flag: str, what: str) -> Path:
    """``text`` (a path of the command, read from ``cwd``) as an absolute path whose target is
    inside the repository; GcloudError naming the flag, where it leads and what is allowed."""
    from provider.document.boundary import inside, repository_root, resolve

    where = Path(os.path.abspath(cwd / text))
    allowed = f"allowed: {what} inside the repository (trainjobs reads only the repository's files)"
    target = resolve(where)
    if target.path is None:
        raise GcloudError(f"{flag} {text}: {target.problem}; {allowed}")
    root = Path(os.path.realpath(repository_root(cwd)))
    if not inside(target.path, root):
        raise GcloudError(f"{flag} {text} resolves to {target.path}, outside the repository {root}; {allowed}")
    return where


def read(text: str, cwd: Path, flag: str) -> tuple[bytes, str]:
    """The bytes of the file ``text`` names (inside the repository, read safely), and its name as shown."""
    from provider.document.files import display_name, read_file

    where = in_repository(text, cwd, flag, "a file")
    shown = display_name(where)
    raw, problem = read_file(where, shown)
    if raw is None:
        reason = problem.message if problem is not None else "cannot be read"
        raise GcloudError(f"{flag} {text}: {reason}; allowed: a regular file of at most 1 MiB inside the repository")
    return raw, shown
