"""A scripted HTTP server for what the emulator must not fake: Google's 403, 429 and 503 answers.

Each request takes the next step of the script: an answer (status and Google-format body), or
FORWARD (pass it to the upstream emulator), or a LOSE step (pass it upstream, then answer 503
as if the answer had been lost on the way back). When the script is used up, requests are
forwarded (or answered 404 when there is no upstream). Every request is recorded.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Reply:
    status: int
    body: dict[str, Any]


FORWARD = "forward"
LOSE = "lose"  # forward, then answer 503: the request took effect, its answer never arrived


def google_error(code: int, status: str, message: str, reason: str | None = None) -> Reply:
    error: dict[str, Any] = {"code": code, "message": message, "status": status}
    if reason:
        error["details"] = [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason,
                             "domain": "aiplatform.googleapis.com"}]
    return Reply(code, {"error": error})


@dataclass
class Seen:
    method: str
    path: str
    body: bytes


@dataclass
class ScriptedServer:
    script: list[Reply | str] = field(default_factory=list)
    upstream: str | None = None  # http://127.0.0.1:PORT
    seen: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: object) -> None:
                pass

            def setup(self) -> None:
                super().setup()
                with outer._lock:
                    outer._connections.add(self.connection)

            def finish(self) -> None:
                with contextlib.suppress(OSError):
                    super().finish()
                with outer._lock:
                    outer._connections.discard(self.connection)

            def _do(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with outer._lock:
                    outer.seen.append(Seen(self.command, self.path, body))
                    step = outer.script.pop(0) if outer.script else FORWARD
                if isinstance(step, Reply):
                    self._answer(step.status, json.dumps(step.body).encode())
                    return
                if outer.upstream is None:
                    self._answer(404, b'{"error": {"code": 404, "message": "no upstream", "status": "NOT_FOUND"}}')
                    return
                status, data = outer.forward(self.command, self.path, body, dict(self.headers))
                if step == LOSE:
                    self._answer(503, json.dumps(google_error(503, "UNAVAILABLE", "The service is currently "
                                                              "unavailable.").body).encode())
                    return
                self._answer(status, data)

            def _answer(self, status: int, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=UTF-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = do_PUT = _do

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self._thread.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def forward(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        assert self.upstream is not None
        url = urlsplit(self.upstream)
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        try:
            keep = {k: v for k, v in headers.items() if k.lower() in ("content-type", "x-goog-request-params")}
            conn.request(method, path, body=body or None, headers=keep)
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    def requests(self, method: str | None = None, contains: str = "") -> list[Seen]:
        return [s for s in self.seen if (method is None or s.method == method) and contains in s.path]

    def stop(self) -> None:
        self._server.shutdown()
        with self._lock:
            for conn in self._connections:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
        self._server.server_close()
        self._thread.join(timeout=5)
