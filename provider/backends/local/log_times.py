"""When each line of a local job's logs was written: a ``NAME.times`` file beside each ``NAME.log``.

* **Writing.** A replica writes its output straight to its log file, as before: nothing stands
  between the trainer and the disk, so nothing here can slow it, block it or lose its lines. The
  supervisor's ``Stamper`` thread looks at every log file of the job every ``TICK`` seconds (pip's
  ``setup.log`` too) and, when one has grown, appends ``OFFSET NANOS`` to its ``.times``: the
  file's bytes before OFFSET had been written by NANOS, the file's modification time (the kernel's
  time of its last write, ns since the epoch). A line's time is that of the first entry at or past
  its end: when it had reached the disk, to within one round (more on a loaded machine, where the
  thread runs late; the lines one file gets between two rounds share the time of the last of them). After each round the stamper writes the round's start time (less ``MARGIN``, for the
  kernel's coarse file clock) to ``logs/.stamped``: every line written before then has its entry.
* **Reading.** ``Reader`` reads each file on from where it stopped. While the job runs, it gives
  the lines written up to ``.stamped``, in time order across the files, and keeps the later ones
  for its next read: a line written in one file just before a line of another never comes after
  it, and a follower (``trainjobs logs -f``, the emulator's Cloud Logging) never sees an older
  line after a newer one. Once the job has ended (the supervisor stamps a last round before it
  writes the end), or for a one-off read, it gives every line.
* **Older records** (written before times were kept) have no ``.times``: their lines take their
  file's modification time and are marked approximate, so each file's lines stay together and in
  order. A line past the last entry (its supervisor died before stamping it) takes the file's
  modification time too, which is when its last byte was written.

The ``.log`` files are unchanged: ``tail -f``, failure messages (the last lines of a replica) and
older trainjobs read them as they always did.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import threading
import time
from pathlib import Path

from provider.backends.log_line import SETUP_NAME, LogLine, LogSource, from_ns, in_order

TICK = 0.05  # seconds between two looks at the log files
MARGIN_NS = 20_000_000  # the file clock (jiffies) may lag the wall clock by a few ms
STAMPED = ".stamped"
RESCAN = 10  # rounds between two listings of the logs folder (new replicas, trials)


def times_path(log: Path) -> Path:
    return log.with_suffix(".times")


def log_files(logs: Path) -> list[Path]:
    """The job's log files, the setup log first (so, at one time, setup lines come before the trainer's)."""
    if not logs.is_dir():
        return []
    found = sorted(logs.rglob("*.log"))
    return [p for p in found if p.stem == SETUP_NAME and p.parent == logs] + \
        [p for p in found if not (p.stem == SETUP_NAME and p.parent == logs)]


class Stamper(threading.Thread):
    """The supervisor's thread that records, as the log files grow, when their bytes were written."""

    def __init__(self, logs: Path) -> None:
        super().__init__(name="trainjobs-log-stamper", daemon=True)
        self.logs = logs
        self.halt = threading.Event()
        self.lock = threading.Lock()
        self.sizes: dict[Path, int] = {}
        self.last_ns: dict[Path, int] = {}
        self.fds: dict[Path, int] = {}
        self.rounds = 0

    def start(self) -> None:
        """A first round, then the thread: from here on a reader knows this job's lines get times."""
        with contextlib.suppress(OSError, ValueError):
            self.round(rescan=True)
        super().start()

    def run(self) -> None:
        while not self.halt.wait(TICK):
            with contextlib.suppress(OSError, ValueError):  # a full disk: lines then take their file's time
                self.round()

    def final(self) -> None:
        """Stop the thread, and stamp what was written since its last round (before the job's end is written)."""
        self.halt.set()
        if self.is_alive():
            self.join(timeout=5)
        with contextlib.suppress(OSError, ValueError):
            self.round(rescan=True)
        for fd in self.fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fds.clear()

    def round(self, rescan: bool = False) -> None:
        with self.lock:
            start = time.time_ns()
            if rescan or self.rounds % RESCAN == 0:
                for path in log_files(self.logs):
                    self.sizes.setdefault(path, 0)
            self.rounds += 1
            for path, size in self.sizes.items():
                try:
                    st = os.stat(path)
                except FileNotFoundError:
                    continue
                if st.st_size > size:
                    stamp = max(st.st_mtime_ns, self.last_ns.get(path, 0))
                    os.write(self._fd(path), f"{st.st_size} {stamp}\n".encode())
                    self.sizes[path], self.last_ns[path] = st.st_size, stamp
            _write_stamped(self.logs, start - MARGIN_NS)

    def _fd(self, log: Path) -> int:
        fd = self.fds.get(log)
        if fd is None:
            fd = self.fds[log] = os.open(times_path(log), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        return fd


def _write_stamped(logs: Path, ns: int) -> None:
    fd = os.open(logs / STAMPED, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        os.pwrite(fd, f"{ns:020d}\n".encode(), 0)  # fixed width: a reader sees the old or the new number
    finally:
        os.close(fd)


def stamped(logs: Path) -> int | None:
    """Every line written before this time (ns) has its entry; None where no stamper ever ran."""
    try:
        text = (logs / STAMPED).read_bytes()[:20]
    except OSError:
        return None
    return int(text) if text.isdigit() else None


class _File:
    """One log file as a reader goes through it: how far it has read, and the times read so far."""

    def __init__(self, path: Path, name: str) -> None:
        self.path = path
        self.name = name
        self.source = LogSource.SETUP if name == SETUP_NAME else LogSource.TRAINER
        self.offset = 0
        self.ends: list[int] = []
        self.stamps: list[int] = []
        self.times_read = 0

    def refresh_times(self) -> bool:
        """Read the entries added since the last call; False when the file has no ``.times`` (an older record)."""
        try:
            with open(times_path(self.path), "rb") as f:
                f.seek(self.times_read)
                data = f.read()
        except FileNotFoundError:
            return False
        complete = data.rfind(b"\n") + 1
        self.times_read += complete
        for row in data[:complete].splitlines():
            end, _, ns = row.partition(b" ")
            if end.isdigit() and ns.isdigit():
                self.ends.append(int(end))
                self.stamps.append(int(ns))
        return True

    def time_of(self, end: int) -> int | None:
        i = bisect.bisect_left(self.ends, end)
        return self.stamps[i] if i < len(self.stamps) else None

    def read(self, cutoff: int | None, final: bool, legacy: bool) -> list[LogLine]:
        """The lines from ``offset`` on whose time is known and not after ``cutoff``; ``final``: every line
        (those not stamped take the file's last write time); ``legacy``: a record without times."""
        timed = self.refresh_times()
        if not timed and not legacy and not final:
            return []  # the stamper has not seen this new file yet
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
                mtime = os.fstat(f.fileno()).st_mtime_ns
        except FileNotFoundError:
            return []
        out: list[LogLine] = []
        pos = 0
        while pos < len(data):
            nl = data.find(b"\n", pos)
            if nl < 0 and not final:
                break  # a line still being written
            end = len(data) if nl < 0 else nl + 1
            ns = self.time_of(self.offset + end) if timed else None
            if ns is None and not final and timed:
                break  # not stamped yet: the next read
            if cutoff is not None and ns is not None and ns > cutoff and not final:
                break
            text = data[pos:end].rstrip(b"\n").decode("utf-8", errors="replace")
            out.append(LogLine(from_ns(ns if ns is not None else mtime), self.name, text, self.source,
                               approximate=legacy))
            pos = end
        self.offset += pos
        return out


class Reader:
    """A job's log lines, in time order, read on from where the last read stopped."""

    def __init__(self, logs: Path, offsets: dict[str, int] | None = None) -> None:
        """``offsets``: where an earlier reader stopped in each file (``offsets()``), to read on from there."""
        self.logs = logs
        self.files: dict[Path, _File] = {}
        self.start = dict(offsets or {})

    def offsets(self) -> dict[str, int]:
        """How far each file has been read (by its path under logs/): a later Reader goes on from here."""
        out = dict(self.start)
        out.update({path.relative_to(self.logs).as_posix(): f.offset for path, f in self.files.items()})
        return out

    def read(self, final: bool) -> list[LogLine]:
        """The lines not given yet: while the job runs (``final`` False), those written up to the last
        stamping round; with ``final`` (the job has ended, or a one-off read), all of them."""
        cutoff = stamped(self.logs)
        legacy = cutoff is None  # no stamper ever ran: a record from before times were kept
        lines: list[LogLine] = []
        for path in log_files(self.logs):
            f = self.files.get(path)
            if f is None:
                f = self.files[path] = _File(path, path.relative_to(self.logs).with_suffix("").as_posix())
                f.offset = self.start.get(path.relative_to(self.logs).as_posix(), 0)
            lines += f.read(None if final else cutoff, final or legacy, legacy)
        return in_order(lines)
