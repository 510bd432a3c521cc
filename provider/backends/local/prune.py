"""``trainjobs jobs prune``: forget finished local jobs and environments nobody used for a while.

A finished job (SUCCEEDED, FAILED or CANCELLED) goes when it ended before the cut-off and is not
one of the newest ``keep`` finished jobs; its directory (record, state, logs) is removed, never its
outputs in storage. An environment goes when no job used it since the cut-off. Jobs that are not
finished and job directories that cannot be read are never touched. ``dry_run`` only reports.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import time
from pathlib import Path

from provider.backends.local import envs
from provider.core.record import Record, field

DEFAULT_KEEP = 20
DEFAULT_OLDER_THAN = 7 * 24 * 3600.0  # a week
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_age(text: str) -> float:
    """``30m``, ``12h``, ``7d``, ``2w`` or ``3600s`` -> seconds; ValueError says what is allowed."""
    number, unit = text[:-1], text[-1:]
    if unit not in _UNITS or not number.isdigit():
        raise ValueError(f"{text!r} is not an age: a whole number and a unit, one of s, m, h, d, w (such as 7d)")
    return int(number) * _UNITS[unit]


def size_of(path: Path) -> int:
    total = 0
    for dirpath, _, files in os.walk(path):
        for name in files:
            try:
                total += (Path(dirpath) / name).lstat().st_size
            except OSError:
                continue
    return total


class Pruned(Record, frozen=False):
    """What a prune removed (with ``dry_run``, would remove): jobs, environments, bytes freed; jobs kept."""

    jobs: list[str] = field(default_factory=list)
    environments: list[Path] = field(default_factory=list)
    freed: int = 0
    kept: int = 0  # finished jobs kept (the newest, or too recent)


def _ended(iso: str | None) -> float:
    if not iso:
        return 0.0
    return dt.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def prune(backend: object, env_cache: Path, older_than: float = DEFAULT_OLDER_THAN, keep: int = DEFAULT_KEEP,
          dry_run: bool = False, now: float | None = None) -> Pruned:
    from provider.backends.local.backend import LocalBackend

    assert isinstance(backend, LocalBackend)
    cutoff = (time.time() if now is None else now) - older_than
    out = Pruned()
    jobs, _broken = backend.scan()
    finished = [j for j in jobs if j.state.terminal]  # newest first
    for index, job in enumerate(finished):
        if index < keep or _ended(job.end_time or job.update_time) > cutoff:
            out.kept += 1
            continue
        job_dir = backend.store.job_dir(job.id)
        out.freed += size_of(job_dir)
        out.jobs.append(job.id)
        if not dry_run:
            backend.delete(job.id)
    if env_cache.is_dir():
        for layer in sorted(env_cache.iterdir()):
            if not layer.is_dir() or not layer.name.startswith(("deps-", "pkg-")):
                continue
            if envs.last_used(layer) > cutoff:
                continue
            out.freed += size_of(layer)
            out.environments.append(layer)
            if not dry_run:
                shutil.rmtree(layer, ignore_errors=True)
    return out
