"""When each local log line was written (provider.backends.local.log_times): the real stamper thread
watching files that real processes write, and the reader that puts them in time order."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import time
from pathlib import Path

from provider.backends.local.log_times import Reader, Stamper, stamped, times_path
from provider.backends.log_line import LogSource

# Two writers, each to its own file, taking turns through a shared counter file: a line of one is
# always written after the other's previous line was written and stamped, so the true order across
# the files is known, however late the (loaded) machine runs the stamper.
WRITER = r"""
import os, sys, time
me, other, path, turn, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
with open(path, "a", buffering=1) as out:
    for i in range(rounds):
        while True:
            try:
                n = int(open(turn).read() or 0)
            except (OSError, ValueError):
                n = 0
            if n % 2 == int(me):
                break
            time.sleep(0.005)
        out.write(f"line {n}\n")
        out.flush()
        size = out.tell()
        while True:  # the turn passes once the stamper has seen this line: each line has a stamp of its own
            try:
                rows = open(path[:-4] + ".times").read().split()
            except OSError:
                rows = []
            if rows and int(rows[-2]) >= size:
                break
            time.sleep(0.005)
        with open(turn + ".tmp", "w") as t:
            t.write(str(n + 1))
        os.replace(turn + ".tmp", turn)
"""


def _write_interleaved(logs: Path, rounds: int) -> None:
    turn = logs.parent / "turn"
    turn.write_text("0")
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, me, other, str(logs / name), str(turn), str(rounds)])
             for me, other, name in (("0", "1", "workerpool0-0.log"), ("1", "0", "workerpool1-0.log"))]
    try:
        for p in procs:
            assert p.wait(timeout=120) == 0
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def test_lines_of_two_replicas_come_in_the_order_they_were_written(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    stamper = Stamper(logs)
    stamper.start()
    try:
        _write_interleaved(logs, rounds=6)
    finally:
        stamper.final()
    lines = Reader(logs).read(final=True)
    assert [line.message for line in lines] == [f"line {n}" for n in range(12)]
    assert [line.replica for line in lines] == ["workerpool0-0", "workerpool1-0"] * 6
    times = [line.time for line in lines]
    assert all(t is not None for t in times) and times == sorted(times)  # type: ignore[type-var]
    assert not any(line.approximate for line in lines)
    assert times_path(logs / "workerpool0-0.log").is_file()
    now = dt.datetime.now(dt.UTC)
    assert all(now - dt.timedelta(minutes=5) < t <= now for t in times if t is not None)


def test_a_follower_gets_each_line_once_in_order_while_the_files_grow(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    stamper = Stamper(logs)
    stamper.start()
    reader = Reader(logs)
    got = []
    turn = logs.parent / "turn"
    turn.write_text("0")
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, me, other, str(logs / name), str(turn), "8"])
             for me, other, name in (("0", "1", "workerpool0-0.log"), ("1", "0", "workerpool1-0.log"))]
    try:
        while any(p.poll() is None for p in procs):
            got += reader.read(final=False)  # a line not stamped yet waits for a later read
            time.sleep(0.03)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
        stamper.final()
    got += reader.read(final=True)
    assert [line.message for line in got] == [f"line {n}" for n in range(16)]


def test_a_line_still_being_written_waits_for_its_end(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    stamper = Stamper(logs)
    stamper.start()
    log = logs / "workerpool0-0.log"
    with open(log, "ab", buffering=0) as out:
        out.write(b"whole\npart")
        deadline = time.monotonic() + 30
        reader = Reader(logs)
        first: list[str] = []
        while not first and time.monotonic() < deadline:
            first = [line.message for line in reader.read(final=False)]
            time.sleep(0.02)
        assert first == ["whole"]
        out.write(b" and the rest\n")
    stamper.final()
    assert [line.message for line in reader.read(final=True)] == ["part and the rest"]


def test_the_setup_log_is_its_own_source(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    (logs / "trial-2").mkdir(parents=True)
    stamper = Stamper(logs)
    stamper.start()
    (logs / "setup.log").write_text("$ pip install trainer\n")
    time.sleep(0.2)
    (logs / "trial-2" / "workerpool0-0.log").write_text("training\n")
    stamper.final()
    lines = Reader(logs).read(final=True)
    assert [(line.replica, line.source, line.message) for line in lines] == [
        ("setup", LogSource.SETUP, "$ pip install trainer"), ("trial-2/workerpool0-0", LogSource.TRAINER, "training")]


def test_a_record_from_before_times_were_kept_is_read_with_its_files_times(tmp_path: Path) -> None:
    """An older job's logs: no .times and no .stamped. Each file's lines take its last write time,
    marked approximate, and stay together and in order."""
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "setup.log").write_text("pip 1\npip 2\n")
    (logs / "workerpool0-0.log").write_text("epoch 1\nepoch 2")  # its last line has no newline
    os.utime(logs / "setup.log", ns=(1_700_000_000_000_000_000,) * 2)
    os.utime(logs / "workerpool0-0.log", ns=(1_700_000_060_000_000_000,) * 2)
    assert stamped(logs) is None
    lines = Reader(logs).read(final=False)  # nothing will stamp them: given at once, even while "running"
    assert [line.message for line in lines] == ["pip 1", "pip 2", "epoch 1", "epoch 2"]
    assert all(line.approximate for line in lines)
    assert [line.timestamp for line in lines] == ["2023-11-14T22:13:20.000000Z"] * 2 + ["2023-11-14T22:14:20.000000Z"] * 2
    assert lines[0].json()["approximate"] is True
