"""Job records on disk: written atomically, shared safely by many processes.

``jobs/<id>/job.json``   what was submitted (never changes)
``jobs/<id>/state.json`` where the job is; written by its supervisor, atomically (tmp + rename)
``jobs/<id>/lock``       flock taken by every writer, so two writers never interleave
``jobs/<id>/cancel``     created by a cancel request; the supervisor acts on it
``jobs/<id>/logs/``      one file per replica

Readers never lock: a rename is atomic, so they see the old or the new state, never half.
A reader that finds a job running whose supervisor is gone marks it FAILED, under the lock.

Each job is read on its own: a record that is empty, truncated or not JSON raises
``Unreadable`` (its path and why) for that job only, and is never rewritten or deleted unasked.
A reader never needs to write: on a full or read-only disk it still answers (a dead
supervisor's job is then shown FAILED without being saved).

Modes: the home, ``jobs/`` and every job dir are 0700, every file written here 0600 (a job's
request can carry its environment).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import fcntl
import json
import os
import random
import signal
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from provider.backends.base import JobState, ReplicaState

Json = dict[str, Any]

TERMINAL = tuple(s.value for s in JobState if s.terminal)  # as state.json holds them (a tuple: any value tests in it)
LIVE_REPLICA = tuple(s.value for s in ReplicaState if s.live)
DIR_MODE = 0o700
FILE_MODE = 0o600
SETTLED_NS = 2_000_000_000  # a jobs/ folder unchanged this long is listed again only when its mtime moves (ids)


class Unreadable(Exception):
    """A job file that exists but cannot be read as a JSON object: which file, and why."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def disk_full(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)


def private_dir(path: Path) -> Path:
    """Create ``path`` (and its parents) as 0700; an existing dir is narrowed to 0700."""
    path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
    if path.stat().st_mode & 0o077:
        os.chmod(path, DIR_MODE)
    return path


def private_dirs(path: Path) -> Path:
    """Create ``path`` and any missing parent as 0700 (Path.mkdir gives parents the default mode)."""
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    for d in reversed(missing):
        with contextlib.suppress(FileExistsError):
            d.mkdir(mode=DIR_MODE)
    return missing[0] if missing else path


def open_private(path: Path, mode: str = "ab") -> Any:
    """Open a file for writing, creating it 0600."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if "a" in mode else os.O_TRUNC)
    fd = os.open(path, flags, FILE_MODE)
    return os.fdopen(fd, mode) if "b" in mode else os.fdopen(fd, mode, encoding="utf-8")


def now() -> str:
    """RFC 3339 time, as Vertex AI writes it."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def new_job_id() -> str:
    """19 digits like a Vertex AI job id; sorts by creation time."""
    return f"{int(time.time() * 1000)}{random.randrange(10**6):06d}"


def write_json(path: Path, data: Json) -> None:
    """Write atomically: a reader sees the old file or the new one, never a half-written one."""
    """The file is 0600; on failure (a full disk) the temporary file is removed and the error raised."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    text = json.dumps(data, indent=1, sort_keys=True)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def read_json(path: Path) -> Json | None:
    """The JSON object in ``path``; None if there is no such file; ``Unreadable`` if it cannot be read."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise Unreadable(path, exc.strerror or str(exc)) from None
    if not raw.strip():
        raise Unreadable(path, "the file is empty")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise Unreadable(path, f"not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise Unreadable(path, f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                               "it may have been truncated") from None
    except RecursionError:
        raise Unreadable(path, "JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise Unreadable(path, f"a JSON {type(data).__name__}, not an object")
    return data


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if missing) across processes and threads."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def locked(job_dir: Path) -> contextlib.AbstractContextManager[None]:
    """The job's lock: one writer of its state at a time."""
    return file_lock(job_dir / "lock")


def process_start(pid: int) -> int | None:
    """The start time of a process (clock ticks since boot), to tell a pid from a reused one."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        if fields[0] == "Z":  # a zombie has exited
            return None
        return int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def alive(proc: Json | None) -> bool:
    """Is the recorded process (pid + start time) still the same running process?"""
    if not proc or not proc.get("pid"):
        return False
    start = process_start(int(proc["pid"]))
    return start is not None and start == proc.get("start")


def kill_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


class JobStore:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.jobs = home / "jobs"
        self._listing: tuple[tuple[int, int], list[str]] | None = None  # ((inode, mtime) of jobs/, its ids)

    def job_dir(self, job_id: str) -> Path:
        if not job_id.isdigit():
            raise KeyError(job_id)
        return self.jobs / job_id

    def create(self, record: Json, job_id: str | None = None) -> Path:
        """A new job's folder; ``job_id`` when given (the emulator names what it makes for a job by it
        before the job runs), FileExistsError if that job exists."""
        private_dir(self.home)
        private_dir(self.jobs)
        while True:
            job_dir = self.jobs / (job_id or new_job_id())
            try:
                job_dir.mkdir(mode=DIR_MODE)
                break
            except FileExistsError:
                if job_id:
                    raise
                continue
        job_id = job_dir.name
        record = {**record, "id": job_id}
        try:
            (job_dir / "logs").mkdir(mode=DIR_MODE)
            write_json(job_dir / "job.json", record)
            write_json(job_dir / "state.json", {"state": "QUEUED", "create_time": record["create_time"],
                                                "update_time": record["create_time"]})
        except OSError:  # a full disk: no half-made job is left behind
            import shutil

            shutil.rmtree(job_dir, ignore_errors=True)
            raise
        return job_dir

    def ids(self) -> list[str]:
        """Every job's id, newest first (ids sort by creation time)."""
        try:
            folder = os.stat(self.jobs)
        except OSError:
            return []
        if not stat.S_ISDIR(folder.st_mode):
            return []
        cached = self._listing
        if cached is not None and cached[0] == (folder.st_ino, folder.st_mtime_ns):
            return list(cached[1])
        try:
            # Names as strings (os.listdir), not a Path per entry: at 10,000 jobs Path.iterdir cost four times
            # the listing itself. No stat per job either. A directory without its job.json yet (being
            # created) is skipped by whoever reads it.
            names = sorted((name for name in os.listdir(self.jobs) if name.isdigit()), reverse=True)
        except OSError:
            return []
        self._listing = None
        if time.time_ns() - folder.st_mtime_ns > SETTLED_NS:
            # A job added or removed changes the folder's mtime, so a long-lived reader (the console, the
            # emulator) lists the folder again only when it changed: its first page costs the same at 10
            # jobs and at 10,000. Kept only once the mtime is SETTLED_NS old: a change in the same tick of
            # the file system's clock as the listing would leave the mtime as it was.
            self._listing = ((folder.st_ino, folder.st_mtime_ns), names)
        return list(names)

    def record(self, job_id: str) -> Json | None:
        return read_json(self.job_dir(job_id) / "job.json")

    def state(self, job_id: str) -> Json | None:
        """The job's state, failing it first if its supervisor died while it was not finished."""
        job_dir = self.job_dir(job_id)
        state = read_json(job_dir / "state.json")
        if state is None:
            return state
        if not isinstance(state.get("state"), str):
            raise Unreadable(job_dir / "state.json", "it has no job state")
        if state["state"] in TERMINAL:
            return state
        sup = state.get("supervisor")
        if sup is None:  # the submitter writes it right after starting the supervisor
            return state
        if alive(sup):
            return state
        return self.fail_orphan(job_id, f"the supervisor (pid {sup['pid']}) died while the job was {state['state']}")

    def fail_orphan(self, job_id: str, reason: str) -> Json:
        """Mark a job whose supervisor is gone as FAILED (or CANCELLED if it was being cancelled).

        When the disk is full or read-only, the ended state is returned without being saved."""
        job_dir = self.job_dir(job_id)
        try:
            with locked(job_dir):
                state = read_json(job_dir / "state.json") or {}
                if state.get("state") in TERMINAL or alive(state.get("supervisor")):
                    return state
                _end_orphan(job_dir, state, reason)
                with contextlib.suppress(OSError):
                    write_json(job_dir / "state.json", state)
                return state
        except OSError:  # no lock file can be created: read only
            state = read_json(job_dir / "state.json") or {}
            if state.get("state") not in TERMINAL and not alive(state.get("supervisor")):
                _end_orphan(job_dir, state, reason)
            return state

    def read(self, job_id: str) -> tuple[Json, Json] | None:
        """The record and state of one job (None if it is gone); ``Unreadable`` if either is broken."""
        record = self.record(job_id)
        if record is None:
            return None
        state = self.state(job_id)
        if state is None:
            return None
        return record, state

    def update(self, job_id: str, **changes: Any) -> Json:
        """Merge ``changes`` into the state, under the job's lock."""
        job_dir = self.job_dir(job_id)
        with locked(job_dir):
            state = read_json(job_dir / "state.json") or {}
            state.update(changes)
            write_json(job_dir / "state.json", state)
            return state

    def request_cancel(self, job_id: str) -> None:
        job_dir = self.job_dir(job_id)
        os.close(os.open(job_dir / "cancel", os.O_WRONLY | os.O_CREAT, FILE_MODE))
        state = read_json(job_dir / "state.json") or {}
        sup = state.get("supervisor")
        if sup is not None and alive(sup):
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(sup["pid"]), signal.SIGUSR1)

    def delete(self, job_id: str) -> None:
        import shutil

        job_dir = self.job_dir(job_id)
        with locked(job_dir):
            shutil.rmtree(job_dir / "logs", ignore_errors=True)
            for name in ("job.json", "state.json", "cancel"):
                with contextlib.suppress(FileNotFoundError):
                    (job_dir / name).unlink()
        shutil.rmtree(job_dir, ignore_errors=True)


def _end_orphan(job_dir: Path, state: Json, reason: str) -> None:
    """End the job of a dead supervisor: when its reaper died too, nothing else kills what the
    replicas left (re-parented to init), so every process carrying the job's marker is killed here."""
    from provider.backends.local import reaper

    for replica in state.get("replicas", []):
        if replica.get("pgid"):
            kill_group(int(replica["pgid"]), signal.SIGKILL)
        if replica.get("state") in LIVE_REPLICA:
            replica["state"] = ReplicaState.STOPPED.value
    reaper.kill_marked(reaper.marker(job_dir))
    cancelling = state.get("state") == JobState.CANCELLING.value or (job_dir / "cancel").exists()
    state["state"] = (JobState.CANCELLED if cancelling else JobState.FAILED).value
    state["error"] = {"code": 1 if cancelling else 13, "message": reason}
    state["end_time"] = state["update_time"] = now()
