"""``trainjobs console``: serve the web console (needs the optional extra ``trainjobs[console]``)."""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path

from provider.core.errors import UserError
from provider.core.exit_code import ExitCode
from provider.core.trust import Binding, is_loopback


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    c = sub.add_parser("console", help="a web UI: jobs, logs, tuning charts, a stack's GPUs and cost, plans")
    c.add_argument("--port", type=int, default=0, help="the port (default: a free one, printed with the URL)")
    c.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1; the console has no authentication)")
    c.add_argument("--allow-host", action="append", default=[], metavar="NAME[:PORT]",
                   help="also answer requests whose Host is NAME (a proxy, an SSH tunnel, a DNS alias); repeat for "
                        "more. Other Hosts are refused (DNS rebinding): docs/security.md")
    c.add_argument("--stack", action="append", default=[], metavar="S",
                   help="also show this stack's jobs (local, Vertex AI, or the emulator through trainjobs:apiEndpoint); "
                        "repeat for more")
    c.add_argument("--stacks", default="stacks", metavar="DIR", help="the stack files (default: stacks)")
    c.add_argument("--plan", metavar="FILE", help="a plan to show: trainjobs plan --format json > FILE")
    c.set_defaults(_target="provider.cli.console:run")


def _listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound here so that the printed port is the one served (0: a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)  # from now on a client that connects waits for uvicorn, rather than being refused
    except OSError:
        sock.close()
        raise
    return sock


def run(args: argparse.Namespace) -> int:
    from provider.core.optional import Part, require

    require(Part.CONSOLE, "trainjobs console")
    import uvicorn

    from provider.console.app import Console, create_app
    from provider.console.sources import SourceError, load

    try:
        sources = load(args.stack, Path(args.stacks))
    except SourceError as exc:
        raise UserError(f"--stack: {exc.message}" + (f"; {exc.fix}" if exc.fix else ""), exit_code=2) from None
    plan = Path(args.plan) if args.plan else None
    if plan is not None and not plan.is_file():
        raise UserError(f"--plan {args.plan}: no such file; write one with: trainjobs plan --format json > {args.plan}",
                        exit_code=ExitCode.NOT_FOUND)
    try:
        sock = _listen(args.host, args.port)
    except (OSError, OverflowError) as exc:
        why = getattr(exc, "strerror", None) or str(exc)
        raise UserError(f"cannot listen on {args.host} port {args.port} ({why}); choose another --port or --host",
                        exit_code=2) from None
    port = sock.getsockname()[1]
    try:
        binding = Binding.of(args.host, port, tuple(args.allow_host))
    except ValueError as exc:
        sock.close()
        raise UserError(f"{exc}: check --host and --allow-host", exit_code=2) from None
    if not is_loopback(args.host):
        print(f"trainjobs: warning: listening on {args.host}, not on a loopback address: the console has no "
              "authentication, and anyone who can reach this port can see every job and cancel it", file=sys.stderr)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"trainjobs console: http://{shown}:{port}/  (reads {sources.summary()}; Ctrl-C stops it)",
          flush=True)
    app = create_app(Console(sources, plan_file=plan), binding)
    config = uvicorn.Config(app, host=args.host, port=port, log_level="warning", timeout_graceful_shutdown=2)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return 0
