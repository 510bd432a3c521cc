"""The emulator's HTTP surface under hostile or careless clients: bursts, idle and slow-drip
connections, garbage on the wire, deep JSON, NUL names, broken records; and its file modes."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from provider.emulator import server as emulator_server
from provider.emulator.server import Emulator
from tests.conftest import stop_process
from tests.vertex.conftest import BUCKET, PARENT, Emulators
from tests.vertex.test_emulator_api import http, refused_body

JOBS = f"/v1/{PARENT}/customJobs"


def raw_exchange(emulator: Emulator, data: bytes, timeout: float = 60) -> bytes:
    """Send raw bytes, read the whole answer (the server closes the connection after an error)."""
    with socket.create_connection(("127.0.0.1", emulator.port), timeout=timeout) as conn:
        conn.sendall(data)
        chunks = []
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks)


def json_error(answer: bytes) -> tuple[int, dict[str, Any]]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    assert b"application/json" in head, answer[:500]
    return status, json.loads(body)["error"]


def wait_until(check: Callable[[], bool], what: str, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


# -- a burst -------------------------------------------------------------------------------------
def listen_backlog(port: int) -> int:
    """The kernel's accept-queue limit of the socket listening on ``port`` (ss shows it as Send-Q)."""
    if shutil.which("ss") is None:
        pytest.skip("`ss` (iproute2) is not installed: it is how the listen backlog is read from the kernel")
    out = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True, check=True).stdout
    return int(out.split()[2])


def test_the_listen_backlog_holds_a_burst(emulator: Emulator) -> None:
    # With the stdlib's default of 5, a burst of 200 connections overflowed the accept queue (92 resets).
    assert listen_backlog(emulator.port) >= min(200, int(Path("/proc/sys/net/core/somaxconn").read_text()))


@pytest.mark.slow
def test_a_burst_of_200_concurrent_creates_is_served_without_a_reset(emulator: Emulator) -> None:
    body = json.dumps(refused_body("burst")).encode()
    request = (f"POST {JOBS} HTTP/1.1\r\nHost: 127.0.0.1:{emulator.port}\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body
    start = threading.Barrier(200)
    results: list[object] = []
    lock = threading.Lock()

    def one() -> None:
        try:
            conn = socket.create_connection(("127.0.0.1", emulator.port), timeout=120)
            start.wait(timeout=120)  # every connection is open before any request is sent
            with conn:
                conn.sendall(request)
                answer = b""
                while chunk := conn.recv(65536):
                    answer += chunk
            outcome: object = int(answer.split(b" ", 2)[1]) if answer else "empty answer"
        except OSError as exc:
            outcome = exc
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=one) for _ in range(200)]
    try:
        for t in threads:
            t.start()
    finally:
        for t in threads:
            t.join(timeout=300)
    failures = [r for r in results if r != 200]
    assert len(results) == 200 and not failures, failures[:5]
    status, _, listed = http(emulator, "GET", JOBS + "?pageSize=1000")
    assert status == 200 and len(listed["customJobs"]) == 200


# -- slow and idle clients -----------------------------------------------------------------------
@pytest.fixture
def quick_timeouts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(emulator_server, "IDLE_TIMEOUT", 1.0, raising=False)
    monkeypatch.setattr(emulator_server, "READ_TIMEOUT", 2.0, raising=False)


@pytest.fixture
def quick_emulator(quick_timeouts: None, emulators: Emulators) -> Emulator:
    return emulators.start()


def closed_by_server(conn: socket.socket, drip: bytes = b"", timeout: float = 90) -> bool:
    """Keep the connection (sending ``drip`` a byte every half second) until the server closes it."""
    conn.settimeout(0.5)
    deadline = time.monotonic() + timeout
    sent = 0
    while time.monotonic() < deadline:
        try:
            if sent < len(drip):
                conn.sendall(drip[sent:sent + 1])
                sent += 1
            if conn.recv(65536) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:
            return True
    return False


def test_an_idle_connection_is_closed(quick_emulator: Emulator) -> None:
    with socket.create_connection(("127.0.0.1", quick_emulator.port), timeout=30) as conn:
        assert closed_by_server(conn)


def test_a_slow_drip_request_is_closed(quick_emulator: Emulator) -> None:
    drip = b"GET " + JOBS.encode() + b" HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"a" * 400 + b"\r\n\r\n"
    with socket.create_connection(("127.0.0.1", quick_emulator.port), timeout=30) as conn:
        assert closed_by_server(conn, drip)  # a byte every 0.5 s: it would take over 200 s to finish


def test_a_keep_alive_connection_still_serves_several_requests(quick_emulator: Emulator) -> None:
    request = f"GET {JOBS} HTTP/1.1\r\nHost: 127.0.0.1:{quick_emulator.port}\r\n\r\n".encode()
    with socket.create_connection(("127.0.0.1", quick_emulator.port), timeout=30) as conn:
        for _ in range(3):
            conn.sendall(request)
            answer = b""
            while b"\r\n\r\n" not in answer:
                answer += conn.recv(65536)
            head, _, body = answer.partition(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            while len(body) < length:
                body += conn.recv(65536)
            assert head.startswith(b"HTTP/1.1 200") and isinstance(json.loads(body), dict), answer[:200]


# -- garbage on the wire -------------------------------------------------------------------------
@pytest.mark.parametrize(("data", "code"), [
    (b"GARBAGE\r\n\r\n", 400),
    (b"\x00\x01\x02 \xff\xfe HTTP/1.1\r\n\r\n", 400),
    (b"GET /v1 HTTP/9.9\r\n\r\n", 400),
    (b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n", 414),
    (b"BREW " + JOBS.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n", 405),
    (b"OPTIONS " + JOBS.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n", 405),
    (b"POST " + JOBS.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n", 400),
    (b"POST " + JOBS.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Length: nope\r\n\r\n", 400),
])
def test_garbage_requests_get_a_google_json_error(emulator: Emulator, data: bytes, code: int) -> None:
    own = f"Host: 127.0.0.1:{emulator.port}".encode()  # any other Host is refused first (test_emulator_trust.py)
    status, error = json_error(raw_exchange(emulator, data.replace(b"Host: x", own)))
    assert status == code and error["code"] == code and error["status"] and error["message"], error


def test_deeply_nested_json_is_refused_with_400(emulator: Emulator) -> None:
    for depth in (150, 100_000):
        body = b'{"displayName": "deep", "labels": ' + b"[" * depth + b"]" * depth + b"}"
        status, _, answer = http(emulator, "POST", JOBS, body)
        assert status == 400 and answer["error"]["status"] == "INVALID_ARGUMENT", answer
        assert "100 levels" in answer["error"]["message"]
    resumable = b'{"name": "a"' + b', "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    status, _, answer = http(emulator, "POST", f"/upload/storage/v1/b/{BUCKET}/o?uploadType=resumable", resumable)
    assert status == 400 and answer["error"]["code"] == 400, answer


def test_a_nul_in_an_upload_name_is_refused_with_400(emulator: Emulator) -> None:
    status, _, answer = http(emulator, "POST", f"/upload/storage/v1/b/{BUCKET}/o?uploadType=media&name=a%00b",
                             b"data", {"Content-Type": "application/octet-stream"})
    assert status == 400 and "NUL" in answer["error"]["message"], answer
    boundary = "b0undary"
    meta = json.dumps({"name": "pkg/a\u0000b.tar.gz"})
    body = (f"--{boundary}\r\nContent-Type: application/json\r\n\r\n{meta}\r\n--{boundary}\r\n"
            f"Content-Type: application/octet-stream\r\n\r\ndata\r\n--{boundary}--\r\n").encode()
    status, _, answer = http(emulator, "POST", f"/upload/storage/v1/b/{BUCKET}/o?uploadType=multipart", body,
                             {"Content-Type": f"multipart/related; boundary={boundary}"})
    assert status == 400 and answer["error"]["code"] == 400, answer
    status, _, answer = http(emulator, "GET", f"/storage/v1/b/{BUCKET}/o/a%00b")
    assert status == 400, answer


# -- broken records ------------------------------------------------------------------------------
@pytest.fixture
def state_with_broken_records(emulators: Emulators) -> Iterator[tuple[Path, list[str]]]:
    emu = emulators.start()
    names = []
    for name in ("keep_a", "broken", "keep_b"):
        status, _, job = http(emu, "POST", JOBS, refused_body(name))
        assert status == 200
        names.append(job["name"])
    emulators.stop(emu)
    yield emulators.state_dir, names


def test_a_broken_emulator_record_does_not_hide_the_others(emulators: Emulators,
                                                           state_with_broken_records: tuple[Path, list[str]]) -> None:
    state_dir, names = state_with_broken_records
    broken = state_dir / "jobs" / f"{names[1].rsplit('/', 1)[1]}.json"
    broken.write_bytes(b'{"id": "12')  # truncated
    empty = state_dir / "jobs" / "123.json"
    empty.write_bytes(b"")
    emu = emulators.start()
    status, _, listed = http(emu, "GET", JOBS)
    assert status == 200 and {j["name"] for j in listed["customJobs"]} == {names[0], names[2]}
    warnings = emu.warnings()
    assert any(str(broken) in w and "not valid JSON" in w for w in warnings), warnings
    assert any(str(empty) in w and "empty" in w for w in warnings), warnings
    assert broken.read_bytes() == b'{"id": "12' and empty.read_bytes() == b""  # nothing rewritten or deleted


def test_a_job_with_broken_local_files_is_listed_as_unreadable(emulator: Emulator) -> None:
    from google.cloud import aiplatform_v1  # noqa: F401  (the emulator's wire needs the SDK)

    from tests.local.conftest import probe_spec
    from tests.vertex.conftest import request_for

    _, request = request_for(emulator, probe_spec("broken_local"))
    good_request = request_for(emulator, probe_spec("good_local"))[1]
    ids = []
    for req in (request, good_request):
        status, _, job = http(emulator, "POST", JOBS, req.body)
        assert status == 200, job
        ids.append(job["name"].rsplit("/", 1)[1])
    for job_id in ids:
        wait_until(lambda j=job_id: http(emulator, "GET", f"{JOBS}/{j}")[2]["state"] in
                   ("JOB_STATE_SUCCEEDED", "JOB_STATE_FAILED"), "the jobs to end")
    state = emulator.state_dir / "local" / "jobs" / ids[0] / "state.json"
    saved = state.read_bytes()
    state.write_bytes(b"")
    try:
        emulator.jobs._finished.clear()
        status, _, listed = http(emulator, "GET", JOBS)
        assert status == 200, listed
        by_id = {j["name"].rsplit("/", 1)[1]: j for j in listed["customJobs"]}
        assert by_id[ids[1]]["state"] == "JOB_STATE_SUCCEEDED"
        broken = by_id[ids[0]]
        assert broken.get("state", "JOB_STATE_UNSPECIFIED") == "JOB_STATE_UNSPECIFIED", broken  # proto omits it
        assert str(state) in broken["error"]["message"] and "empty" in broken["error"]["message"], broken
        assert state.read_bytes() == b""  # nothing rewritten
    finally:
        state.write_bytes(saved)  # so that the teardown can check its processes are gone


# -- modes and the address ------------------------------------------------------------------------
def test_the_state_dir_is_private(emulator: Emulator) -> None:
    status, _, _job = http(emulator, "POST", JOBS, refused_body("private"))
    assert status == 200
    root = emulator.state_dir
    for d in (root, root / "jobs", root / "operations"):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700, d
    for f in (root / "jobs").glob("*.json"):
        assert stat.S_IMODE(f.stat().st_mode) == 0o600, f


@pytest.mark.slow
def test_a_non_loopback_host_warns_that_there_is_no_authentication(tmp_path: Path, job_env: None) -> None:
    out_file, err_file = tmp_path / "out", tmp_path / "err"
    with open(out_file, "w") as out, open(err_file, "w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "provider", "emulator", "--host", "0.0.0.0", "--port", "0",
                                 "--state-dir", str(tmp_path / "state")], cwd=Path(__file__).resolve().parents[2],
                                env={**os.environ, "NO_COLOR": "1"}, stdout=out, stderr=err)
    try:
        wait_until(lambda: "no authentication" in err_file.read_text() or proc.poll() is not None,
                   "the emulator's warning")
    except AssertionError:
        pass  # the assertion below says what was printed
    finally:
        stop_process(proc)
    text = err_file.read_text()
    assert "no authentication" in text and "0.0.0.0" in text, out_file.read_text() + text
    assert "Traceback" not in text
