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

* Every replica carries ``TRAINJOBS_REPLICA=<job dir>|<trial>|<replica>|<generation>`` in its
  environment, and so does everything it starts (children inherit it, through setsid and double
  forks). That marker is how the processes one replica left are found (``kill_marked``) when it is
  restarted: a process group is not enough, since a grandchild in a session of its own leaves it,
  and an orphan re-parented to the supervisor no longer says whose it was. It is also how the next
  status read cleans up after a job whose supervisor *and* reaper were killed together. A process
  that clears its own environment and leaves its replica's session is only found by the sweeps
  above (when the job ends), not when its replica restarts.

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
MARKER = "TRAINJOBS_REPLICA"
SEP = "|"  # after the job dir: job ids are digits, so one job's prefix never matches another job's marker
REAPER_GONE = signal.SIGUSR2  # what the supervisor receives when its reaper dies (PR_SET_PDEATHSIG)
KILL_DEADLINE = 30.0  # kill_marked gives up on a process that will not die (uninterruptible sleep) after this

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


def marker(job_dir: str | os.PathLike[str], trial: str = "", replica: str = "", generation: int | None = None) -> str:
    """The marker's value for one replica's generation; with only ``job_dir``, the whole job's prefix.

    The job dir is resolved, so that a reader with another working directory finds the same value."""
    where = os.path.realpath(job_dir)
    if generation is None:
        return f"{where}{SEP}"
    return SEP.join((where, trial, replica, str(generation)))


def _marker_of(pid: str) -> str | None:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            raw = f.read()
    except OSError:  # gone, a zombie's unreadable memory, or another user's process
        return None
    needle = MARKER.encode() + b"="
    for item in raw.split(b"\0"):
        if item.startswith(needle):
            return item[len(needle):].decode("utf-8", errors="replace")
    return None


def marked(value: str) -> list[int]:
    """Live processes (not this one) whose marker is ``value``, or starts with it when it ends in ``SEP``."""
    me = str(os.getpid())
    out = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or entry.name == me:
            continue
        found = _marker_of(entry.name)
        if found is not None and (found == value or (value.endswith(SEP) and found.startswith(value))):
            out.append(int(entry.name))
    return out


def kill_marked(value: str) -> list[int]:
    """SIGKILL every process carrying the marker ``value`` until none is left; the pids killed.

    Repeats because a process may fork while it is being killed; a zombie has no environment left,
    so what remains is only what has not died yet. Zombies that are this process's children are
    reaped by ``reap_strays``."""
    from provider.backends.polling import Backoff, poll_until

    killed: set[int] = set()

    def kill_marked() -> list[int]:
        pids = marked(value)
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        killed.update(pids)
        return pids

    poll_until(kill_marked, lambda pids: not pids, Backoff.every(0.01), KILL_DEADLINE)
    return sorted(killed)


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
            signal.signal(REAPER_GONE, signal.SIG_IGN)  # until the supervisor hears it (Supervisor.run)
            die_with_parent(REAPER_GONE)  # not SIGTERM: a dead reaper is no request to stop the job
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
