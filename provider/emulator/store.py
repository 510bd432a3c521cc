"""The emulator's own records, kept in its state dir and in memory.

``<state>/jobs/<id>.json``        a job as the emulator accepted it (kind, parent, request, and
                                  for a job the local backend refused, its final error)
``<state>/operations/<id>.json``  a long-running operation (operations.py, their one home)
``<state>/emulator.lock``         held while an emulator serves this dir: one at a time

Files are written atomically (tmp + rename), so a restarted emulator serves the same jobs. The
job states themselves live with the local backend (``<state>/local``), whose detached
supervisors keep running while the emulator is down. Memory holds every record, and for each
collection (kind, parent) the (create time, id) keys in order, so a list walks only that
collection, newest first, from a position: never the disk, never a copy of the whole order.

A record that cannot be read (empty, truncated, not a job's) is left as it is, skipped, and
named in ``unreadable`` (the server prints it at start); the others load. The state dir and its
folders are 0700, every file 0600.
"""

from __future__ import annotations

import bisect
import contextlib
import fcntl
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from provider.backends.local.store import FILE_MODE, Unreadable, private_dir, read_json, write_json

Json = dict[str, Any]
Key = tuple[str, str]  # (create time, id)
_CHUNK = 64  # keys taken per hold of the lock while walking a collection


class StateDirBusy(Exception):
    pass


class EmulatorStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.jobs_dir = root / "jobs"
        self.operations_dir = root / "operations"
        self._lock = threading.Lock()
        self._jobs: dict[str, Json] = {}
        self._order: dict[tuple[str, str], list[Key]] = {}  # (kind, parent) -> keys, oldest first
        self._operations: dict[str, Json] = {}
        self._fd: int | None = None
        self.unreadable: list[str] = []  # "path: why" for each record that could not be loaded

    # -- lifecycle ------------------------------------------------------------------------------
    def open(self) -> None:
        """Take the state dir (StateDirBusy if another emulator has it) and load its records."""
        for d in (self.root, self.jobs_dir, self.operations_dir):
            private_dir(d)
        fd = os.open(self.root / "emulator.lock", os.O_RDWR | os.O_CREAT, FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 64).decode(errors="replace").strip()
            os.close(fd)
            raise StateDirBusy(f"another emulator (pid {holder or '?'}) is serving {self.root}; stop it, or "
                               "give this one another --state-dir") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._fd = fd
        for path in sorted(self.jobs_dir.glob("*.json")):
            record = self._load(path, ("id", "create_time", "kind", "parent", "body"))
            if record is not None:
                self._jobs[record["id"]] = record
        for record in self._jobs.values():  # each collection sorted once, not an insort per record
            self._order.setdefault(self._collection(record), []).append((record["create_time"], record["id"]))
        for keys in self._order.values():
            keys.sort()
        for path in sorted(self.operations_dir.glob("*.json")):
            op = self._load(path, ("id", "name"))
            if op is not None:
                self._operations[op["id"]] = op

    def _load(self, path: Path, keys: tuple[str, ...]) -> Json | None:
        try:
            data = read_json(path)
        except Unreadable as exc:
            self.unreadable.append(f"{path}: {exc.reason}")
            return None
        if data is None:
            return None
        missing = [k for k in keys if not isinstance(data.get(k), dict if k == "body" else str)]
        if missing:
            self.unreadable.append(f"{path}: not an emulator record (no {', '.join(missing)})")
            return None
        return data

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    # -- jobs -----------------------------------------------------------------------------------
    @staticmethod
    def _collection(record: Json) -> tuple[str, str]:
        return record["kind"], record["parent"]

    def _forget(self, record: Json) -> None:
        keys = self._order.get(self._collection(record), [])
        key = (record["create_time"], record["id"])
        index = bisect.bisect_left(keys, key)
        if index < len(keys) and keys[index] == key:
            del keys[index]

    def _remember(self, record: Json) -> None:
        old = self._jobs.get(record["id"])
        if old is not None:
            self._forget(old)
        bisect.insort(self._order.setdefault(self._collection(record), []), (record["create_time"], record["id"]))
        self._jobs[record["id"]] = record

    def put_job(self, record: Json) -> None:
        write_json(self.jobs_dir / f"{record['id']}.json", record)
        with self._lock:
            self._remember(record)

    def drop_job(self, job_id: str) -> None:
        with self._lock:
            record = self._jobs.pop(job_id, None)
            if record is not None:
                self._forget(record)
        with contextlib.suppress(FileNotFoundError):
            (self.jobs_dir / f"{job_id}.json").unlink()

    def job(self, job_id: str) -> Json | None:
        return self._jobs.get(job_id)

    def newest_first(self) -> list[Json]:
        """Every record, newest first (a copy: the caller may drop jobs while it reads)."""
        with self._lock:
            return sorted(self._jobs.values(), key=lambda r: (r["create_time"], r["id"]), reverse=True)

    def walk(self, kind: str, parent: str, after: Key | None = None) -> Iterator[Json]:
        """The collection's records, newest first, from just older than ``after``; lazily.

        Each step takes the next few keys below the last one returned, so the cost is the records
        read, whatever the collection's size, and jobs created or deleted meanwhile never shift
        the walk: a new job is newer than any position already handed out.
        """
        position = after
        while True:
            with self._lock:
                keys = self._order.get((kind, parent), [])
                end = bisect.bisect_left(keys, position) if position is not None else len(keys)
                chunk = keys[max(0, end - _CHUNK):end]
                records = [self._jobs[job_id] for _, job_id in reversed(chunk)]
            if not records:
                return
            yield from records
            position = chunk[0]

    def ids(self) -> set[str]:
        return set(self._jobs)

    # -- operations -----------------------------------------------------------------------------
    def put_operation(self, op: Json) -> None:
        write_json(self.operations_dir / f"{op['id']}.json", op)
        with self._lock:
            self._operations[op["id"]] = op

    def operation(self, op_id: str) -> Json | None:
        return self._operations.get(op_id)
