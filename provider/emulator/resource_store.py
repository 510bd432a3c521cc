"""Nested Vertex AI resources (TensorBoard's and the metadata service's), kept in the state dir.

A resource is one record: its full name (``projects/P/locations/L/tensorboards/T/experiments/E``),
its collection (``experiments``), its parent's name, its id, its create and update times and its
canonical REST JSON body. Each record is one JSON file under ``<state>/resources/`` (written
atomically, named by a digest of the resource name), so a restarted emulator serves the same
resources. Memory holds every record and, for each collection of each parent, the (create time,
id) keys in order, so a list page walks only that collection from its position: never the
disk, never the deleted ones.

A file that cannot be read is left as it is and named in ``unreadable`` (the server prints it).
"""

from __future__ import annotations

import bisect
import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from provider.backends.local.store import write_json
from provider.emulator import records

Json = dict[str, Any]
Key = tuple[str, str]  # (create time, id)
_CHUNK = 64
_FIELDS = ("name", "collection", "parent", "id", "create_time", "update_time")


def _is_record(data: object) -> bool:
    return isinstance(data, dict) and all(isinstance(data.get(k), str) for k in _FIELDS) and \
        isinstance(data.get("body"), dict)


class ResourceStore:
    """Every nested resource the emulator holds, by name, with each collection's order."""

    def __init__(self, state_dir: Path) -> None:
        self.dir = state_dir / "resources"
        self._records: dict[str, Json] = {}
        self._order: dict[tuple[str, str], list[Key]] = {}  # (collection, parent) -> keys, oldest first
        self.lock = threading.RLock()
        self.unreadable: list[str] = []

    def open(self) -> None:
        for record in records.load(self.dir, _is_record, "an emulator resource record", self.unreadable):
            self._remember(record)

    def _file(self, name: str) -> Path:
        return records.file_of(self.dir, name)

    def _remember(self, record: Json) -> None:
        old = self._records.get(record["name"])
        if old is not None:
            self._forget(old)
        bisect.insort(self._order.setdefault((record["collection"], record["parent"]), []),
                      (record["create_time"], record["id"]))
        self._records[record["name"]] = record

    def _forget(self, record: Json) -> None:
        keys = self._order.get((record["collection"], record["parent"]), [])
        key = (record["create_time"], record["id"])
        index = bisect.bisect_left(keys, key)
        if index < len(keys) and keys[index] == key:
            del keys[index]

    def put(self, record: Json) -> None:
        write_json(self._file(record["name"]), record)
        with self.lock:
            self._remember(record)

    def get(self, name: str) -> Json | None:
        return self._records.get(name)

    def drop(self, name: str) -> list[Json]:
        """Remove the resource and everything below it; the records removed."""
        with self.lock:
            gone = [r for n, r in self._records.items() if n == name or n.startswith(name + "/")]
            for record in gone:
                del self._records[record["name"]]
                self._forget(record)
        for record in gone:
            with contextlib.suppress(FileNotFoundError):
                self._file(record["name"]).unlink()
        return gone

    def walk(self, collection: str, parent: str, after: Key | None = None) -> Iterator[Json]:
        """The collection's records, oldest first, from just after ``after``; lazily, a chunk at a time."""
        position = after
        while True:
            with self.lock:
                keys = self._order.get((collection, parent), [])
                start = bisect.bisect_right(keys, position) if position is not None else 0
                chunk = keys[start:start + _CHUNK]
                records = [self._records[f"{parent}/{collection}/{rid}"] for _, rid in chunk]
            if not records:
                return
            yield from records
            position = chunk[-1]

    def everywhere(self, collection: str) -> Iterator[Json]:
        """Every record of a collection under every parent (for the console; a copy)."""
        with self.lock:
            found = [r for r in self._records.values() if r["collection"] == collection]
        yield from sorted(found, key=lambda r: (r["create_time"], r["id"]))
