"""The console answers only its own pages: DNS rebinding, another site's form or fetch, a stolen
token or a planted cookie cancel nothing and read nothing; its own pages still work, in Chromium
too. Its event loop never waits for a backend (a slow source does not freeze other pages), and a
log stream the browser dropped gives its thread back even while the job prints nothing.

A real ``trainjobs console`` in a subprocess, real jobs on the local backend, real sockets
(http.client, so Host, Origin, Cookie and Sec-Fetch-* are exactly what is sent)."""

from __future__ import annotations

import html
import http.client
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest

from provider.backends.base import JobState, ReplicaState
from tests.local.conftest import cleanup

from .conftest import probe_spec, start_console, stop_console, wait_until, write_stack

pytestmark = pytest.mark.slow
QUIET = ["--steps", "1", "--step-seconds", "3600"]  # once its replica runs, it prints nothing for an hour


class Tarpit:
    """A TCP server that accepts connections and answers nothing until released: a backend that hangs."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.held: list[socket.socket] = []
        self.accepted = threading.Event()
        self.released = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if self.released.is_set():
                conn.close()
            else:
                self.held.append(conn)
                self.accepted.set()

    def release(self) -> None:
        self.released.set()
        for conn in self.held:
            conn.close()

    def close(self) -> None:
        self.release()
        self.sock.close()


@dataclass
class Site:
    root: Path
    proc: Any
    url: str
    local: Any
    tarpit: Tarpit
    jobs: dict[str, Any] = field(default_factory=dict)

    @property
    def port(self) -> int:
        return int(urlsplit(self.url).port or 0)

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, env_cache: Path) -> Iterator[Site]:
    from provider.backends.local.backend import LocalBackend
    from tests.local.conftest import submit

    tmp = tmp_path_factory.mktemp("console-trust")
    root = tmp / "project"
    root.mkdir()
    env = {**os.environ, "TRAINJOBS_HOME": str(tmp / "home"), "TRAINJOBS_ENV_CACHE": str(env_cache),
           "TRAINJOBS_LOCAL_GPUS": "none", "NO_COLOR": "1", "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    for key in ("TRAINJOBS_STORAGE", "TRAINJOBS_LOCAL_GPU_MODE", "STORAGE_EMULATOR_HOST", "TRAINJOBS_DEBUG"):
        env.pop(key, None)
    tarpit = Tarpit()
    write_stack(root, "slow", {"trainjobs:backend": "vertex", "trainjobs:team": "nlp", "gcp:project": "test-project",
                               "gcp:region": "us-central1", "trainjobs:specs": ["specs/slow/*.yaml"],
                               "trainjobs:apiEndpoint": f"http://127.0.0.1:{tarpit.port}"})
    proc = local = None
    with pytest.MonkeyPatch.context() as mp:
        for key in ("TRAINJOBS_HOME", "TRAINJOBS_ENV_CACHE", "TRAINJOBS_LOCAL_GPUS"):
            mp.setenv(key, env[key])
        for key in ("TRAINJOBS_STORAGE", "TRAINJOBS_LOCAL_GPU_MODE", "STORAGE_EMULATOR_HOST"):
            mp.delenv(key, raising=False)
        try:
            local = LocalBackend()
            jobs = {name: submit(local, probe_spec(name, args=QUIET)) for name in ("quiet-job", "cancel-me",
                                                                                   "browser-cancel")}
            for job in jobs.values():  # its setup has logged what it did, and its replica is quiet
                wait_until(lambda j=job: [r.state for r in local.get(j.id).replicas] == [ReplicaState.RUNNING],
                           600, "the replica to run")
            proc, url = start_console(root, env)
            yield Site(root, proc, url, local, tarpit, jobs)
        finally:
            if proc is not None:
                stop_console(proc)
            tarpit.close()
            if local is not None:
                cleanup(local)


def send(site: Site, method: str, path: str, headers: dict[str, str], body: bytes = b"",
         timeout: float = 120) -> tuple[int, dict[str, str], str]:
    conn = http.client.HTTPConnection("127.0.0.1", site.port, timeout=timeout)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for key, value in headers.items():
            conn.putheader(key, value)
        if method == "POST":
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body or None)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()
    finally:
        conn.close()


def page_text(body: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


def job_page(site: Site, name: str) -> tuple[str, str]:
    """What a browser gets from the console's job page: (its cookie, the cancel form's token)."""
    status, headers, body = send(site, "GET", f"/jobs/local/{site.jobs[name].id}", {"Host": site.host})
    assert status == 200, body
    cookie = headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    token = re.search(r'name="token" value="([^"]+)"', body)
    assert token is not None
    return cookie.split(";")[0], token.group(1)


def cancel(site: Site, name: str, headers: dict[str, str], token: str) -> tuple[int, str]:
    status, _, body = send(site, "POST", f"/jobs/local/{site.jobs[name].id}/cancel",
                           {"Host": site.host, "Content-Type": "application/x-www-form-urlencoded", **headers},
                           urlencode({"token": token}).encode())
    return status, page_text(body)


def running(site: Site, name: str) -> bool:
    return site.local.get(site.jobs[name].id).state is JobState.RUNNING


@pytest.mark.parametrize("host", ["evil.example:{port}", "evil.example", "localhost:1", "10.9.8.7:{port}"])
def test_a_foreign_or_rebinding_host_reads_nothing(site: Site, host: str) -> None:
    host = host.format(port=site.port)
    for path in ("/", f"/jobs/local/{site.jobs['quiet-job'].id}", f"/jobs/local/{site.jobs['quiet-job'].id}/logs"):
        status, headers, body = send(site, "GET", path, {"Host": host, "Sec-Fetch-Site": "same-origin"})
        assert status == 403, body
        text = page_text(body)
        assert (f"Refused: Host '{host}' is not this server's; allowed: 127.0.0.1:{site.port}, localhost:{site.port}, "
                f"[::1]:{site.port}") in text
        assert "open the console at the address it printed" in text
        assert site.jobs["quiet-job"].id not in body and "token" not in body
        assert "set-cookie" not in headers


def test_a_rebinding_page_cannot_cancel(site: Site) -> None:
    cookie, token = job_page(site, "quiet-job")  # suppose it had the token and the cookie, somehow
    status, text = cancel(site, "quiet-job", {"Host": f"evil.example:{site.port}", "Cookie": cookie,
                                              "Origin": f"http://evil.example:{site.port}"}, token)
    assert status == 403 and "Host 'evil.example:" in text
    assert running(site, "quiet-job")


@pytest.mark.parametrize(("case", "headers", "says"), [
    ("another site's form", {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
     "Origin 'http://evil.example' is not this server's own (http://127.0.0.1:{port})"),
    ("another local server's page", {"Origin": "http://127.0.0.1:3000", "Sec-Fetch-Site": "same-site"},
     "Origin 'http://127.0.0.1:3000' is not this server's own"),
    ("a sandboxed page", {"Origin": "null"}, "Origin 'null' is not this server's own"),
    ("no Origin, cross-site fetch metadata", {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate",
                                               "Sec-Fetch-Dest": "document"},
     "a page of another site (Sec-Fetch-Site: cross-site) may not change anything here"),
])
def test_another_sites_post_is_refused_even_with_the_token_and_the_cookie(site: Site, case: str,
                                                                          headers: dict[str, str], says: str) -> None:
    cookie, token = job_page(site, "quiet-job")
    status, text = cancel(site, "quiet-job", {**headers, "Cookie": cookie}, token)
    assert status == 403, (case, text)
    assert f"Refused: {says.format(port=site.port)}" in text, (case, text)
    assert running(site, "quiet-job")


def test_a_token_alone_or_with_a_planted_cookie_cancels_nothing(site: Site) -> None:
    _, token = job_page(site, "quiet-job")
    own = {"Origin": f"http://{site.host}", "Sec-Fetch-Site": "same-origin"}
    for case, extra in (("the token without its cookie", {}),
                        ("the token with a cookie another page planted", {"Cookie": "trainjobs_console=" + "A" * 43}),
                        ("a forged token", {"Cookie": job_page(site, "quiet-job")[0]})):
        status, text = cancel(site, "quiet-job", {**own, **extra}, token if "forged" not in case else "forged")
        assert status == 403 and "this cancel form is stale or came from another site" in text, case
    assert running(site, "quiet-job")


def test_the_consoles_own_form_cancels(site: Site) -> None:
    cookie, token = job_page(site, "cancel-me")
    status, text = cancel(site, "cancel-me", {"Cookie": cookie, "Origin": f"http://{site.host}",
                                              "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "navigate",
                                              "Sec-Fetch-Dest": "document"}, token)
    assert status == 303, text
    assert site.local.wait(site.jobs["cancel-me"].id, timeout=60).state is JobState.CANCELLED


def test_pages_may_not_be_framed_or_fetched_by_another_site(site: Site) -> None:
    status, headers, _ = send(site, "GET", "/", {"Host": site.host})
    assert status == 200
    assert headers["x-frame-options"] == "DENY" and headers["content-security-policy"] == "frame-ancestors 'none'"
    for mode, dest in (("navigate", "iframe"), ("no-cors", "image"), ("cors", "empty")):
        status, _, body = send(site, "GET", f"/jobs/local/{site.jobs['quiet-job'].id}/logs",
                               {"Host": site.host, "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": mode,
                                "Sec-Fetch-Dest": dest})
        assert status == 403 and "may not fetch or embed what this server answers" in page_text(body), (mode, dest)
    status, _, _ = send(site, "GET", "/", {"Host": site.host, "Sec-Fetch-Site": "cross-site",
                                           "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"})
    assert status == 200  # a link from another site still opens the console


def test_a_slow_backend_does_not_freeze_other_pages(site: Site) -> None:
    """Stack ``slow`` points at a server that never answers: its page waits in a worker thread, and the event
    loop goes on serving other pages meanwhile."""
    answers: dict[str, int] = {}

    def slow_page() -> None:
        answers["slow"] = send(site, "GET", "/stacks/slow", {"Host": site.host}, timeout=300)[0]

    waiter = threading.Thread(target=slow_page)
    waiter.start()
    try:
        assert site.tarpit.accepted.wait(120), "the console never called the slow backend"
        for path in ("/", "/stacks", f"/jobs/local/{site.jobs['quiet-job'].id}", "/static/console.css"):
            status, _, body = send(site, "GET", path, {"Host": site.host})
            assert status == 200, (path, body[:300])
            assert "slow" not in answers, "the slow page answered first: nothing was waiting on it"
    finally:
        site.tarpit.release()
        waiter.join(300)
    assert answers["slow"] == 200  # the stack page, saying the backend cannot be reached


def busy_threads(pid: int, window: float = 2.0) -> int:
    """The console's threads, but its event loop's, that woke up during ``window`` seconds: a log follow polls
    every 0.2 s, an idle worker thread sleeps until it is given work (anyio keeps it, so counting threads would
    not tell them apart)."""
    def switches() -> dict[str, int]:
        out = {}
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                status = Path(f"/proc/{pid}/task/{tid}/status").read_text()
            except FileNotFoundError:  # it ended meanwhile
                continue
            m = re.search(r"^voluntary_ctxt_switches:\s+(\d+)", status, re.M)
            if int(tid) != pid and m is not None:
                out[tid] = int(m.group(1))
        return out

    first = switches()
    time.sleep(window)
    return sum(1 for tid, count in switches().items() if count > first.get(tid, count))


def _stream_head(sock: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, data
        data += chunk
    return data


def test_a_dropped_log_stream_of_a_quiet_job_gives_its_thread_back(site: Site) -> None:
    job = site.jobs["quiet-job"]
    pid = site.proc.pid
    request = (f"GET /jobs/local/{job.id}/logs HTTP/1.1\r\nHost: {site.host}\r\nAccept: text/event-stream\r\n"
               "Sec-Fetch-Site: same-origin\r\nSec-Fetch-Mode: cors\r\nSec-Fetch-Dest: empty\r\n\r\n").encode()
    before = busy_threads(pid)
    assert running(site, "quiet-job")
    streams = [socket.create_connection(("127.0.0.1", site.port), timeout=120) for _ in range(5)]
    try:
        for sock in streams:
            sock.sendall(request)
            head = _stream_head(sock)
            assert head.startswith(b"HTTP/1.1 200") and b"text/event-stream" in head, head
        # the job prints nothing: each stream's follow polls for its next line in a thread of its own
        wait_until(lambda: busy_threads(pid) >= before + 5, 120, "a polling thread per stream")
    finally:
        for sock in streams:
            sock.close()
    wait_until(lambda: busy_threads(pid) <= before, 120, "the dropped streams' threads to stop polling")
    assert running(site, "quiet-job")


def test_chromium_cancels_from_the_consoles_page_but_not_from_another_sites(site: Site, page: Any) -> None:
    """A real browser: the console's own Cancel works (cookie, token, Origin and Fetch Metadata as Chromium sends
    them); the same form, token included, posted by a page of another origin does not."""
    job = site.jobs["browser-cancel"]
    page.goto(f"{site.url}jobs/local/{job.id}")
    token = page.locator("input[name=token]").get_attribute("value")
    attack = _AttackerPage(f"{site.url}jobs/local/{job.id}/cancel", token or "")
    try:
        response = page.goto(attack.url)  # auto-submits its form to the console
        page.wait_for_url(re.compile(r".*/cancel$"))
        assert "Refused: Origin" in page.locator("main").inner_text()
        assert response is not None and running(site, "browser-cancel")
    finally:
        attack.close()
    page.goto(f"{site.url}jobs/local/{job.id}")
    page.once("dialog", lambda d: d.accept())
    page.click("button.danger")
    # The click posts a form: while the next page loads, its #job-state may not be parsed yet (hence ?.).
    page.wait_for_function("() => ['CANCELLING', 'CANCELLED'].includes("
                           "document.getElementById('job-state')?.textContent.trim())")
    assert site.local.wait(job.id, timeout=60).state is JobState.CANCELLED


class _AttackerPage:
    """Another origin (localhost on another port: same site, other origin) serving a self-submitting form."""

    def __init__(self, action: str, token: str) -> None:
        body = (f'<form method="post" action="{html.escape(action)}"><input name="token" value="{html.escape(token)}">'
                "</form><script>document.forms[0].submit()</script>").encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://localhost:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)

