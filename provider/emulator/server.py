"""The emulator's HTTP server: a stdlib ThreadingHTTPServer speaking HTTP/1.1 with keep-alive.

    with Emulator(state_dir, port=0) as emu:     # or emu.start() ... emu.stop()
        emu.endpoint                             # http://127.0.0.1:PORT

State dir layout: ``jobs/``, ``operations/`` (the emulator's records), ``persistentResources/`` (persistent.py's),
``local/`` (the local backend's home), ``storage/`` (gs:// objects, unless ``storage_root`` says), ``emulator.lock``.

Limits, so that no client can hold it or crash it:

* a listen backlog of ``BACKLOG`` and a thread per connection (daemon threads): a burst of
  hundreds of concurrent requests is served, not reset;
* a connection that sends nothing for ``IDLE_TIMEOUT`` seconds, or takes longer than ``READ_TIMEOUT`` seconds
  to send a request's line and headers (a slow drip), is closed; a body gets ``READ_TIMEOUT`` plus one second per MiB;
* every error, down to a garbage request line or an unknown method, is a Google-style JSON
  error with a 4xx code (5xx only for a bug); JSON nested beyond 100 levels is refused;
* a body is framed as RFC 9112 says, or refused and the connection closed (framing.py): chunked
  bodies are capped like Content-Length ones, at framing.MAX_BODY (JSON requests at MAX_JSON);
  a body over 64 KiB goes to a spool file, never whole into memory, and at most ``MAX_UPLOADS``
  such bodies are received at once (beyond: 429 RESOURCE_EXHAUSTED, ``Retry-After: 1``).

It binds 127.0.0.1 by default and has no authentication; it answers only requests whose Host
names it, and takes no state change from a browser page (gate.py, provider/core/trust.py).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import socket
import sys
import threading
import time
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import parse_qsl, unquote, urlsplit

from provider.backends.local.backend import LocalBackend
from provider.core.trust import Binding
from provider.emulator import gate, run_watch, wire
from provider.emulator.errors import ApiError
from provider.emulator.framing import BLOCK, MAX_BODY, MAX_JSON, Body, is_large, read_body
from provider.emulator.nested_routes import Tracking
from provider.emulator.persistent import PersistentResourceService
from provider.emulator.pipelines import training_services
from provider.emulator.routes import Request, route
from provider.emulator.service import JobService
from provider.emulator.storage import Answer, StorageService
from provider.emulator.store import EmulatorStore

BACKLOG = 1024
IDLE_TIMEOUT = 60.0
READ_TIMEOUT = 30.0
_LINGER_SECONDS, _LINGER_BYTES = 2.0, 64 * 1024 * 1024  # how long, how much an early answer waits for the rest
_PER_MIB = 1.0
MAX_UPLOADS = 16  # bodies large enough to be spooled to disk, received at once
LOOPBACK = ("127.0.0.1", "localhost", "::1")
_TOKEN = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]+$")  # what an HTTP method may be made of
# What the stdlib's own errors (bad request lines, unknown methods...) become.
_STDLIB_ERRORS = {
    400: (400, "INVALID_ARGUMENT"), 404: (404, "NOT_FOUND"), 408: (408, "DEADLINE_EXCEEDED"),
    413: (413, "INVALID_ARGUMENT"), 414: (414, "INVALID_ARGUMENT"), 431: (431, "INVALID_ARGUMENT"),
    501: (405, "UNIMPLEMENTED"), 505: (400, "INVALID_ARGUMENT"),
}


def _query(query: str) -> dict[str, str]:
    """The URL's query parameters (the last of a repeated one); 400 when they are not UTF-8."""
    try:
        return dict(parse_qsl(query, keep_blank_values=True, errors="strict"))
    except UnicodeDecodeError:
        raise ApiError("INVALID_ARGUMENT", "The request URL's query parameters are not UTF-8 once percent-decoded: "
                                           "encode every parameter as UTF-8.") from None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = BACKLOG

    def __init__(self, address: tuple[str, int], app: Emulator) -> None:
        self.app = app
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        self.deadlines: dict[socket.socket, float] = {}  # connections being read: when they must be done
        self.idle_timeout = IDLE_TIMEOUT
        self.read_timeout = READ_TIMEOUT
        self.uploads = threading.BoundedSemaphore(MAX_UPLOADS)
        self._watching = threading.Event()
        super().__init__(address, _Handler)
        self._watchdog = threading.Thread(target=self._watch, name="emulator-timeouts", daemon=True)
        self._watchdog.start()

    def arm(self, conn: socket.socket, seconds: float) -> None:
        with self.connections_lock:
            self.deadlines[conn] = time.monotonic() + seconds

    def disarm(self, conn: socket.socket) -> None:
        with self.connections_lock:
            self.deadlines.pop(conn, None)

    def _watch(self) -> None:
        """Close connections that are too slow to send their request (a slow drip, an idle keep-alive)."""
        while not self._watching.wait(0.5):
            now = time.monotonic()
            with self.connections_lock:
                late = [c for c, t in self.deadlines.items() if t < now]
                for conn in late:
                    del self.deadlines[conn]
            for conn in late:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)

    def server_close(self) -> None:
        self._watching.set()
        super().server_close()

    def close_connections(self) -> None:
        """End the keep-alive connections still open, so no handler thread outlives the server."""
        with self.connections_lock:
            for conn in list(self.connections):
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # without it every answer waits ~40 ms for the client's delayed ACK
    server: _Server
    server_version = "trainjobs-emulator"
    unread_body = False  # an answer went out before the request's body was read: linger before closing

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.idle_timeout)  # no single read waits longer
        with self.server.connections_lock:
            self.server.connections.add(self.connection)

    def finish(self) -> None:
        with contextlib.suppress(OSError):
            super().finish()
        if self.close_connection and self.unread_body:
            self._linger()
        with self.server.connections_lock:
            self.server.connections.discard(self.connection)
            self.server.deadlines.pop(self.connection, None)

    def _linger(self) -> None:
        """Answered before its body was read (a 413, a 429, a refusal): close the sending side, then
        read and drop what the client still sends, for a short while, before the socket closes. A
        socket closed with unread data sends a reset, which can destroy the answer before the
        client reads it (RFC 9112, 9.6: a lingering close)."""
        conn = self.connection
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_WR)
            conn.settimeout(0.5)
            deadline, dropped = time.monotonic() + _LINGER_SECONDS, 0
            while time.monotonic() < deadline and dropped < _LINGER_BYTES:
                data = conn.recv(1 << 16)
                if not data:
                    break
                dropped += len(data)

    def handle_one_request(self) -> None:
        """Wait for the next request (at most the idle timeout), then read it (at most the read timeout)."""
        self.command = None  # type: ignore[assignment]  # an error before the request line has none
        self.server.arm(self.connection, self.server.idle_timeout)
        try:
            ready = self.rfile.peek(1) if isinstance(self.rfile, io.BufferedReader) else b"?"
        except (OSError, ValueError):
            ready = b""
        if not ready:
            self.close_connection = True
            return
        self.server.arm(self.connection, self.server.read_timeout)
        try:
            super().handle_one_request()
        except (OSError, ValueError):  # the connection was closed under it (a timeout)
            self.close_connection = True

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The stdlib's errors (bad request line, unknown method, headers too long) as Google JSON."""
        http, status = _STDLIB_ERRORS.get(code, (400, "INVALID_ARGUMENT"))
        if code == 501 and not _TOKEN.match(self.command or ""):
            http, status, code, message = 400, "INVALID_ARGUMENT", 400, f"Bad request method {self.command!r}"
        self.request_version = "HTTP/1.1"  # an error always has a status line, even to an HTTP/0.9-looking request
        if code == 501:
            text = (f"Method {self.command!r} is not supported: the emulator answers GET, POST, PUT, PATCH, "
                    "DELETE and HEAD.")
        else:
            text = f"{message or HTTPStatus(code).phrase}."
        self.close_connection = True
        self.server.disarm(self.connection)
        error = ApiError(status, text, http=http)
        with contextlib.suppress(OSError):
            self._send(Answer(status=http, data=json.dumps(error.body()).encode(), headers=(("Connection", "close"),)))

    def log_message(self, format: str, *args: object) -> None:
        if self.server.app.verbose:
            sys.stderr.write(f"emulator: {self.address_string()} {format % args}\n")

    def _read_body(self) -> Body:
        """The request's body (framing.py); a framing error closes the connection, as RFC 9112 asks."""
        def rearm(size: int) -> None:
            self.server.arm(self.connection, self.server.read_timeout + _PER_MIB * size / (1 << 20))
        # Only uploads carry objects; a JSON request over MAX_JSON is refused before it is read.
        limit = MAX_BODY if urlsplit(self.path).path.startswith("/upload/") else MAX_JSON
        try:
            return read_body(self.headers, self.rfile, self.server.app.storage.spool, rearm, limit)
        except (ApiError, OSError, ValueError) as exc:
            self.close_connection = True  # the rest of the body is still on the wire: start afresh
            self.unread_body = True
            if isinstance(exc, ApiError):
                raise
            raise ApiError("INVALID_ARGUMENT", f"The request body cannot be read: {exc}") from None

    def _upload_slot(self) -> bool:
        """Take one of the ``MAX_UPLOADS`` slots for a body that may go to disk; 429 when none is free."""
        if not is_large(self.headers):
            return False
        if self.server.uploads.acquire(blocking=False):
            return True
        self.close_connection = True  # its body is not read
        self.unread_body = True
        raise ApiError("RESOURCE_EXHAUSTED", f"The trainjobs emulator is already receiving {MAX_UPLOADS} large "
                                             "request bodies (uploads); retry when one has finished.", http=429,
                       headers=(("Retry-After", "1"),))

    def _dispatch(self) -> None:
        body: Body | None = None
        slot = False
        try:
            refused = gate.refusal(self.server.app.binding, self.command, self.path, self.headers.items())
            if refused is not None:
                self.close_connection = True  # its body, if any, is left unread
                self.unread_body = True
                raise refused
            slot = self._upload_slot()
            body = self._read_body()
            self.server.disarm(self.connection)
            url = urlsplit(self.path)
            params = _query(url.query)
            if "\0" in unquote(self.path) or any("\0" in k + v for k, v in params.items()):
                raise ApiError("INVALID_ARGUMENT", "The request URL contains a NUL character, which no name may "
                                                   "hold.")
            request = Request(method=self.command, path=url.path, params=params, query=url.query,
                              headers={k.lower(): v for k, v in self.headers.items()}, payload=body)
            handler, match = route(self.command, url.path)
            answer = handler(self.server.app, request, match)
        except ApiError as exc:
            answer = Answer(status=exc.http, data=json.dumps(exc.body()).encode(), headers=exc.headers)
        except (RecursionError, json.JSONDecodeError, UnicodeDecodeError) as exc:  # a body no handler could read
            error = ApiError("INVALID_ARGUMENT", f"Invalid JSON payload received. {type(exc).__name__}: {exc}")
            answer = Answer(status=400, data=json.dumps(error.body()).encode())
        except Exception as exc:  # a bug: answer 500 like Google would, and say what happened
            traceback.print_exc(file=sys.stderr)
            error = ApiError("INTERNAL", f"Internal error in the trainjobs emulator: {type(exc).__name__}: {exc}")
            answer = Answer(status=500, data=json.dumps(error.body()).encode())
        finally:
            if body is not None:
                body.discard()
            if slot:
                self.server.uploads.release()
        if self.close_connection:
            answer = Answer(status=answer.status, data=answer.data, json=answer.json, file=answer.file,
                            span=answer.span, headers=(*answer.headers, ("Connection", "close")))
        self._send(answer)

    def _send(self, answer: Answer) -> None:
        if answer.file is not None:
            self._send_file(answer)
            return
        data = answer.data if answer.data is not None else json.dumps(answer.json or {}).encode()
        self._head(answer, len(data) if answer.status != 204 else 0)
        if answer.status != 204 and getattr(self, "command", None) != "HEAD":
            self.wfile.write(data)

    def _head(self, answer: Answer, length: int) -> None:
        self.send_response(answer.status)
        names = {k.lower() for k, _ in answer.headers}
        if "content-type" not in names and answer.status not in (204, 308):
            self.send_header("Content-Type", "application/json; charset=UTF-8")
        for key, value in (*answer.headers, *gate.RESPONSE_HEADERS):
            self.send_header(key, value)
        self.send_header("Content-Length", str(length))
        self.end_headers()

    def _send_file(self, answer: Answer) -> None:
        """An object's bytes (or a range of them), a block at a time: a download never sits in memory."""
        assert answer.file is not None
        try:
            f = open(answer.file, "rb")  # noqa: SIM115  (closed below)
        except FileNotFoundError:  # deleted since it was found
            self._send(Answer(status=404, data=json.dumps(ApiError("NOT_FOUND", "No such object.").body()).encode()))
            return
        with f:
            start, length = answer.span or (0, os.fstat(f.fileno()).st_size)
            self._head(answer, length)
            if getattr(self, "command", None) == "HEAD":
                return
            f.seek(start)
            while length > 0:
                block = f.read(min(BLOCK, length))
                if not block:
                    raise OSError(f"{answer.file} shrank while it was sent")  # the connection then ends short
                self.wfile.write(block)
                length -= len(block)

    do_GET = do_POST = do_DELETE = do_PUT = do_PATCH = do_HEAD = _dispatch


class Emulator:
    """The Vertex AI (and Cloud Storage) emulator: an HTTP server whose jobs run on the local backend."""

    def __init__(self, state_dir: str | Path, host: str = "127.0.0.1", port: int = 0,
                 storage_root: str | Path | None = None, cpu_only: bool = False, verbose: bool = False,
                 allow_hosts: tuple[str, ...] = ()) -> None:
        self.allow_hosts = allow_hosts  # --allow-host: more names its Host header may give (provider.core.trust)
        self.binding = Binding.of(host, port, allow_hosts)  # ValueError for a bad name, before anything starts
        self.state_dir = Path(state_dir).expanduser().resolve()
        self.host = host
        self.port = port
        self.storage_root = Path(storage_root).expanduser().resolve() if storage_root else self.state_dir / "storage"
        self.cpu_only = cpu_only
        self.verbose = verbose
        self.store = EmulatorStore(self.state_dir)
        self.local = LocalBackend(home=self.state_dir / "local", storage_root=self.storage_root, adopt=False)
        self.persistent = PersistentResourceService(self.state_dir)
        self.jobs = JobService(self.store, self.local, cpu_only=cpu_only, persistent=self.persistent)
        self.storage = StorageService(self.storage_root)
        self.operations, self.models, self.datasets, self.pipelines = training_services(self.jobs, self.storage_root)
        self.tracking = Tracking(self.state_dir, self.store)  # TensorBoard and the metadata service
        self.watch = run_watch.RunWatch(self.jobs, self.tracking, self.storage_root, self.state_dir)  # jobs' hook too
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def endpoint(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def start(self) -> Emulator:
        """Take the state dir, load it, and serve in a background thread."""
        self.store.open()
        try:
            self.storage_root.mkdir(parents=True, exist_ok=True)
            self.storage.sweep()
            self.persistent.open()
            self.tracking.open()
            self.jobs.reconcile()
            wire.message_type("CustomJob")  # seconds to import: not in a first answer (a 5 s client deadline)
            self._server = _Server((self.host, self.port), self)
        except BaseException:
            self.store.close()
            raise
        self.port = self._server.server_address[1]
        self.binding = Binding.of(self.host, self.port, self.allow_hosts)
        self.storage.base_url = self.local.api_endpoint = self.endpoint  # the local backend: for its trainers
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.2},
                                        name=f"emulator-{self.port}", daemon=True)
        self._thread.start()
        self.watch.start()  # the experiment runs made for jobs follow them (run_watch.py)
        return self

    def warnings(self) -> list[str]:
        """What the user must know: an address others can reach, records that could not be loaded."""
        out = []
        if self.host not in LOOPBACK:
            out.append(f"the emulator listens on {self.host}, which other machines may reach, and it has no "
                       "authentication: anyone who can connect can create, read, cancel and delete jobs and read "
                       "and write its storage. Use --host 127.0.0.1 (the default) unless you mean it")
        out += [f"skipped an unreadable record (left as it is): {u}"
                for u in self.store.unreadable + self.persistent.unreadable + self.tracking.records.unreadable]
        return out

    def stop(self) -> None:
        """Stop serving and release the state dir. Jobs keep running; a new emulator finds them."""
        self.watch.stop()
        if self._server is not None:
            self._server.shutdown()
            self._server.close_connections()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        self.store.close()

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
