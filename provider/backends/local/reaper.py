"""Every process a local job starts dies with the job, even when nobody is watching (Linux).

The supervisor's command forks in two: the parent becomes the job's *reaper*, a child
subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``) that does nothing but wait; the child runs the
supervisor, itself a subreaper, and starts each replica in its own session (process group).

* Any process whose parent dies inside the job (a data loader whose replica exited) is
  re-parented to the supervisor, not to init; the supervisor kills and reaps what is left when
  the job ends.
* When the supervisor dies, whatever the cause (SIGKILL included), its replicas (which also
  have ``PR_SET_PDEATHSIG``) and every other descendant are re-parented to the reaper, which
  kills each one's process group and the process, until it has no child left, then records
  why the job ended and exits.

Where prctl is unavailable the fork still happens and the process-group kills still apply.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
from collections.abc import Callable

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36

_libc: ctypes.CDLL | None = None


def libc() -> ctypes.CDLL | None:
    global _libc
    if _libc is None:
        with contextlib.suppress(OSError):
            _libc = ctypes.CDLL("libc.so.6", use_errno=True)
    return _libc


def _prctl(option: int, value: int) -> bool:
    lib = libc()
    return lib is not None and lib.prctl(option, value, 0, 0, 0) == 0


def become_subreaper() -> bool:
    """Orphaned descendants are re-parented to this process instead of init."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def die_with_parent(sig: int) -> bool:
    """Receive ``sig`` when the parent dies (set in a child after fork)."""
    return _prctl(PR_SET_PDEATHSIG, int(sig))


def children() -> list[int]:
    """The pids whose parent is this process (from /proc)."""
    me = os.getpid()
    out = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if len(fields) > 2 and fields[1] == str(me):
            out.append(int(entry.name))
    return out


def kill_tree_of(pid: int) -> None:
    """SIGKILL a child's process group (if it leads one) and the child itself."""
    with contextlib.suppress(OSError):
        pgid = os.getpgid(pid)
        if pgid == pid:
            os.killpg(pgid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)


def sweep() -> None:
    """Kill every child (and the groups they lead) and reap them, until no child is left.

    Killing a child re-parents its own children here (we are a subreaper), so this repeats."""
    while True:
        for pid in children():
            kill_tree_of(pid)
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def reap_strays(known: set[int]) -> None:
    """Reap exited children that are not ours to wait for (re-parented orphans), without blocking."""
    while True:
        try:
            info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return
        if info is None or info.si_pid in known:
            return  # nothing exited, or a replica: its Popen collects it
        with contextlib.suppress(ChildProcessError):
            os.waitpid(info.si_pid, 0)


def guard(run: Callable[[], int], on_death: Callable[[int, str], None]) -> int:
    """Run ``run`` in a forked child, this process staying as its reaper.

    Returns the child's exit code (in the reaper). ``on_death(pid, how)`` is called when the child
    did not exit by itself with code 0, after every process of the job is gone."""
    become_subreaper()
    reaper = os.getpid()
    pid = os.fork()
    if pid == 0:  # the supervisor
        code = 1
        try:
            die_with_parent(signal.SIGTERM)
            if os.getppid() != reaper:
                os._exit(1)
            code = run()
        finally:
            with contextlib.suppress(Exception):
                import sys

                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(code)

    def forward(signum: int, _frame: object) -> None:
        with contextlib.suppress(OSError):
            os.kill(pid, signum)

    for sig in (signal.SIGUSR1, signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward)
    status = None
    while status is None:
        try:
            done, status_ = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        if done == pid:
            status = status_
    sweep()
    if status is None:
        return 1
    if os.WIFSIGNALED(status):
        on_death(pid, f"was killed by signal {os.WTERMSIG(status)}")
        return 128 + os.WTERMSIG(status)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        on_death(pid, f"exited with code {code}")
    return code
