"""provider.core.trust: the one decision on Host, Origin, Fetch Metadata and body type, for each
class of request a browser page or a real client sends (headers as Chromium and Firefox send them,
and as gcloud and the google-cloud libraries send them)."""

from __future__ import annotations

import pytest

from provider.core.trust import Authority, Binding, Body, Headers, Refusal, Verdict, judge

PORT = 8080
LOOP = Binding.of("127.0.0.1", PORT)


def verdict(binding: Binding, method: str, headers: dict[str, str], body: Body = Body.NONE, pages: bool = False,
            has_body: bool = False) -> Verdict:
    return judge(binding, Headers.of(method, list(headers.items()), has_body), body, pages)


@pytest.mark.parametrize("host", ["127.0.0.1:8080", "localhost:8080", "[::1]:8080", "LOCALHOST:8080"])
def test_a_loopback_server_answers_its_loopback_names_with_its_port(host: str) -> None:
    assert verdict(LOOP, "GET", {"Host": host}).ok


@pytest.mark.parametrize(("host", "why"), [
    ("evil.example:8080", "DNS rebinding: the attacker's name, the right port"),
    ("evil.example", "DNS rebinding on port 80"),
    ("localhost:9999", "another port (a proxy or a forward not allowed)"),
    ("10.0.0.5:8080", "an address this server does not listen on"),
    ("localhost.evil.example:8080", "a name that starts like localhost"),
    ("127.0.0.1:8080, evil.example:8080", "two Host headers"),
    ("127.0.0.1:8080 extra", "garbage"),
    ("user@127.0.0.1:8080", "userinfo"),
    ("[::1", "a broken IPv6 literal"),
    ("127.0.0.1:99999", "a port out of range"),
    ("", "an empty Host"),
])
def test_any_other_host_is_refused_with_what_is_allowed(host: str, why: str) -> None:
    v = verdict(LOOP, "GET", {"Host": host})
    assert v.refusal is Refusal.FOREIGN_HOST and v.status == 403, why
    assert v.message == (f"Host {host!r} is not this server's; allowed: 127.0.0.1:8080, localhost:8080, [::1]:8080 "
                         "(start it with --allow-host NAME to serve another name, or --host ADDRESS to listen "
                         "elsewhere)")


def test_no_host_at_all_is_an_http_1_0_tool_not_a_browser() -> None:
    assert verdict(LOOP, "POST", {"Content-Type": "application/json"}, Body.JSON, has_body=True).ok


def test_a_host_without_a_port_means_this_servers_port() -> None:
    """Only a non-browser client leaves the port out (a browser writes every port but 80): the name decides."""
    assert verdict(LOOP, "GET", {"Host": "127.0.0.1"}).ok and verdict(LOOP, "GET", {"Host": "localhost"}).ok
    assert verdict(LOOP, "GET", {"Host": "evil.example"}).refusal is Refusal.FOREIGN_HOST
    v = verdict(LOOP, "POST", {"Host": "localhost", "Origin": "http://localhost"}, Body.FORM, pages=True)
    assert v.refusal is Refusal.FOREIGN_ORIGIN  # http://localhost is port 80: another origin


def test_a_named_host_and_allowed_names() -> None:
    b = Binding.of("192.168.1.7", PORT, ("dev.example", "tunnel.example:9000", "[fe80::1]"))
    for host in ("192.168.1.7:8080", "dev.example:8080", "tunnel.example:9000", "[fe80::1]:8080"):
        assert verdict(b, "GET", {"Host": host}).ok, host
    for host in ("localhost:8080", "127.0.0.1:8080", "tunnel.example:8080", "192.168.1.8:8080"):
        assert verdict(b, "GET", {"Host": host}).refusal is Refusal.FOREIGN_HOST, host


def test_a_wildcard_server_takes_any_ip_literal_and_its_own_names_but_no_other_name() -> None:
    b = Binding.of("0.0.0.0", PORT, hostname=lambda: "Workstation7")
    for host in ("127.0.0.1:8080", "localhost:8080", "[::1]:8080", "10.1.2.3:8080", "0.0.0.0:8080",
                 "[2001:db8::5]:8080", "workstation7:8080"):
        assert verdict(b, "GET", {"Host": host}).ok, host
    for host in ("evil.example:8080", "10.1.2.3:9090", "2130706433:8080"):
        assert verdict(b, "GET", {"Host": host}).refusal is Refusal.FOREIGN_HOST, host
    assert b.shown() == ("127.0.0.1:8080, localhost:8080, [::1]:8080, workstation7:8080, any IP address of this "
                         "machine with port 8080")


def test_a_bad_allowed_name_is_refused_when_the_server_starts() -> None:
    with pytest.raises(ValueError, match=r"'evil example' is not a host name or address"):
        Binding.of("127.0.0.1", PORT, ("evil example",))


@pytest.mark.parametrize("origin", ["http://evil.example", "http://evil.example:8080", "null",
                                    "http://localhost:3000", "https://localhost:8080", "http://127.0.0.1:8080",
                                    "http://localhost:8080/path", "http://localhost:8080, http://evil.example"])
def test_an_origin_that_is_not_this_requests_own_is_refused_on_every_method(origin: str) -> None:
    for method in ("GET", "POST", "DELETE"):
        v = verdict(LOOP, method, {"Host": "localhost:8080", "Origin": origin,
                                   "Content-Type": "application/json"}, Body.JSON, pages=True)
        assert v.refusal is Refusal.FOREIGN_ORIGIN and v.status == 403, (origin, method)
        assert f"Origin {origin!r} is not this server's own (http://localhost:8080)" in v.message


def test_a_wildcard_server_does_not_take_any_ip_as_an_origin() -> None:
    """Any IP literal is a safe Host (it cannot be rebound), never a safe Origin: a page on the attacker's own
    address, port 8080, posting to this machine's address, is another origin."""
    b = Binding.of("0.0.0.0", PORT, hostname=lambda: "ws")
    v = verdict(b, "POST", {"Host": "10.0.0.5:8080", "Origin": "http://203.0.113.9:8080"}, Body.FORM, pages=True)
    assert v.refusal is Refusal.FOREIGN_ORIGIN


def test_the_consoles_own_form_post_passes_the_rules() -> None:
    """Chromium's POST of the console's own cancel form (its token is the console's own check)."""
    headers = {"Host": "127.0.0.1:8080", "Origin": "http://127.0.0.1:8080", "Sec-Fetch-Site": "same-origin",
               "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document",
               "Content-Type": "application/x-www-form-urlencoded"}
    assert verdict(LOOP, "POST", headers, Body.FORM, pages=True, has_body=True).ok


def test_port_80_origins_leave_the_port_out() -> None:
    b = Binding.of("127.0.0.1", 80)
    assert verdict(b, "POST", {"Host": "localhost", "Origin": "http://localhost"}, Body.FORM, pages=True).ok


@pytest.mark.parametrize(("method", "mode", "dest", "ok"), [
    ("GET", "navigate", "document", True),       # a link followed from another site: the user reads the page
    ("GET", "navigate", "iframe", False),        # framed by another site
    ("GET", "no-cors", "image", False),          # <img src> of a log stream: holds a thread, XSSI
    ("GET", "cors", "empty", False),             # fetch()
    ("GET", "no-cors", "script", False),
    ("POST", "navigate", "document", False),     # a cross-site form post
])
def test_fetch_metadata_of_another_site(method: str, mode: str, dest: str, ok: bool) -> None:
    for site in ("cross-site", "same-site"):
        headers = {"Host": "127.0.0.1:8080", "Sec-Fetch-Site": site, "Sec-Fetch-Mode": mode, "Sec-Fetch-Dest": dest}
        v = verdict(LOOP, method, headers, Body.FORM if method == "POST" else Body.NONE, pages=True)
        assert v.ok is ok, (site, method, mode, dest)
        if not ok:
            assert v.refusal is Refusal.CROSS_SITE and f"(Sec-Fetch-Site: {site})" in v.message


def test_a_server_without_pages_takes_no_write_from_a_browser_even_its_own_origin() -> None:
    headers = {"Host": "127.0.0.1:8080", "Origin": "http://127.0.0.1:8080", "Content-Type": "application/json"}
    v = verdict(LOOP, "POST", headers, Body.JSON, has_body=True)
    assert v.refusal is Refusal.BROWSER_WRITE and v.status == 403
    assert "this server has no pages" in v.message
    v = verdict(LOOP, "POST", {"Host": "127.0.0.1:8080", "Sec-Fetch-Site": "same-origin",
                               "Content-Type": "application/json"}, Body.JSON, has_body=True)
    assert v.refusal is Refusal.BROWSER_WRITE
    assert verdict(LOOP, "GET", {"Host": "127.0.0.1:8080", "Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate",
                                 "Sec-Fetch-Dest": "document"}).ok  # the user opens a download link


@pytest.mark.parametrize(("content_type", "has_body", "ok"), [
    ("application/json", True, True),
    ("application/json; charset=UTF-8", True, True),
    ("Application/JSON", True, True),
    ("application/merge-patch+json", True, True),
    (None, False, True),                                      # gcloud's cancel: no body
    ("text/plain", True, False),                              # the cross-site "simple" POST
    ("text/plain;charset=UTF-8", True, False),
    ("application/x-www-form-urlencoded", True, False),
    ("multipart/form-data; boundary=x", True, False),
    ("application/x-www-form-urlencoded", False, False),     # an empty form post
    (None, True, True),                                       # no Content-Type: a page that sends none sends an Origin
])
def test_a_json_api_takes_json_bodies_only(content_type: str | None, has_body: bool, ok: bool) -> None:
    headers = {"Host": "127.0.0.1:8080", **({"Content-Type": content_type} if content_type else {})}
    v = verdict(LOOP, "POST", headers, Body.JSON, has_body=has_body)
    assert v.ok is ok, content_type
    if not ok:
        assert v.refusal is Refusal.BODY_TYPE and v.status == 415
        assert "a JSON API call must send its body as application/json" in v.message


def test_uploads_take_the_objects_type_and_multipart_uploads_multipart_related() -> None:
    host = {"Host": "127.0.0.1:8080"}
    assert verdict(LOOP, "POST", {**host, "Content-Type": "text/plain"}, Body.MEDIA, has_body=True).ok
    assert verdict(LOOP, "POST", {**host, "Content-Type": "multipart/related; boundary='===x=='"},
                   Body.MULTIPART, has_body=True).ok
    v = verdict(LOOP, "POST", {**host, "Content-Type": "multipart/form-data; boundary=x"}, Body.MULTIPART,
                has_body=True)
    assert v.refusal is Refusal.BODY_TYPE and "multipart/related" in v.message
    # a media upload from a browser page is refused by its Origin (the emulator has no pages)
    v = verdict(LOOP, "POST", {**host, "Content-Type": "text/plain", "Origin": "http://evil.example"}, Body.MEDIA,
                has_body=True)
    assert v.refusal is Refusal.FOREIGN_ORIGIN


def test_clients_that_send_no_origin_pass() -> None:
    """What gcloud (httplib2), the google-cloud libraries (requests) and trainjobs send."""
    for headers, body in (
        ({"Host": "127.0.0.1:8080", "Content-Type": "application/json", "User-Agent": "google-cloud-sdk"}, Body.JSON),
        ({"Host": "127.0.0.1:8080", "Content-Type": "multipart/related; boundary=\"==0==\""}, Body.MULTIPART),
        ({"Host": "localhost:8080", "Content-Type": "application/octet-stream"}, Body.MEDIA),
    ):
        assert verdict(LOOP, "POST", headers, body, has_body=True).ok


def test_authorities_parse_as_browsers_write_them() -> None:
    assert Authority.parse("LocalHost:8080") == Authority("localhost", 8080)
    assert Authority.parse("[0:0:0:0:0:0:0:1]:8080") == Authority("::1", 8080)
    assert str(Authority("::1", 8080)) == "[::1]:8080"
    assert Authority.parse("::1") is None  # an IPv6 address is bracketed in a Host
    assert Authority.parse("a_b.example") == Authority("a_b.example", 80)
