"""The emulator's HTTP framing and Cloud Storage under hostile clients (issue 27, part 4).

Raw sockets for the framing (every byte is the test's), the real google-cloud-storage client for
object names, the peak RSS of a real emulator process for memory, and every route with
malformed parameters (a 4xx in Google's error shape, never a 500).
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

from provider.backends.local.paths import Storage
from provider.backends.vertex import VertexBackend
from provider.emulator import server as emulator_server
from provider.emulator.framing import MAX_BODY, MAX_JSON
from provider.emulator.server import Emulator
from provider.emulator.uploads import MAX_SESSIONS
from provider.packaging.gcs import gcs_client
from tests.conftest import stop_process
from tests.local.conftest import ROOT
from tests.vertex.conftest import BUCKET, PARENT, PROJECT, probe_spec, request_for, submit
from tests.vertex.test_emulator_api import http

MEDIA = f"/upload/storage/v1/b/{BUCKET}/o?uploadType=media&name="
MiB = 1 << 20


# -- helpers: raw HTTP ---------------------------------------------------------------------------
def read_answer(conn: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """One HTTP answer off the socket: status, headers (lower-case names), body (by Content-Length)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            raise AssertionError(f"the connection ended before an answer: {data[:300]!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    whole = bytearray(body)
    while len(whole) < length:
        chunk = conn.recv(MiB)
        if not chunk:
            break
        whole += chunk
    return int(lines[0].split(" ", 2)[1]), headers, bytes(whole[:length])


def closed(conn: socket.socket, timeout: float = 60) -> bool:
    """Whether the server closes the connection (reads EOF) within ``timeout`` seconds."""
    conn.settimeout(timeout)
    try:
        return conn.recv(65536) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def google_error(status: int, body: bytes) -> dict[str, Any]:
    error = json.loads(body)["error"]
    assert error["code"] == status and isinstance(error["message"], str) and error["status"], error
    return dict(error)


def upload_head(name: str, framing: str, port: int | None = None) -> bytes:
    return (f"POST {MEDIA}{name} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
            f"{framing}\r\n\r\n").encode()


def stored(emulator: Emulator, name: str) -> bool:
    return http(emulator, "GET", f"/storage/v1/b/{BUCKET}/o/{name}")[0] == 200


def spool_is_empty(emulator: Emulator) -> bool:
    spool = emulator.storage_root / ".uploads"
    return not spool.exists() or not any(spool.iterdir())


# -- framing: chunked bodies ---------------------------------------------------------------------
@pytest.mark.slow
def test_a_chunked_body_over_the_cap_is_refused_like_a_content_length_one(emulator: Emulator) -> None:
    # 511 MiB in 1 MiB chunks, then a chunk that takes it past the 512 MiB cap: 413, nothing stored.
    block = os.urandom(MiB)
    with socket.create_connection(("127.0.0.1", emulator.port), timeout=120) as conn:
        conn.sendall(upload_head("huge.bin", "Transfer-Encoding: chunked"))
        for _ in range(MAX_BODY // MiB - 1):
            conn.sendall(b"100000\r\n" + block + b"\r\n")
        conn.sendall(b"200000\r\n")
        status, headers, body = read_answer(conn)
        assert status == 413 and google_error(status, body)["status"] == "INVALID_ARGUMENT", body
        assert headers.get("connection") == "close" and closed(conn)
    assert not stored(emulator, "huge.bin") and spool_is_empty(emulator)


def test_a_json_request_over_its_cap_is_refused_before_it_is_read(emulator: Emulator) -> None:
    for framing, more in ((f"Content-Length: {MAX_JSON + 1}", b""), ("Transfer-Encoding: chunked",
                                                                     b"%x\r\n" % (MAX_JSON + 1))):
        with socket.create_connection(("127.0.0.1", emulator.port), timeout=60) as conn:
            conn.sendall(f"POST /v1/{PARENT}/customJobs HTTP/1.1\r\nHost: 127.0.0.1\r\n{framing}\r\n\r\n".encode()
                         + more)
            status, headers, body = read_answer(conn)  # no byte of the body was sent
            assert status == 413 and headers.get("connection") == "close", body
            google_error(status, body)


def test_a_cut_short_chunked_upload_stores_nothing(emulator: Emulator) -> None:
    with socket.create_connection(("127.0.0.1", emulator.port), timeout=60) as conn:
        conn.sendall(upload_head("short.bin", "Transfer-Encoding: chunked") + b"100000\r\n" + b"x" * 300_000)
        conn.shutdown(socket.SHUT_WR)  # the client goes away in the middle of a chunk
        status, _, body = read_answer(conn)
    assert status == 400 and "nothing was stored" in google_error(status, body)["message"], body
    with socket.create_connection(("127.0.0.1", emulator.port), timeout=60) as conn:
        conn.sendall(upload_head("short2.bin", "Transfer-Encoding: chunked") + b"4\r\nabcd\r\n")
        conn.shutdown(socket.SHUT_WR)  # whole chunks, but never the last (zero) one
        status, _, body = read_answer(conn)
    assert status == 400, body
    assert not stored(emulator, "short.bin") and not stored(emulator, "short2.bin") and spool_is_empty(emulator)


@pytest.mark.parametrize("size_line", [b"fffffffffffffffffffff", b"zz", b"-1", b"0x10", b" ", b"1" * 5000])
def test_an_absurd_chunk_size_is_a_400(emulator: Emulator, size_line: bytes) -> None:
    with socket.create_connection(("127.0.0.1", emulator.port), timeout=60) as conn:
        conn.sendall(upload_head("absurd.bin", "Transfer-Encoding: chunked") + size_line + b"\r\nabc\r\n0\r\n\r\n")
        status, headers, body = read_answer(conn)
        assert status == 400 and google_error(status, body)["status"] == "INVALID_ARGUMENT", body
        assert headers.get("connection") == "close" and closed(conn)
    assert not stored(emulator, "absurd.bin")


def test_a_whole_chunked_upload_is_stored(emulator: Emulator) -> None:
    with socket.create_connection(("127.0.0.1", emulator.port), timeout=60) as conn:
        conn.sendall(upload_head("whole.bin", "Transfer-Encoding: chunked")
                     + b"5;ext=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-Trailer: yes\r\n\r\n")
        status, _, body = read_answer(conn)
    assert status == 200 and json.loads(body)["size"] == "11", body
    status, _, data = http_bytes(emulator, f"/download/storage/v1/b/{BUCKET}/o/whole.bin?alt=media")
    assert status == 200 and data == b"hello world"


def http_bytes(emulator: Emulator, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str],
                                                                                             bytes]:
    with socket.create_connection(("127.0.0.1", emulator.port), timeout=60) as conn:
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        conn.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}Connection: close\r\n\r\n".encode())
        return read_answer(conn)


# -- framing: ambiguous lengths (RFC 9112 section 6.3) -------------------------------------------
@pytest.mark.parametrize("framing", [
    "Content-Length: 4\r\nContent-Length: 5",
    "Content-Length: 4\r\nContent-Length: 4",
    "Content-Length: 4, 5",
    "Content-Length: +4",
    "Content-Length: 4_0",
    "Content-Length: 4\r\nTransfer-Encoding: chunked",
    "Transfer-Encoding: chunked\r\nContent-Length: 0",
    "Transfer-Encoding: gzip",
    "Transfer-Encoding: chunked, gzip",
])
def test_ambiguous_framing_is_refused_and_the_connection_closed(emulator: Emulator, framing: str) -> None:
    # The bytes after the headers would be a second, smuggled request if the framing were guessed.
    smuggled = f"GET /storage/v1/b/{BUCKET} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    with socket.create_connection(("127.0.0.1", emulator.port), timeout=60) as conn:
        conn.sendall(upload_head("smuggled.bin", framing) + b"0\r\n\r\n" + smuggled)
        status, headers, body = read_answer(conn)
        assert status == 400 and google_error(status, body)["status"] == "INVALID_ARGUMENT", body
        assert headers.get("connection") == "close"
        assert closed(conn)  # and the smuggled request is never answered
    assert not stored(emulator, "smuggled.bin")


def test_a_coding_other_than_chunked_after_chunked_is_unimplemented(emulator: Emulator) -> None:
    with socket.create_connection(("127.0.0.1", emulator.port), timeout=60) as conn:
        conn.sendall(upload_head("gz.bin", "Transfer-Encoding: gzip, chunked") + b"0\r\n\r\n")
        status, headers, body = read_answer(conn)
    assert status == 501 and headers.get("connection") == "close", body
    google_error(status, body)


# -- object names --------------------------------------------------------------------------------
@pytest.fixture
def bucket(emulator: Emulator) -> Any:
    return gcs_client(PROJECT, emulator.endpoint).bucket(BUCKET)


def round_trip(bucket: Any, name: str, data: bytes) -> None:
    bucket.blob(name).upload_from_string(data)
    assert bucket.blob(name).download_as_bytes() == data


def listed(bucket: Any, prefix: str = "") -> list[str]:
    return [b.name for b in bucket.client.list_blobs(bucket, prefix=prefix or None)]


def test_a_segment_longer_than_the_file_systems_limit_is_stored(emulator: Emulator, bucket: Any) -> None:
    long = "s" * 300 + "/" + "é" * 300  # 300 bytes, then 600 bytes of UTF-8: both over NAME_MAX (255)
    round_trip(bucket, long, b"long")
    round_trip(bucket, "x" * 1024, b"longest")
    assert listed(bucket) == sorted([long, "x" * 1024])
    # The local backend reads it back where it is kept (a trainer's package under such a name).
    path = Storage(emulator.storage_root).path(f"gs://{BUCKET}/{long}")
    assert path.read_bytes() == b"long"
    bucket.blob(long).delete()
    assert listed(bucket) == ["x" * 1024]


def test_a_name_then_a_name_below_it_are_two_objects(bucket: Any) -> None:
    round_trip(bucket, "d", b"file d")
    round_trip(bucket, "d/e", b"file d/e")
    assert bucket.blob("d").download_as_bytes() == b"file d"
    assert listed(bucket) == ["d", "d/e"]
    prefixes = bucket.client.list_blobs(bucket, delimiter="/")
    assert [b.name for b in prefixes] == ["d"] and prefixes.prefixes == {"d/"}


def test_a_name_below_then_the_name_above_are_two_objects(emulator: Emulator, bucket: Any) -> None:
    round_trip(bucket, "f/g", b"file f/g")
    round_trip(bucket, "f", b"file f")
    assert listed(bucket) == ["f", "f/g"]
    assert Storage(emulator.storage_root).path(f"gs://{BUCKET}/f").read_bytes() == b"file f"
    assert (emulator.storage_root / BUCKET / "f" / "g").read_bytes() == b"file f/g"  # still in place
    bucket.blob("f/g").delete()
    round_trip(bucket, "f", b"f again")  # overwriting keeps one object
    assert listed(bucket) == ["f"]


@pytest.mark.parametrize("name", ["a//b", "dir/", "a/./b", "a/../b", "./x", "..x", " ", "a\\b", "ü/日本/%41",
                                  "#[]*?:", ".hidden"])
def test_names_cloud_storage_accepts_are_stored_exactly(bucket: Any, name: str) -> None:
    round_trip(bucket, name, name.encode())
    assert listed(bucket) == [name]
    bucket.blob(name).delete()
    assert listed(bucket) == []


@pytest.mark.parametrize(("name", "why"), [
    ("a\rb", "carriage return"), ("a\nb", "line feed"), (".", "cannot be named . or .."),
    ("..", "cannot be named . or .."), ("x" * 1025, "maximum object length is 1024"),
    ("é" * 513, "maximum object length is 1024"), (".well-known/acme-challenge/t", ".well-known/acme-challenge/"),
])
def test_names_cloud_storage_refuses_are_refused_with_its_error(bucket: Any, name: str, why: str) -> None:
    from google.api_core.exceptions import BadRequest

    with pytest.raises(BadRequest, match=re.escape(why)):
        bucket.blob(name).upload_from_string(b"x")


def test_a_resumable_upload_in_chunks_keeps_every_byte(bucket: Any) -> None:
    data = os.urandom(3 * 256 * 1024 + 17)
    blob = bucket.blob("r/" + "long" * 80, chunk_size=256 * 1024)  # a 320-byte segment, set aside
    blob.upload_from_string(data)
    assert bucket.blob("r/" + "long" * 80).download_as_bytes() == data


@pytest.mark.slow
def test_a_package_under_a_name_no_path_can_hold_is_installed_and_run(emulator: Emulator, bucket: Any,
                                                                     backend: VertexBackend) -> None:
    import copy

    from provider.core.vertex_request import VertexRequest
    from provider.submission.launch import submission

    job, request = request_for(emulator, probe_spec("aside_package", args=["--steps", "1"]))
    spec = request.body["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]
    staged = spec["packageUris"][0].removeprefix(f"gs://{BUCKET}/")
    # A 300-byte folder, below an object named like the folder: set aside twice over.
    aside = "pkgs/" + "p" * 300 + "/" + staged.rsplit("/", 1)[1]
    round_trip(bucket, "pkgs/" + "p" * 300, b"a file where the folder is")
    round_trip(bucket, aside, bucket.blob(staged).download_as_bytes())
    body = copy.deepcopy(request.body)
    body["jobSpec"]["workerPoolSpecs"][0]["pythonPackageSpec"]["packageUris"] = [f"gs://{BUCKET}/{aside}"]
    status = backend.submit(submission(job, VertexRequest(request.kind, request.parent, body)))
    done = backend.wait(status.id, timeout=180)
    assert done.state.name == "SUCCEEDED", done.error


def test_objects_are_listed_in_pages_with_stable_tokens(bucket: Any) -> None:
    names = ["a", "a/b", "b" * 300, "c/", "c/d", "e"]
    for name in names:
        bucket.blob(name).upload_from_string(b"x")
    pages = bucket.client.list_blobs(bucket, page_size=2).pages
    seen = [[b.name for b in page] for page in pages]
    assert [n for page in seen for n in page] == sorted(names) and all(len(p) <= 2 for p in seen), seen
    assert len(seen) == 3


def test_an_existing_storage_dir_reads_as_before(emulator: Emulator, bucket: Any) -> None:
    # What trainers write, and what older emulators stored: plain files under <root>/BUCKET.
    place = emulator.storage_root / BUCKET / "jobs" / "j1"
    place.mkdir(parents=True)
    (place / "model.pt").write_bytes(b"weights")
    assert listed(bucket) == ["jobs/j1/model.pt"]
    assert bucket.blob("jobs/j1/model.pt").download_as_bytes() == b"weights"


# -- memory and concurrency ----------------------------------------------------------------------
@pytest.fixture
def emulator_process(tmp_path: Path, job_env: None) -> Iterator[tuple[subprocess.Popen[str], int]]:
    proc = subprocess.Popen([sys.executable, "-m", "provider", "emulator", "--port", "0", "--state-dir",
                             str(tmp_path / "state")], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)", first)
        assert m, first + (proc.stderr.read() if proc.stderr and proc.poll() is not None else "")
        yield proc, int(m.group(1))
    finally:
        proc.send_signal(signal.SIGTERM)
        stop_process(proc)
        proc.communicate()


def peak_rss(pid: int) -> int:
    """The process's peak resident memory so far (VmHWM), in bytes."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) * 1024  # type: ignore[union-attr]


def send(port: int, data: bytes, body: Iterable[bytes] = ()) -> tuple[int, dict[str, str], bytes]:
    """Send, then read the answer. A server that answers early (a 413 or 429 before the body is
    all sent) and closes may cut the sending short: then the answer is read all the same, as an
    HTTP client should (RFC 9112, 9.5)."""
    with socket.create_connection(("127.0.0.1", port), timeout=300) as conn:
        try:
            conn.sendall(data)
            for block in body:
                conn.sendall(block)
        except (BrokenPipeError, ConnectionResetError):
            pass
        return read_answer(conn)


@pytest.mark.slow
@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_memory_per_upload_is_bounded_not_proportional_to_the_body(
        emulator_process: tuple[subprocess.Popen[str], int], framing: str) -> None:
    proc, port = emulator_process
    bucket = json.dumps({"name": BUCKET}).encode()
    status, _, body = send(port, f"POST /storage/v1/b HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: "
                                 f"{len(bucket)}\r\n\r\n".encode() + bucket)
    assert status == 200, body
    size = 256 * MiB
    block = os.urandom(MiB)
    send(port, upload_head("warm.bin", f"Content-Length: {MiB}") + block)  # hashing and JSON paths loaded
    before = peak_rss(proc.pid)
    if framing == "chunked":
        blocks = (b"%x\r\n" % MiB + block + b"\r\n" for _ in range(size // MiB))
        status, _, body = send(port, upload_head("big.bin", "Transfer-Encoding: chunked"),
                               iter([*blocks, b"0\r\n\r\n"]))
    else:
        status, _, body = send(port, upload_head("big.bin", f"Content-Length: {size}"),
                               (block for _ in range(size // MiB)))
    assert status == 200 and json.loads(body)["size"] == str(size), body
    status, _, _ = send(port, f"GET /download/storage/v1/b/{BUCKET}/o/big.bin?alt=media HTTP/1.1\r\n"
                              "Host: 127.0.0.1\r\n\r\n".encode())
    assert status == 200
    grown = peak_rss(proc.pid) - before
    # Before: the body was read whole, spooled, read back (3 x 256 MiB); now a few 1 MiB blocks.
    assert grown < 48 * MiB, f"the peak RSS grew by {grown / MiB:.0f} MiB for a {size // MiB} MiB upload"


def test_concurrent_uploads_are_capped_with_resource_exhausted(emulator: Emulator) -> None:
    cap = emulator_server.MAX_UPLOADS
    spool = emulator.storage_root / ".uploads"
    holders: list[socket.socket] = []
    try:
        for i in range(cap):  # each begins a 10 MiB upload and stalls after 2 MiB (a block is spooled to disk)
            conn = socket.create_connection(("127.0.0.1", emulator.port), timeout=60)
            holders.append(conn)
            conn.sendall(upload_head(f"held{i}.bin", f"Content-Length: {10 * MiB}") + b"x" * (2 * MiB))
            deadline = time.monotonic() + 90
            while len(list(spool.glob("upload-*"))) < i + 1:  # its body is being received: it holds a slot
                assert time.monotonic() < deadline, f"upload {i} never started"
                time.sleep(0.05)
        status, headers, body = send(emulator.port, upload_head("one-more.bin", f"Content-Length: {MiB}"),
                                     [b"y" * MiB])
        assert status == 429 and google_error(status, body)["status"] == "RESOURCE_EXHAUSTED", body
        assert headers.get("retry-after") == "1" and headers.get("connection") == "close"
        # Small JSON requests are not uploads: they are still served.
        assert http(emulator, "GET", f"/v1/{PARENT}/customJobs")[0] == 200
    finally:
        for conn in holders:
            conn.close()
    deadline = time.monotonic() + 90
    while send(emulator.port, upload_head("after.bin", f"Content-Length: {MiB}"), [b"z" * MiB])[0] != 200:
        assert time.monotonic() < deadline, "the upload slots were never given back"
        time.sleep(0.2)
    assert not any(stored(emulator, f"held{i}.bin") for i in range(cap)) and not stored(emulator, "one-more.bin")
    assert not list(spool.glob("upload-*"))  # the cut-short bodies left nothing behind


def test_open_resumable_uploads_are_capped(emulator: Emulator) -> None:
    path = f"/upload/storage/v1/b/{BUCKET}/o?uploadType=resumable"
    for i in range(MAX_SESSIONS):
        assert http(emulator, "POST", path, {"name": f"r{i}"})[0] == 200
    status, _, answer = http(emulator, "POST", path, {"name": "one-too-many"})
    assert status == 429 and answer["error"]["status"] == "RESOURCE_EXHAUSTED", answer


# -- malformed parameters of every route ---------------------------------------------------------
JOBS = f"/v1/{PARENT}/customJobs"
HPT = f"/v1/{PARENT}/hyperparameterTuningJobs"
PRS = f"/v1/{PARENT}/persistentResources"
LOGS = "/v2/entries:list"
OBJECTS = f"/storage/v1/b/{BUCKET}/o"
UP = f"/upload/storage/v1/b/{BUCKET}/o"
MULTI = {"Content-Type": "multipart/related; boundary=b0"}

MALFORMED: list[tuple[str, str, Any, dict[str, str], int]] = [
    # (method, path, body, headers, code)
    ("GET", JOBS + "?pageSize=abc", None, {}, 400), ("GET", JOBS + "?pageSize=-1", None, {}, 400),
    ("GET", JOBS + "?pageSize=1e3", None, {}, 400), ("GET", JOBS + "?pageToken=%25%25%25", None, {}, 400),
    ("GET", JOBS + "?pageToken=eyJhIjoxfQ", None, {}, 400), ("GET", JOBS + "?filter=(((", None, {}, 400),
    ("GET", JOBS + "?filter=state%3D", None, {}, 400), ("GET", JOBS + "?bogus=1", None, {}, 400),
    ("GET", JOBS + "?pageSize=%FF", None, {}, 400), ("GET", HPT + "?pageSize=x", None, {}, 400),
    ("POST", JOBS, b"not json", {}, 400), ("POST", JOBS, [], {}, 400), ("POST", JOBS, "x", {}, 400),
    ("POST", JOBS, {"displayName": 5}, {}, 400), ("POST", JOBS, {"jobSpec": []}, {}, 400),
    ("POST", JOBS, {"displayName": "x", "jobSpec": {"workerPoolSpecs": "x"}}, {}, 400),
    ("POST", JOBS, b"\xff\xfe", {}, 400), ("POST", HPT, {"maxTrialCount": "many"}, {}, 400),
    ("GET", JOBS + "/..", None, {}, 404), ("GET", JOBS + "/%FF", None, {}, 404),
    ("POST", JOBS + "/123:cancel?x=1", None, {}, 400), ("DELETE", JOBS + "/abc?force=true", None, {}, 400),
    ("GET", f"/v1/{PARENT}/operations/..", None, {}, 404),
    ("GET", PRS + "?pageSize=abc", None, {}, 400), ("GET", PRS + "?pageToken=xyz", None, {}, 400),
    ("POST", PRS + "?persistentResourceId=Bad!", {}, {}, 400), ("POST", PRS, [], {}, 400),
    ("POST", PRS + "?persistentResourceId=ok-id", {"resourcePools": "x"}, {}, 400),
    ("GET", PRS + "/x/operations/%00", None, {}, 400),
    ("POST", LOGS, {"pageSize": "abc"}, {}, 400), ("POST", LOGS, {"pageSize": -1}, {}, 400),
    ("POST", LOGS, {"pageSize": 1.5}, {}, 400), ("POST", LOGS, {"pageSize": True}, {}, 400),
    ("POST", LOGS, {"pageSize": {}}, {}, 400), ("POST", LOGS, {"pageToken": "!!!"}, {}, 400),
    ("POST", LOGS, {"pageToken": "12"}, {}, 400), ("POST", LOGS, {"pageToken": 5}, {}, 400),
    ("POST", LOGS, {"resourceNames": "projects/p"}, {}, 400), ("POST", LOGS, {"resourceNames": [1]}, {}, 400),
    ("POST", LOGS, {"resourceNames": [{}]}, {}, 400), ("POST", LOGS, {"resourceNames": ["bogus"]}, {}, 400),
    ("POST", LOGS, {"filter": 5}, {}, 400), ("POST", LOGS, {"filter": ["x"]}, {}, 400),
    ("POST", LOGS, {"filter": 'timestamp>="garbage"'}, {}, 400), ("POST", LOGS, {"filter": "((("}, {}, 400),
    ("POST", LOGS, {"orderBy": "name"}, {}, 400), ("POST", LOGS, {"orderBy": 7}, {}, 400),
    ("POST", LOGS, {"bogus": 1}, {}, 400), ("POST", LOGS, [], {}, 400), ("POST", LOGS, b"{", {}, 400),
    ("POST", LOGS, b"[" * 200 + b"]" * 200, {}, 400),
    ("GET", "/storage/v1/b/UPPER", None, {}, 400), ("GET", "/storage/v1/b/%FF%FE", None, {}, 400),
    ("POST", "/storage/v1/b", [], {}, 400), ("POST", "/storage/v1/b", {"name": 5}, {}, 400),
    ("POST", "/storage/v1/b", {"name": "Bad Name"}, {}, 400), ("POST", "/storage/v1/b", b"{", {}, 400),
    ("GET", OBJECTS + "?maxResults=abc", None, {}, 400), ("GET", OBJECTS + "?maxResults=-1", None, {}, 400),
    ("GET", OBJECTS + "?pageToken=%25%25", None, {}, 400), ("GET", OBJECTS + "?pageToken=_w", None, {}, 400),
    ("GET", OBJECTS + "/obj?ifGenerationMatch=abc", None, {}, 400), ("GET", OBJECTS + "/obj?alt=xml", None, {}, 400),
    ("GET", OBJECTS + "/obj?ifMetagenerationMatch=1.5", None, {}, 400), ("GET", OBJECTS + "/%FF", None, {}, 400),
    ("GET", OBJECTS + "/obj?alt=media", None, {"Range": "bytes=99-"}, 416),
    ("DELETE", OBJECTS + "/obj?ifGenerationNotMatch=x", None, {}, 400),
    ("POST", UP + "?uploadType=bogus&name=a", b"x", {}, 400), ("POST", UP + "?uploadType=media", b"x", {}, 400),
    ("POST", UP + "?uploadType=media&name=a&ifGenerationMatch=x", b"x", {}, 400),
    ("POST", UP + "?uploadType=multipart", b"x", {}, 400),
    ("POST", UP + "?uploadType=multipart", b"--b0\r\n\r\n[]\r\n--b0\r\n\r\nx\r\n--b0--", MULTI, 400),
    ("POST", UP + "?uploadType=multipart", b"--b0\r\n\r\n{}\r\n--b0\r\n\r\nx\r\n--b0\r\n\r\ny\r\n--b0--", MULTI, 400),
    ("POST", UP + "?uploadType=multipart", b"--b0\r\n\r\n{\"name\": 5}\r\n--b0\r\n\r\nx\r\n--b0--", MULTI, 400),
    ("POST", UP + "?uploadType=multipart", b"--b0\r\n\r\n{}\r\n--b0\r\n\r\nx", MULTI, 400),
    ("POST", UP + "?uploadType=resumable", [], {}, 400), ("POST", UP + "?uploadType=resumable", b"{", {}, 400),
    ("POST", UP + "?uploadType=resumable", {"name": ["a"]}, {}, 400),
    ("POST", UP + "?uploadType=resumable&upload_id=x", {"name": "a"}, {}, 400),
    ("PUT", UP + "?uploadType=resumable&upload_id=nope", b"x", {}, 404),
    ("PUT", UP + "?uploadType=resumable", b"x", {}, 404),
]


@pytest.mark.parametrize(("method", "path", "body", "headers", "code"), MALFORMED,
                         ids=[f"{m} {p[:70]} {str(b)[:30]}" for m, p, b, _h, _c in MALFORMED])
def test_a_malformed_parameter_is_a_4xx_in_googles_shape(emulator: Emulator, method: str, path: str, body: Any,
                                                        headers: dict[str, str], code: int) -> None:
    http(emulator, "POST", MEDIA + "obj", b"0123456789", {"Content-Type": "application/octet-stream"})
    status, _, answer = http(emulator, method, path, body, headers)
    assert status == code, answer
    error = answer["error"]
    assert error["code"] == code and error["status"] and error["message"], answer


@pytest.mark.parametrize("content_range", ["bytes 0-5/3", "bytes 5-2/10", "bytes x-y/z", "bytes 0-9/10 extra",
                                           "bytes 0-3/*"])
def test_a_malformed_content_range_is_a_400(emulator: Emulator, content_range: str) -> None:
    status, headers, _ = http(emulator, "POST", f"{UP}?uploadType=resumable", {"name": "cr"})
    location = headers["Location"].removeprefix(emulator.endpoint)
    status, _, answer = http(emulator, "PUT", location, b"0123456789", {"Content-Range": content_range})
    assert status == 400 and answer["error"]["status"] == "INVALID_ARGUMENT", answer


def test_log_paging_tokens_walk_every_entry_once(emulator: Emulator, backend: VertexBackend) -> None:
    status = submit(backend, emulator, probe_spec("paged_logs", args=["--steps", "4"]))
    assert backend.wait(status.id, timeout=180).state.name == "SUCCEEDED"
    query = {"resourceNames": [f"projects/{PROJECT}"], "orderBy": "timestamp desc",
             "filter": f'resource.type="ml_job" AND resource.labels.job_id="{status.id}" '
                       'AND timestamp>="2000-01-01T00:00:00"'}  # a naive time reads as UTC
    _, _, whole = http(emulator, "POST", LOGS, {**query, "pageSize": 1000})
    everything = [e["insertId"] for e in whole["entries"]]
    assert len(everything) >= 5 and "nextPageToken" not in whole, whole
    seen: list[str] = []
    token = None
    while True:
        code, _, page = http(emulator, "POST", LOGS, {**query, "pageSize": "2", **({"pageToken": token} if token
                                                                                   else {})})
        assert code == 200 and len(page["entries"]) <= 2, page
        seen += [e["insertId"] for e in page["entries"]]
        token = page.get("nextPageToken")
        if token is None:
            break
    assert seen == everything
    # A token is only good for the query that made it.
    code, _, answer = http(emulator, "POST", LOGS, {**query, "orderBy": "timestamp asc", "pageSize": 2,
                                                    "pageToken": http(emulator, "POST", LOGS, {**query, "pageSize": 2})[2]
                                                    ["nextPageToken"]})
    assert code == 400 and "page token" in answer["error"]["message"], answer
