"""Loading and naming the emulator's own record files (PersistentResources, TensorBoard and
metadata resources): one JSON file per resource, named by a digest of its resource name.

A file that cannot be read, or is not a record of its kind, is left as it is and named in the
caller's ``unreadable`` list (the server prints it at start); the others load.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from provider.backends.local.store import Unreadable, private_dir, read_json

Json = dict[str, Any]


def load(folder: Path, is_record: Callable[[object], bool], what: str, unreadable: list[str]) -> Iterator[Json]:
    """Each readable record of ``folder`` (made private first); ``what`` names the kind in the message
    of a file that is not one."""
    private_dir(folder)
    for path in sorted(folder.glob("*.json")):
        try:
            record = read_json(path)
        except Unreadable as exc:
            unreadable.append(f"{path}: {exc.reason}")
            continue
        if record is None:
            continue
        if not is_record(record):
            unreadable.append(f"{path}: not {what}")
            continue
        yield record


def file_of(folder: Path, name: str) -> Path:
    """The file of the resource ``name`` in ``folder``."""
    return folder / (hashlib.sha256(name.encode()).hexdigest()[:32] + ".json")
