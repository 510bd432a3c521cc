"""``trainjobs artifacts`` and ``trainjobs tensorboard``: what a job wrote, on any backend."""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from provider.cli.guard import user_error
from provider.cli.job_target import Target, add_stack_option, resolve, target
from provider.core.errors import UserError

if TYPE_CHECKING:
    from provider.backends.base import JobStatus

DOWNLOADED = "trainjobs-tensorboard-"  # the prefix of a temporary copy of a job's logs


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    a = sub.add_parser("artifacts", help="what a job wrote under its output directory (model, checkpoints, logs)")
    a.add_argument("job", metavar="JOB", help="a job id (or a unique prefix), a resource name, or a job name")
    a.add_argument("--download", metavar="DIR", help="copy them into DIR, keeping their paths")
    a.add_argument("--format", choices=["text", "json"], default="text", help="text (a table) or json (one object)")
    add_stack_option(a)
    a.set_defaults(_target="provider.cli.outputs:artifacts")

    t = sub.add_parser("tensorboard", help="start TensorBoard on a job's TensorBoard logs (AIP_TENSORBOARD_LOG_DIR)")
    t.add_argument("job", metavar="JOB", help="a job id (or a unique prefix), a resource name, or a job name")
    t.add_argument("--port", type=int, default=0, help="the port (default: a free one)")
    t.add_argument("--host", default="127.0.0.1", help="the address TensorBoard listens on (default: this machine only)")
    add_stack_option(t)
    t.set_defaults(_target="provider.cli.outputs:tensorboard")


def _job(args: argparse.Namespace) -> tuple[Target, JobStatus]:
    from provider.backends.base import BackendError

    t = target(args)
    try:
        return t, t.backend.get(resolve(t, args.job))
    except BackendError as exc:
        raise user_error(exc) from exc


def _size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def artifacts(args: argparse.Namespace) -> int:
    from provider.backends.artifacts import download, list_artifacts
    from provider.backends.base import BackendError

    t, job = _job(args)
    try:
        found = list_artifacts(job, t.backend)
        written = download(found, Path(args.download), t.backend) if args.download else []
    except BackendError as exc:
        raise user_error(exc) from exc
    if args.format == "json":
        for art in found:
            print(json.dumps({"uri": art.uri, "path": art.relative, "size": art.size, "kind": art.kind,
                              "trial": art.trial or None, "local": art.local_path or None}))
        return 0
    print(f"{job.display_name} ({job.id}): {len(found)} files under {job.output_dir}")
    for art in found:
        trial = f"trial {art.trial}  " if art.trial else ""
        where = f"  ({art.local_path})" if art.local_path and not args.download else ""
        print(f"  {trial}{art.kind:11s} {_size(art.size):>9s}  {art.relative}{where}")
    if args.download:
        print(f"downloaded {len(written)} files to {args.download}")
    return 0


def _log_dir(t: Target, job: JobStatus) -> Path:
    """A local directory holding the job's TensorBoard logs (downloaded first for Cloud Storage)."""
    from provider.backends.artifacts import download, list_artifacts

    found = [a for a in list_artifacts(job, t.backend) if a.kind == "logs"]
    if not found:
        raise UserError(f"{job.display_name} ({job.id}) wrote no TensorBoard logs under {job.output_dir}logs/ "
                        "(AIP_TENSORBOARD_LOG_DIR)")
    if found[0].local_path:
        root = Path(found[0].local_path)
        depth = len(Path(found[0].relative).parts)
        return root.parents[depth - 1]  # the output directory on this machine
    dest = Path(tempfile.mkdtemp(prefix=f"{DOWNLOADED}{job.id}-"))
    download(found, dest, t.backend)
    return dest


def tensorboard(args: argparse.Namespace) -> int:
    from provider.backends.base import BackendError
    from provider.core.optional import Part, require

    require(Part.TENSORBOARD, "trainjobs tensorboard")
    exe = shutil.which("tensorboard", path=str(Path(sys.executable).parent)) or shutil.which("tensorboard")
    if exe is None:
        raise UserError("TensorBoard is installed, but its tensorboard program is not on PATH nor beside "
                        f"{sys.executable}", exit_code=2)
    t, job = _job(args)
    try:
        logdir = _log_dir(t, job)
    except BackendError as exc:
        raise user_error(exc) from exc
    port = args.port or _free_port(args.host)
    print(f"TensorBoard for {job.display_name} ({job.id}) on {logdir}: http://{args.host}:{port}/", flush=True)
    proc = subprocess.Popen([exe, "--logdir", str(logdir), "--host", args.host, "--port", str(port)])
    # Stopped by SIGTERM (a service manager, `kill`, a test) as by Ctrl-C: TensorBoard is stopped
    # with it, never left serving on its own, and a downloaded copy of the logs is removed.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        return proc.wait()
    except KeyboardInterrupt:
        _stop(proc)
        return 0
    finally:
        signal.signal(signal.SIGTERM, previous)
        if proc.poll() is None:
            _stop(proc)
        if logdir.name.startswith(DOWNLOADED):  # a copy of Cloud Storage's: gone with TensorBoard
            shutil.rmtree(logdir, ignore_errors=True)


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=30)


def _free_port(host: str) -> int:
    import socket

    with socket.socket() as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
        return port
