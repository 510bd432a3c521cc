"""A small Language Server Protocol client: what an editor with yaml-language-server shows.

It starts the real yaml-language-server (tests/js, from npm) over stdio, opens documents the way
VS Code's YAML extension does, answers the server's configuration requests with the settings a
user would have, and returns the diagnostics the server publishes.
"""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "tests" / "js" / "node_modules" / "yaml-language-server" / "bin" / "yaml-language-server"


@dataclass(frozen=True)
class Diagnostic:
    line: int  # 1-based, as an editor shows it
    column: int
    message: str
    severity: int  # 1 error, 2 warning, 3 information, 4 hint

    @classmethod
    def of(cls, raw: dict[str, Any]) -> Diagnostic:
        start = raw["range"]["start"]
        return cls(start["line"] + 1, start["character"] + 1, raw["message"], raw.get("severity", 1))


class YamlLanguageServer:
    """One server process; ``close()`` (or the context manager) ends it."""

    def __init__(self, workspace: Path, settings: dict[str, Any] | None = None) -> None:
        node = shutil.which("node")
        if node is None or not SERVER.exists():
            pytest.fail("yaml-language-server needs Node.js and tests/js/node_modules: run bash scripts/setup.sh dev")
        self.workspace = workspace
        self.settings = settings or {"yaml": {"validate": True, "hover": True, "completion": True,
                                              "schemaStore": {"enable": False}}}
        self.proc = subprocess.Popen([node, str(SERVER), "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, cwd=workspace)
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self._next_id = 0
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.request("initialize", {"processId": None, "rootUri": workspace.as_uri(),
                                    "workspaceFolders": [{"uri": workspace.as_uri(), "name": "w"}],
                                    "capabilities": {"workspace": {"configuration": True},
                                                     "textDocument": {"publishDiagnostics": {}}}})
        self.notify("initialized", {})
        self.notify("workspace/didChangeConfiguration", {"settings": self.settings})

    def __enter__(self) -> YamlLanguageServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=30)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = 0
            while True:
                line = out.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            self.messages.put(json.loads(out.read(length)))

    def _send(self, payload: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **payload}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self._send({"method": method, "params": params})

    def request(self, method: str, params: dict[str, Any], timeout: float = 120) -> Any:
        self._next_id += 1
        rid = self._next_id
        self._send({"id": rid, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            msg = self._take(deadline)
            if msg.get("id") == rid and "method" not in msg:
                return msg.get("result")

    def _take(self, deadline: float) -> dict[str, Any]:
        """The next message, answering the server's own requests on the way."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("yaml-language-server did not answer in time")
            try:
                msg = self.messages.get(timeout=remaining)
            except queue.Empty:
                continue
            if "method" in msg and "id" in msg:  # a request from the server
                result: Any = None
                if msg["method"] == "workspace/configuration":
                    result = [self.settings.get(item.get("section", ""), None) for item in msg["params"]["items"]]
                self._send({"id": msg["id"], "result": result})
                continue
            return msg

    def diagnostics(self, path: Path, text: str | None = None, timeout: float = 120) -> list[Diagnostic]:
        """Open ``path`` (with ``text``, else its content) and return what the server reports."""
        uri = path.resolve().as_uri()
        content = path.read_text(encoding="utf-8") if text is None else text
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                                                               "text": content}})
        deadline = time.monotonic() + timeout
        while True:
            msg = self._take(deadline)
            if msg.get("method") == "textDocument/publishDiagnostics" and msg["params"]["uri"] == uri:
                return [Diagnostic.of(d) for d in msg["params"]["diagnostics"]]

    def hover(self, path: Path, line: int, column: int) -> str:
        """The hover text at a 1-based line and column of an opened document."""
        result = self.request("textDocument/hover", {"textDocument": {"uri": path.resolve().as_uri()},
                                                     "position": {"line": line - 1, "character": column - 1}})
        if not result:
            return ""
        contents = result["contents"]
        return contents["value"] if isinstance(contents, dict) else str(contents)
