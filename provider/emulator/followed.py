"""The jobs the emulator follows without a read (run_watch.py), kept in the state dir.

A job is followed when the emulator made an experiment run for it or it logs to a TensorBoard;
what is followed must survive a restart as the jobs do: a job that names only a TensorBoard has
no run to find it again by, and its logs would wait for its next read. Each followed job is one
JSON file under ``<state>/followed/`` (``{"name": ..., "since": ...}``, ``since`` the wall time
it was followed), written atomically when it is followed and removed once nothing is left to do
for it, so a restarted emulator follows the same jobs. A file that cannot be read is left as it
is and named in ``unreadable``.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from provider.backends.local.store import private_dir, write_json
from provider.emulator import records


def _is_entry(data: object) -> bool:
    return isinstance(data, dict) and isinstance(data.get("name"), str) and \
        isinstance(data.get("since"), (int, float))


class FollowedJobs:
    """The names of the jobs followed, on disk."""

    def __init__(self, state_dir: Path, unreadable: list[str]) -> None:
        self.dir = state_dir / "followed"
        self.unreadable = unreadable

    def load(self) -> dict[str, float]:
        """Each job followed when the last emulator stopped: how many seconds ago it was followed."""
        found = records.load(self.dir, _is_entry, "a followed job's record", self.unreadable)
        return {str(e["name"]): max(0.0, time.time() - float(e["since"])) for e in found}

    def add(self, name: str) -> None:
        write_json(records.file_of(private_dir(self.dir), name), {"name": name, "since": time.time()})

    def remove(self, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            records.file_of(self.dir, name).unlink()
