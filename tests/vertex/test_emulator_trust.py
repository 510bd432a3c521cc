"""The emulator answers only its own clients: a web page the user visits (cross-site "simple"
requests, DNS rebinding) can neither read nor change anything, while gcloud's and the SDK's
requests (no Origin) still work. Real sockets, so the Host, Origin and Sec-Fetch-* headers are
exactly what a browser sends (provider/core/trust.py decides; provider/emulator/gate.py calls it)."""

from __future__ import annotations

import http.client
import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest

from provider.emulator.server import Emulator
from tests.conftest import stop_process
from tests.vertex.conftest import BUCKET, LOCATION, PARENT, PROJECT, Emulators
from tests.vertex.test_emulator_api import EXECUTOR, refused_body

JOBS = f"/v1/{PARENT}/customJobs"
EVIL = "attacker-bucket"


def send(port: int, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, dict[str, str],
                                                                                            Any]:
    """One request with exactly these headers (no Host unless given), over a real socket."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for key, value in headers.items():
            conn.putheader(key, value)
        if body or method in ("POST", "PUT"):
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body or None)
        response = conn.getresponse()
        raw = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, json.loads(raw) if raw else None
    finally:
        conn.close()


def own(emulator: Emulator) -> str:
    return f"127.0.0.1:{emulator.port}"


def browser(host: str, origin: str | None, site: str = "cross-site") -> dict[str, str]:
    """The headers Chromium sends with a cross-site fetch(url, {method: "POST", mode: "no-cors", body}) whose
    body is a string: the "simple" request no CORS preflight guards."""
    return {"Host": host, **({"Origin": origin} if origin else {}), "Content-Type": "text/plain;charset=UTF-8",
            "Sec-Fetch-Site": site, "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "empty",
            "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0"}


def package(marker: Path) -> bytes:
    """An sdist whose module writes ``marker``: what the attacker's job would run."""
    files = {
        "pwn-0.1/setup.py": "from setuptools import setup\nsetup(name='pwn', version='0.1', packages=['pwn'])\n",
        "pwn-0.1/pwn/__init__.py": "",
        "pwn-0.1/pwn/task.py": f"open({str(marker)!r}, 'w').write('ran')\n",
    }
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def chain(marker: Path) -> list[tuple[str, str, bytes]]:
    """The three POSTs that make the emulator run the attacker's code: a bucket, a package, a job."""
    job = {"displayName": "pwn", "jobSpec": {"workerPoolSpecs": [{
        "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
        "pythonPackageSpec": {"executorImageUri": EXECUTOR, "packageUris": [f"gs://{EVIL}/pwn-0.1.tar.gz"],
                              "pythonModule": "pwn.task"}}]}}
    return [
        ("POST", f"/storage/v1/b?project={PROJECT}", json.dumps({"name": EVIL}).encode()),
        ("POST", f"/upload/storage/v1/b/{EVIL}/o?uploadType=media&name=pwn-0.1.tar.gz", package(marker)),
        ("POST", JOBS, json.dumps(job).encode()),
    ]


def nothing_was_made(emulator: Emulator, marker: Path) -> None:
    assert not (emulator.storage_root / EVIL).exists(), "a bucket was created"
    assert not list(emulator.storage_root.rglob("pwn-0.1.tar.gz")), "the package was stored"
    status, _, listed = send(emulator.port, "GET", JOBS, {"Host": own(emulator)})
    assert status == 200 and not listed.get("customJobs"), listed
    assert emulator.local.list() == [], "a job was started on this machine"
    assert not marker.exists()


def refused(status: int, answer: Any, code: int, google_status: str, *says: str) -> None:
    """Google's JSON error shape, as the emulator's other errors."""
    assert status == code, answer
    error = answer["error"]
    assert error["code"] == code and error["status"] == google_status, error
    for text in says:
        assert text in error["message"], error["message"]


@pytest.mark.parametrize("case", ["foreign Host and Origin", "rebinding: the attacker's name, the right port",
                                  "own Host, foreign Origin", "own Host, no Origin, Sec-Fetch-Site cross-site",
                                  "own Host and Origin (a page the emulator served)"])
def test_the_three_post_code_execution_chain_is_refused_end_to_end(emulator: Emulator, tmp_path: Path,
                                                                   case: str) -> None:
    marker = tmp_path / "pwned"
    port = emulator.port
    headers = {
        "foreign Host and Origin": browser("evil.example", "http://evil.example"),
        "rebinding: the attacker's name, the right port": browser(f"evil.example:{port}", f"http://evil.example:{port}",
                                                                  site="same-origin"),
        "own Host, foreign Origin": browser(own(emulator), "http://evil.example"),
        "own Host, no Origin, Sec-Fetch-Site cross-site": browser(own(emulator), None),
        "own Host and Origin (a page the emulator served)": browser(own(emulator), f"http://{own(emulator)}",
                                                                    site="same-origin"),
    }[case]
    for method, path, body in chain(marker):
        status, _, answer = send(emulator.port, method, path, headers, body)
        refused(status, answer, 403, "PERMISSION_DENIED", "Refused: ")
    nothing_was_made(emulator, marker)


def test_the_same_three_posts_from_a_real_client_do_make_a_job(emulator: Emulator, tmp_path: Path) -> None:
    """The control: what the chain would do if the emulator took it (so the refusals above mean something)."""
    types = ("application/json", "application/gzip", "application/json")
    for (method, path, body), content_type in zip(chain(tmp_path / "pwned"), types, strict=True):
        status, _, answer = send(emulator.port, method, path, {"Host": own(emulator), "Content-Type": content_type}, body)
        assert status == 200, answer
    assert (emulator.storage_root / EVIL / "pwn-0.1.tar.gz").is_file()
    jobs = send(emulator.port, "GET", JOBS, {"Host": own(emulator)})[2]["customJobs"]
    assert [j["displayName"] for j in jobs] == ["pwn"]
    status, _, _ = send(emulator.port, "POST", f"/v1/{jobs[0]['name']}:cancel", {"Host": own(emulator)})
    assert status == 200


@pytest.mark.parametrize(("content_type", "path", "body"), [
    ("text/plain", JOBS, json.dumps(refused_body("plain")).encode()),
    ("text/plain;charset=UTF-8", f"/storage/v1/b?project={PROJECT}", b'{"name": "plain-bucket"}'),
    ("application/x-www-form-urlencoded", JOBS, b'{"displayName": "form"}='),
    ("multipart/form-data; boundary=x", "/v2/entries:list",
     b'--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n{}\r\n--x--\r\n'),
])
def test_a_json_api_call_whose_body_is_not_json_is_refused(emulator: Emulator, content_type: str, path: str,
                                                           body: bytes) -> None:
    """An old browser that sends no Origin still sends one of these types with a cross-site POST."""
    status, _, answer = send(emulator.port, "POST", path, {"Host": own(emulator), "Content-Type": content_type}, body)
    refused(status, answer, 415, "INVALID_ARGUMENT",
            f"Refused: a JSON API call must send its body as application/json, not {content_type.split(';')[0]!r}")
    assert not (emulator.storage_root / "plain-bucket").exists()
    assert not send(emulator.port, "GET", JOBS, {"Host": own(emulator)})[2].get("customJobs")


def test_a_rebinding_page_reads_nothing(emulator: Emulator, client: Any) -> None:
    """DNS rebinding: the page's own name now points at 127.0.0.1, so its reads are same-origin for the
    browser; only the Host tells them apart. It gets neither the jobs (their env) nor their logs."""
    from tests.vertex.test_emulator_api import create

    job = create(client, "secret-env")
    port = emulator.port
    page = {"Host": f"rebind.evil.example:{port}", "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors",
            "Sec-Fetch-Dest": "empty"}
    for method, path, body in (("GET", JOBS, b""), ("GET", f"/v1/{job.name}", b""),
                               ("GET", f"/storage/v1/b/{BUCKET}/o", b""),
                               ("POST", "/v2/entries:list", json.dumps({"resourceNames": [f"projects/{PROJECT}"]})
                                .encode())):
        headers = {**page, **({"Content-Type": "application/json", "Origin": f"http://rebind.evil.example:{port}"}
                              if method == "POST" else {})}
        status, _, answer = send(emulator.port, method, path, headers, body)
        refused(status, answer, 403, "PERMISSION_DENIED",
                f"Host 'rebind.evil.example:{port}' is not this server's; allowed: 127.0.0.1:{port}, localhost:{port}, "
                f"[::1]:{port} (start it with --allow-host NAME")
        assert "secret-env" not in json.dumps(answer)


def test_a_foreign_host_is_refused_on_every_route_and_the_connection_closed(emulator: Emulator) -> None:
    status, headers, answer = send(emulator.port, "POST", f"/upload/storage/v1/b/{BUCKET}/o?uploadType=media&name=x",
                                   {"Host": "evil.example", "Content-Type": "application/octet-stream"}, b"x" * 1000)
    refused(status, answer, 403, "PERMISSION_DENIED", "Host 'evil.example' is not this server's")
    assert headers["connection"] == "close"  # its body was never read
    assert not (emulator.storage_root / BUCKET / "x").exists()


def test_own_names_and_no_host_still_work(emulator: Emulator) -> None:
    for host in (own(emulator), f"localhost:{emulator.port}"):
        assert send(emulator.port, "GET", JOBS, {"Host": host})[0] == 200
    assert send(emulator.port, "GET", JOBS, {})[0] == 200  # HTTP/1.0 tools; never a browser


def test_every_answer_is_sandboxed_so_a_stored_page_cannot_drive_the_emulator(emulator: Emulator) -> None:
    html = b"<script>fetch('/v1/projects/p/locations/l/customJobs', {method: 'POST', body: '{}'})</script>"
    status, _, _ = send(emulator.port, "POST", f"/upload/storage/v1/b/{BUCKET}/o?uploadType=media&name=page.html",
                        {"Host": own(emulator), "Content-Type": "text/html"}, html)
    assert status == 200
    conn = http.client.HTTPConnection("127.0.0.1", emulator.port, timeout=60)
    try:
        conn.request("GET", f"/download/storage/v1/b/{BUCKET}/o/page.html?alt=media")
        response = conn.getresponse()
        assert response.read() == html
        assert response.getheader("Content-Security-Policy") == "sandbox"
        assert response.getheader("X-Content-Type-Options") == "nosniff"
    finally:
        conn.close()


def test_the_sdk_and_the_storage_client_send_no_origin_and_still_work(emulator: Emulator, client: Any) -> None:
    from provider.packaging.gcs import gcs_client
    from tests.vertex.test_emulator_api import create

    bucket = gcs_client(PROJECT, emulator.endpoint).bucket(BUCKET)
    bucket.blob("pkg/a.txt").upload_from_string(b"text", content_type="text/plain")  # a media upload of text/plain
    bucket.blob("pkg/big.bin").upload_from_string(b"\0" * (9 << 20))  # resumable (over 8 MiB)
    assert bucket.blob("pkg/a.txt").download_as_bytes() == b"text"
    job = create(client, "sdk-works")
    assert client.get_custom_job(name=job.name).display_name == "sdk-works"
    from google.api_core.exceptions import BadRequest

    try:
        client.cancel_custom_job(name=job.name)  # a POST with no Origin: passes the gate
    except BadRequest as exc:  # the job (its package is missing) may have failed already: the service said so
        assert "cannot be cancelled: it is already" in str(exc)


def test_a_wildcard_emulator_takes_ip_literals_and_its_host_name_but_no_other_name(emulators: Emulators) -> None:
    import socket

    emulator = emulators.start(host="0.0.0.0")
    port = emulator.port
    for host in (f"127.0.0.1:{port}", f"0.0.0.0:{port}", f"{socket.gethostname()}:{port}", f"localhost:{port}"):
        assert send(emulator.port, "GET", JOBS, {"Host": host})[0] == 200, host
    status, _, answer = send(emulator.port, "GET", JOBS, {"Host": f"evil.example:{port}"})
    refused(status, answer, 403, "PERMISSION_DENIED", f"any IP address of this machine with port {port}")


def test_allow_host_from_the_command_line(tmp_path: Path, job_env: None) -> None:
    with subprocess.Popen([sys.executable, "-m", "provider", "emulator", "--port", "0", "--state-dir",
                           str(tmp_path / "state"), "--allow-host", "dev.example", "--allow-host", "tunnel:9000"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True) as proc:
        try:
            assert proc.stdout is not None
            port = int(proc.stdout.readline().rsplit(":", 1)[1])  # "... Vertex AI on http://127.0.0.1:PORT"
            for host, code in (("dev.example", 200), (f"dev.example:{port}", 200), ("dev.example:1", 403), ("tunnel:9000", 200),
                               (f"evil.example:{port}", 403)):
                assert send(port, "GET", JOBS, {"Host": host})[0] == code, host
        finally:
            stop_process(proc)
    bad = subprocess.run([sys.executable, "-m", "provider", "emulator", "--port", "0", "--state-dir",
                          str(tmp_path / "state2"), "--allow-host", "evil example"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "'evil example' is not a host name or address (NAME, NAME:PORT, 1.2.3.4, [::1]:PORT): check --host and " \
           "--allow-host" in bad.stderr


__all__ = ["LOCATION"]
