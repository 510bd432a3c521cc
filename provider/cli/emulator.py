"""``trainjobs emulator``: serve a local Vertex AI (and Cloud Storage) emulator until stopped."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from provider.core.errors import UserError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    e = sub.add_parser(
        "emulator", help="serve the Vertex AI job API (and the Cloud Storage uploads it needs) on this machine; "
        "its jobs run on the local backend")
    e.add_argument("--port", type=int, default=0, help="port to listen on (default 0: a free port)")
    e.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    e.add_argument("--allow-host", action="append", default=[], metavar="NAME[:PORT]",
                   help="also answer requests whose Host is NAME (a proxy, an SSH tunnel, a DNS alias); repeat for "
                        "more. Other Hosts are refused (DNS rebinding): docs/security.md")
    e.add_argument("--state-dir", metavar="DIR",
                   help="where jobs, operations, logs and storage are kept (default <TRAINJOBS_HOME>/emulator)")
    e.add_argument("--storage", metavar="DIR", help="the gs:// storage root (default <state-dir>/storage)")
    e.add_argument("--cpu", action="store_true", help="run jobs that ask for GPUs on the CPU (smoke tests)")
    e.add_argument("--verbose", "-v", action="store_true", help="log every request")
    e.add_argument("--workspace", metavar="DIR", help="a repository whose stacks' quotas and policy apply to jobs "
                   "labelled with one of its stacks (trainjobs-stack), as trainjobs validate and run apply them")
    e.set_defaults(_target="provider.cli.emulator:run")


def gcloud_lines(endpoint: str) -> str:
    """The ``gcloud config set`` lines that point gcloud at the emulator (docs/migration.md)."""
    base = endpoint.rstrip("/") + "/"
    return "\n".join([
        "  export CLOUDSDK_CONFIG=$(mktemp -d)   # leaves your own gcloud configuration alone",
        "  gcloud config set auth/disable_credentials true",
        "  gcloud config set core/project my-project",
        f"  gcloud config set api_endpoint_overrides/aiplatform {base}",
        f"  gcloud config set api_endpoint_overrides/logging {base}",
        f"  gcloud config set api_endpoint_overrides/storage {base}storage/v1/",
    ])


def usage(endpoint: str, state_dir: Path, storage: Path) -> str:
    return f"""trainjobs emulator: Vertex AI on {endpoint}
  state dir   {state_dir}  (jobs survive a restart; their logs are under local/jobs/ID/logs)
  gs://       {storage}

Point the Vertex AI SDK at it:
  from google.auth.credentials import AnonymousCredentials
  from google.cloud import aiplatform
  aiplatform.init(project="my-project", location="us-central1", api_endpoint="{endpoint}",
                  api_transport="rest", credentials=AnonymousCredentials())
or the low-level client:
  aiplatform_v1.JobServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                 client_options={{"api_endpoint": "{endpoint}"}})
Cloud Storage (to stage packages): STORAGE_EMULATOR_HOST={endpoint}, or
  storage.Client(project="my-project", credentials=AnonymousCredentials(),
                 client_options={{"api_endpoint": "{endpoint}"}})
A trainjobs stack: trainjobs:backend: vertex and trainjobs:apiEndpoint: {endpoint}
gcloud (custom-jobs create/describe/list/cancel/stream-logs, storage cp/ls), in a scratch configuration:
{gcloud_lines(endpoint)}

Ctrl-C stops it. Running jobs keep running; the next emulator on this state dir finds them."""


def run(args: argparse.Namespace) -> int:
    from provider.core.optional import Part, require

    require(Part.VERTEX, "trainjobs emulator")  # it reads and writes the Vertex AI API's own messages
    from provider.backends.local.paths import default_home
    from provider.emulator.server import Emulator
    from provider.emulator.store import StateDirBusy

    if not 0 <= args.port <= 65535:
        raise UserError(f"--port {args.port} is not a port: 0 (a free one) to 65535", exit_code=2)
    state_dir = Path(args.state_dir).expanduser() if args.state_dir else default_home() / "emulator"
    try:
        emulator = Emulator(state_dir, host=args.host, port=args.port, storage_root=args.storage, cpu_only=args.cpu,
                            verbose=args.verbose, allow_hosts=tuple(args.allow_host))
    except ValueError as exc:  # a --host or --allow-host that is no host name or address
        raise UserError(f"{exc}: check --host and --allow-host", exit_code=2) from None
    if args.workspace:
        from provider.workspace import Workspace, find_root

        root = find_root(args.workspace)
        if root is None:
            raise UserError(f"--workspace {args.workspace}: no repository there (no Pulumi.yaml, stacks/ or .git)",
                            exit_code=2)
        emulator.jobs.workspace = Workspace.load(root)
    try:
        emulator.start()
    except StateDirBusy as exc:
        raise UserError(str(exc)) from exc
    except OSError as exc:
        raise UserError(f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}") from exc
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, on_signal)
    try:
        print(usage(emulator.endpoint, emulator.state_dir, emulator.storage_root), flush=True)
        for warning in emulator.warnings():
            print(f"warning: {warning}", file=sys.stderr, flush=True)
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        emulator.stop()
    print("trainjobs emulator: stopped", flush=True)
    return 0
