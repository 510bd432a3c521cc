"""Run a command in its own mount namespace, where ``/gcs`` is the storage root (Cloud Storage FUSE here).

``python -I -S gcs_namespace.py ROOT SCRATCH -- COMMAND...`` (run by path, so it imports nothing
but the standard library, whatever Python the trainer has): it unshares a mount namespace (and a
user namespace when not root, mapping the caller's own uid and gid, so no privilege is needed),
binds ROOT at ``/gcs`` and execs COMMAND, which keeps this process's pid, group and environment.
Nothing changes for any other process. Where ``/`` has no ``/gcs`` directory to bind onto (the
usual case), the command's root is a tmpfs mounted on SCRATCH (an empty directory of the job's)
holding a bind of every entry of ``/`` and the ``gcs`` directory, as bubblewrap builds one; the
command then sees the same files everywhere else, at the same paths.

Exit status 125 and one line on stderr when the namespace cannot be made (the kernel forbids user
namespaces, seccomp, ...); gcs_fuse.py probes this once per job before relying on it.
"""

from __future__ import annotations

import ctypes
import os
import sys

CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_BIND, MS_REC, MS_PRIVATE, MS_NOSUID, MS_NODEV = 4096, 16384, 1 << 18, 2, 4
FAILED = 125  # as env(1) and unshare(1) say that they themselves failed
_libc = ctypes.CDLL(None, use_errno=True)


def _checked(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int) -> None:
    _checked(_libc.mount(source.encode() if source else None, target.encode(), fstype.encode() if fstype else None,
                         flags, None), f"mount {target}")


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def enter(root: str, scratch: str) -> None:
    """Make this process's own mount namespace with ``root`` at /gcs (the working directory kept)."""
    uid, gid, cwd = os.geteuid(), os.getegid(), os.getcwd()
    _checked(_libc.unshare(CLONE_NEWNS | (CLONE_NEWUSER if uid else 0)), "unshare")
    if uid:
        _write("/proc/self/setgroups", "deny")  # required before an unprivileged gid_map
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing mounted here reaches the host
    if os.path.isdir("/gcs") and not os.path.islink("/gcs"):
        _mount(root, "/gcs", None, MS_BIND | MS_REC)
        return
    _mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV)
    for name in os.listdir("/"):
        source, target = "/" + name, os.path.join(scratch, name)
        if name == "gcs":
            continue
        if os.path.islink(source):
            os.symlink(os.readlink(source), target)
        elif os.path.isdir(source):
            os.mkdir(target)
            _mount(source, target, None, MS_BIND | MS_REC)
        else:
            open(target, "w").close()
            _mount(source, target, None, MS_BIND)
    os.mkdir(os.path.join(scratch, "gcs"))
    _mount(root, os.path.join(scratch, "gcs"), None, MS_BIND | MS_REC)
    os.chdir(scratch)
    os.chroot(".")
    os.chdir(cwd)


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        print("usage: gcs_namespace.py ROOT SCRATCH -- COMMAND...", file=sys.stderr)
        return 2
    root, scratch, command = argv[0], argv[1], argv[3:]
    try:
        enter(root, scratch)
    except OSError as exc:
        print(f"trainjobs: no mount namespace for /gcs here: {exc}", file=sys.stderr, flush=True)
        return FAILED
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        print(f"trainjobs: cannot run {command[0]}: {exc}", file=sys.stderr, flush=True)
    return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
