"""Who may drive trainjobs' local servers (the emulator and the console): the one decision on a
request's ``Host``, ``Origin``, Fetch Metadata (``Sec-Fetch-*``) and body type, made before any
route runs. Pure and stdlib only; each server turns a refusal into its own kind of answer.

    binding = Binding.of("127.0.0.1", 8080)
    verdict = judge(binding, Headers.of("POST", headers, has_body=True), Body.JSON, pages=False)
    if not verdict.ok: ...  # verdict.status (403 or 415), verdict.message (what, and what is allowed)

The rules (docs/security.md, "The local servers", says why and gives the sources):

1. **Host** names this server: with the bound port, ``127.0.0.1``, ``localhost`` or ``[::1]``
   when it listens on a loopback address; the address ``--host`` names otherwise; on a wildcard
   (``0.0.0.0``, ``::``) also any IP address and this machine's host name; plus each
   ``--allow-host``; a Host without a port (never a browser's) means the server's own port. A
   DNS-rebinding page sends its own name, so it is refused. An IP literal
   cannot be rebound, which is why a wildcard server may take any. No Host at all (HTTP/1.0 tools)
   is accepted: every browser sends one.
2. **Origin**, when sent, is ``http://`` + this request's Host, exactly (``null`` is refused).
3. **Fetch Metadata**: a request a page of another site makes (``Sec-Fetch-Site: cross-site`` or
   ``same-site``) is refused unless it is a top-level navigation that reads (a link followed).
4. **Writes** (any method but GET, HEAD, OPTIONS): a server with no pages of its own
   (``pages=False``: the emulator) takes none from a browser page at all (any Origin, any
   ``Sec-Fetch-Site`` but ``none``); one with pages (the console) only from its own.
5. **Body type** of a write: a JSON API takes ``application/json`` (or ``application/*+json``),
   or no Content-Type (a page's string or form body always has one, and a page that sends none
   sends an Origin); a multipart upload anything but the types a page may send without a CORS
   preflight (``text/plain``, the form encodings); a media upload or a form any type. So an old
   browser that sends no Origin is stopped too where JSON is due.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Iterable
from enum import Enum

from provider.core.record import Record

LOOPBACK = ("127.0.0.1", "localhost", "::1")
WILDCARDS = ("0.0.0.0", "::", "")
READS = ("GET", "HEAD", "OPTIONS")
# The Content-Types a page may send to another origin without a CORS preflight (Fetch, "CORS-safelisted").
SIMPLE_TYPES = ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data")
_NAME = re.compile(r"^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$")
_AUTHORITY = re.compile(r"^(?:\[(?P<v6>[0-9a-f:.]+)\]|(?P<name>[^:\[\]]+))(?::(?P<port>[0-9]{1,5}))?$")


class Refusal(Enum):
    """Why a request is refused (each has its message in ``judge``)."""

    FOREIGN_HOST = "foreign-host"      # Host is not one of this server's names: DNS rebinding, or a proxy
    FOREIGN_ORIGIN = "foreign-origin"  # a page of another origin (or an opaque one) sent it
    CROSS_SITE = "cross-site"          # Sec-Fetch-Site says another site's page embeds, fetches or posts
    BROWSER_WRITE = "browser-write"    # a state change from a browser page, to a server that has none
    BODY_TYPE = "body-type"            # a body not of the type the route takes (text/plain for JSON)


class Body(Enum):
    """What body a route takes, for rule 5."""

    NONE = "none"                # reads
    JSON = "json"                # the JSON APIs
    FORM = "form"                # the console's own forms (its token is checked by the console)
    MEDIA = "media"              # a Cloud Storage media upload or resumable chunk: the object's own type
    MULTIPART = "multipart"      # a Cloud Storage multipart upload: multipart/related


class Authority(Record):
    """A host and port, as a Host header (or an Origin) names them: lower case, IPv6 unbracketed."""

    host: str
    port: int

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    @property
    def is_ip(self) -> bool:
        return _ip(self.host) is not None

    @classmethod
    def parse(cls, text: str, default_port: int = 80) -> Authority | None:
        """``name``, ``name:port``, ``1.2.3.4:port``, ``[::1]:port``; None for anything else."""
        m = _AUTHORITY.match(text.strip().lower())
        if m is None or (m["port"] is not None and not 0 < int(m["port"]) < 65536):
            return None
        port = int(m["port"]) if m["port"] is not None else default_port
        if m["v6"] is not None:
            address = _ip(m["v6"])
            return cls(address, port) if address is not None and ":" in address else None
        address = _ip(m["name"])
        if address is not None:
            return cls(address, port) if ":" not in address else None
        return cls(m["name"], port) if _NAME.match(m["name"]) else None


def _ip(text: str) -> str | None:
    try:
        return ipaddress.ip_address(text).compressed
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    address = _ip(host.strip("[]"))
    return host.lower() == "localhost" or (address is not None and ipaddress.ip_address(address).is_loopback)


class Binding(Record):
    """The names a server answers to: where it listens, and what the user allowed besides."""

    host: str  # the address it listens on, as --host gave it
    port: int  # the port it listens on (the one it got, for port 0)
    names: tuple[Authority, ...]  # the Host values it takes
    any_address: bool = False  # listening on a wildcard: any IP literal with ``port`` is taken too

    @classmethod
    def of(cls, host: str, port: int, allow: tuple[str, ...] = (),
           hostname: Callable[[], str] = socket.gethostname) -> Binding:
        """The binding of a server on ``host``:``port``; ``allow``: ``--allow-host`` values (NAME or
        NAME:PORT; a NAME alone takes the server's port). ValueError names a value that is no host."""
        bare = host.strip("[]").lower()
        wildcard = bare in WILDCARDS
        if wildcard:
            own: tuple[str, ...] = (*LOOPBACK, hostname().lower())
        elif is_loopback(bare):
            own = LOOPBACK
        else:
            own = (bare,)
        names: list[Authority] = []
        for text in (*own, *allow):
            shown = f"[{text}]" if ":" in text and not text.startswith("[") and _ip(text) else text
            authority = Authority.parse(shown, port)
            if authority is None:
                raise ValueError(f"{text!r} is not a host name or address (NAME, NAME:PORT, 1.2.3.4, [::1]:PORT)")
            if authority not in names:
                names.append(authority)
        return cls(host, port, tuple(names), wildcard)

    def accepts(self, authority: Authority) -> bool:
        return authority in self.names or (self.any_address and authority.is_ip and authority.port == self.port)

    def shown(self) -> str:
        """The Host values it takes, for a message."""
        out = ", ".join(str(a) for a in self.names)
        return out + (f", any IP address of this machine with port {self.port}" if self.any_address else "")


class Headers(Record):
    """What the rules read of a request."""

    method: str
    host: str | None = None
    origin: str | None = None
    fetch_site: str | None = None  # Sec-Fetch-Site
    fetch_mode: str | None = None  # Sec-Fetch-Mode
    fetch_dest: str | None = None  # Sec-Fetch-Dest
    content_type: str | None = None
    has_body: bool = False

    @classmethod
    def of(cls, method: str, headers: Iterable[tuple[str, str]], has_body: bool) -> Headers:
        """From a request's header lines; a header sent twice reads as its values joined by ", " (RFC 9110,
        5.3), so two Hosts or two Origins are no Host and no Origin of this server's."""
        joined: dict[str, str] = {}
        for name, value in headers:
            key = name.lower()
            joined[key] = f"{joined[key]}, {value}" if key in joined else value
        get = joined.get
        return cls(method.upper(), get("host"), get("origin"), _lower(get("sec-fetch-site")),
                   _lower(get("sec-fetch-mode")), _lower(get("sec-fetch-dest")), get("content-type"), has_body)


def _lower(value: str | None) -> str | None:
    return value.strip().lower() if value is not None else None


class Verdict(Record):
    """Allowed (``refusal`` None), or refused with an HTTP status and a message: what, and what is allowed."""

    refusal: Refusal | None = None
    status: int = 200
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.refusal is None


ALLOWED = Verdict()
_CLIENTS = "gcloud, the google-cloud libraries and trainjobs send no Origin"


class _Asked(Record):
    """One request as the rules read it: its headers, its Host parsed, the body its route takes."""

    request: Headers
    host: Authority | None
    body: Body
    pages: bool

    @property
    def write(self) -> bool:
        return self.request.method not in READS


def _host_rule(binding: Binding, asked: _Asked) -> Verdict | None:
    if asked.request.host is None or (asked.host is not None and binding.accepts(asked.host)):
        return None
    return Verdict(Refusal.FOREIGN_HOST, 403,
                   f"Host {asked.request.host!r} is not this server's; allowed: {binding.shown()} (start it with "
                   "--allow-host NAME to serve another name, or --host ADDRESS to listen elsewhere)")


def _origin_rule(binding: Binding, asked: _Asked) -> Verdict | None:
    origin, host = asked.request.origin, asked.host
    if origin is None or (host is not None and origin_of(origin) == host):
        return None
    own = f"http://{host}" if host is not None else "the origin of its own pages"
    return Verdict(Refusal.FOREIGN_ORIGIN, 403,
                   f"Origin {origin!r} is not this server's own ({own}): a page of another site may not drive it; "
                   f"{_CLIENTS}")


def _fetch_rule(binding: Binding, asked: _Asked) -> Verdict | None:
    r = asked.request
    link = not asked.write and r.fetch_mode == "navigate" and r.fetch_dest in (None, "document")
    if r.fetch_site not in ("cross-site", "same-site") or link:
        return None
    what = "change anything here" if asked.write else "fetch or embed what this server answers"
    return Verdict(Refusal.CROSS_SITE, 403,
                   f"a page of another site (Sec-Fetch-Site: {r.fetch_site}) may not {what}; open it from its own "
                   "address")


def _write_rule(binding: Binding, asked: _Asked) -> Verdict | None:
    r = asked.request
    if not asked.write or asked.pages or (r.origin is None and r.fetch_site in (None, "none")):
        return None
    return Verdict(Refusal.BROWSER_WRITE, 403,
                   f"a browser page may not {r.method} here (Origin {r.origin!r}, Sec-Fetch-Site {r.fetch_site!r}): "
                   f"this server has no pages, and its clients ({_CLIENTS}) are not browsers")


def _body_rule(binding: Binding, asked: _Asked) -> Verdict | None:
    if not asked.write:
        return None
    kind = media_type(asked.request.content_type)
    if asked.body is Body.JSON and kind and not (
            kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json"))):
        return Verdict(Refusal.BODY_TYPE, 415,
                       f"a JSON API call must send its body as application/json, not {kind!r} "
                       "(text/plain and form bodies are what a page of another site can send)")
    if asked.body is Body.MULTIPART and kind in SIMPLE_TYPES:
        return Verdict(Refusal.BODY_TYPE, 415,
                       f"a multipart upload is sent as multipart/related (a JSON metadata part, then the media), "
                       f"not {kind!r}, which is what a form of another site can send")
    return None


# The rules of the module's docstring, in their order: the first that refuses decides.
RULES = (_host_rule, _origin_rule, _fetch_rule, _write_rule, _body_rule)


def judge(binding: Binding, request: Headers, body: Body, pages: bool) -> Verdict:
    """The verdict on one request: the first rule that refuses it, else ALLOWED."""
    # A Host without a port means this server's: only a non-browser client leaves the port out (a browser writes
    # every port but 80), and the name is what tells a rebinding page apart.
    host = Authority.parse(request.host, binding.port) if request.host is not None else None
    asked = _Asked(request, host, body, pages)
    for rule in RULES:
        verdict = rule(binding, asked)
        if verdict is not None:
            return verdict
    return ALLOWED


def origin_of(origin: str) -> Authority | None:
    """The authority of an ``http://`` Origin (port 80 when it names none); None for ``null``, https, a path."""
    scheme, sep, rest = origin.strip().lower().partition("://")
    return Authority.parse(rest) if sep and scheme == "http" and "/" not in rest else None


def has_body(headers: Iterable[tuple[str, str]]) -> bool:
    """Whether a request's header lines announce a body: chunked, or a positive Content-Length (a malformed
    one is the body reader's to refuse, with its own message)."""
    return any(k.lower() == "transfer-encoding" or (k.lower() == "content-length" and v.strip().isdigit()
                                                   and int(v) > 0) for k, v in headers)


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";")[0].strip().lower()
