"""This machine's GPUs, and which job holds which.

Inventory: ``$TRAINJOBS_LOCAL_GPUS`` ("0,1,2,3", or "none"), else ``nvidia-smi``, else none.
A job holds each of its devices by an exclusive flock on ``<home>/gpus/<index>.lock``, for as
long as its supervisor lives: the kernel releases the locks when it exits, however it exits,
so a crashed job never keeps a GPU.

``$TRAINJOBS_LOCAL_GPU_MODE=cpu`` (or ``trainjobs run --cpu``) is the opt-in for smoke tests:
GPU specs run on the CPU, no device is reserved, and every replica sees no GPU.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
from pathlib import Path


def inventory() -> list[int]:
    declared = os.environ.get("TRAINJOBS_LOCAL_GPUS")
    if declared is not None:
        declared = declared.strip()
        if declared in ("", "none"):
            return []
        return sorted({int(x) for x in declared.split(",") if x.strip()})
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return []
    try:
        out = subprocess.run([smi, "--query-gpu=index", "--format=csv,noheader"], capture_output=True, text=True,
                             timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if out.returncode != 0:
        return []
    return sorted(int(line) for line in out.stdout.split() if line.strip().isdigit())


def cpu_mode() -> bool:
    return os.environ.get("TRAINJOBS_LOCAL_GPU_MODE", "").lower() == "cpu"


class GpuLocks:
    """Holds device locks for one job; release() (or process exit) frees them."""

    def __init__(self, home: Path) -> None:
        self.dir = home / "gpus"
        self.held: dict[int, int] = {}

    def try_acquire(self, devices: list[int], need: int) -> list[int] | None:
        """Lock ``need`` free devices from ``devices`` (all or nothing)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        got: dict[int, int] = {}
        for dev in devices:
            if len(got) == need:
                break
            fd = os.open(self.dir / f"{dev}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            os.set_inheritable(fd, False)
            got[dev] = fd
        if len(got) < need:
            for fd in got.values():
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
            return None
        self.held.update(got)
        return sorted(got)

    def release(self) -> None:
        for fd in self.held.values():
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
        self.held.clear()

    def busy(self, devices: list[int]) -> list[int]:
        """Devices another process holds right now."""
        out = []
        self.dir.mkdir(parents=True, exist_ok=True)
        for dev in devices:
            if dev in self.held:
                continue
            fd = os.open(self.dir / f"{dev}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)
            except BlockingIOError:
                out.append(dev)
            finally:
                os.close(fd)
        return out
