"""A small HTTP stand-in for Google's APIs, so gcloud itself shows the job it would send.

gcloud runs offline with a scratch ``CLOUDSDK_CONFIG`` (``auth/disable_credentials``, a project,
and ``api_endpoint_overrides`` for ml, aiplatform, logging, storage and compute pointing here). The
stand-in records every request body, answers a job creation with the job (plus the fields the service
sets), a Compute Engine region or zone with itself (``gcloud config set compute/region`` checks that it
exists), and a Cloud Storage upload with the object's ``size``, ``md5Hash`` and ``crc32c``
(gcloud compares them with the local file).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import urllib.parse
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass
class Recorded:
    method: str
    path: str
    body: bytes


@dataclass
class StandIn:
    server: ThreadingHTTPServer
    thread: threading.Thread
    requests: list[Recorded] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/"

    def jobs(self) -> list[dict[str, Any]]:
        """The bodies of the job creations gcloud sent, in order."""
        return [json.loads(r.body) for r in self._creations()]

    def job_paths(self) -> list[str]:
        """The paths the job creations were sent to (a Vertex AI job's region is in its path), in order."""
        return [r.path.split("?")[0] for r in self._creations()]

    def _creations(self) -> list[Recorded]:
        return [r for r in self.requests
                if r.method == "POST" and re.search(r"/(jobs|customJobs|hyperparameterTuningJobs)$", r.path.split("?")[0])]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=30)


def _crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def _object(bucket: str, name: str, data: bytes) -> dict[str, Any]:
    return {
        "kind": "storage#object", "bucket": bucket, "name": name, "size": str(len(data)), "generation": "1",
        "md5Hash": base64.b64encode(hashlib.md5(data).digest()).decode(),
        "crc32c": base64.b64encode(_crc32c(data).to_bytes(4, "big")).decode(),
        "id": f"{bucket}/{name}/1", "contentType": "application/octet-stream",
        "adler": zlib.adler32(data),
    }


def _multipart_media(body: bytes, content_type: str) -> tuple[dict[str, Any], bytes]:
    """The metadata and the data of a multipart/related upload (gcloud quotes the boundary with ')."""
    from provider.emulator.storage import multipart_parts

    parts = multipart_parts(content_type, body) or [b"{}", b""]
    return json.loads(parts[0]), parts[1]


class _Handler(BaseHTTPRequestHandler):
    standin: StandIn

    def log_message(self, format: str, *args: object) -> None:  # quiet
        return

    def _reply(self, code: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_GET(self) -> None:
        self.standin.requests.append(Recorded("GET", self.path, b""))
        path = self.path.split("?")[0]
        if re.search(r"/storage/v1/b/[^/]+/o$", path):
            self._reply(200, {"kind": "storage#objects"})
            return
        m = re.search(r"/storage/v1/b/([^/]+)$", path)
        if m:
            self._reply(200, {"kind": "storage#bucket", "name": m.group(1), "location": "US-CENTRAL1"})
            return
        m = re.search(r"/projects/[^/]+/(regions|zones)/([^/]+)$", path)  # gcloud config set compute/region checks it
        if m:
            self._reply(200, {"kind": f"compute#{m.group(1)[:-1]}", "name": m.group(2)})
            return
        self._reply(404, {"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}})

    def do_POST(self) -> None:
        body = self._body()
        self.standin.requests.append(Recorded("POST", self.path, body))
        path = self.path.split("?")[0]
        m = re.search(r"/upload/storage/v1/b/([^/]+)/o$", path)
        if m:
            meta, media = _multipart_media(body, self.headers.get("Content-Type", ""))
            query = dict(urllib.parse.parse_qsl(self.path.partition("?")[2]))
            self._reply(200, _object(m.group(1), meta.get("name") or query.get("name", ""), media))
            return
        if path.endswith("/jobs"):
            job = json.loads(body)
            self._reply(200, {**job, "state": "QUEUED", "createTime": "2026-01-01T00:00:00Z"})
            return
        for collection in ("customJobs", "hyperparameterTuningJobs"):
            if path.endswith(f"/{collection}"):
                job = json.loads(body)
                parent = re.sub(r"^/v1(beta1|alpha1)?/", "", path).rsplit("/", 1)[0]  # any track's version
                self._reply(200, {**job, "name": f"{parent}/{collection}/1", "state": "JOB_STATE_PENDING",
                                  "createTime": "2026-01-01T00:00:00Z"})
                return
        self._reply(404, {"error": {"code": 404, "message": f"no stand-in for {path}", "status": "NOT_FOUND"}})


def start() -> StandIn:
    handler = type("Handler", (_Handler,), {})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    standin = StandIn(server, thread)
    handler.standin = standin  # type: ignore[attr-defined]
    thread.start()
    return standin


def write_config(config_dir: Path, url: str, project: str = "standin-project") -> None:
    """A scratch CLOUDSDK_CONFIG: no credentials, a project, every API pointed at the stand-in."""
    (config_dir / "configurations").mkdir(parents=True, exist_ok=True)
    (config_dir / "active_config").write_text("default")
    (config_dir / "configurations" / "config_default").write_text(
        f"[core]\nproject = {project}\ndisable_usage_reporting = True\n"
        "[auth]\ndisable_credentials = True\n"
        "[component_manager]\ndisable_update_check = True\n"
        f"[api_endpoint_overrides]\nml = {url}\naiplatform = {url}\nlogging = {url}\n"
        f"storage = {url}storage/v1/\ncompute = {url}compute/v1/\n"
    )
