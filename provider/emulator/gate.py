"""The emulator's side of provider.core.trust: which body each route takes, and a refusal as
Google's JSON error. The emulator has no pages: its clients (gcloud, the google-cloud libraries,
trainjobs, Pulumi) are not browsers, so no browser page may change anything here."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import parse_qsl, urlsplit

from provider.core.trust import READS, Binding, Body, Headers, has_body, judge
from provider.emulator.errors import ApiError

# Sent with every answer: an object downloaded from the emulator's storage (an .html one, say) is
# never a page of the emulator's origin that could script it (CSP sandbox gives it an opaque origin).
RESPONSE_HEADERS = (("X-Content-Type-Options", "nosniff"), ("Content-Security-Policy", "sandbox"))


def body_of(method: str, path: str, params: dict[str, str]) -> Body:
    """What body a route takes: Cloud Storage uploads carry the object (any type), the rest JSON."""
    if method in READS:
        return Body.NONE
    if not path.startswith("/upload/"):
        return Body.JSON
    if method == "PUT":  # a resumable upload's chunk
        return Body.MEDIA
    return {"multipart": Body.MULTIPART, "resumable": Body.JSON}.get(params.get("uploadType", "media"), Body.MEDIA)


def refusal(binding: Binding, method: str, target: str, headers: Iterable[tuple[str, str]]) -> ApiError | None:
    """The error that refuses this request (decided on its request line and headers, before its body is
    read), or None. ``target``: the request line's path and query."""
    url = urlsplit(target)
    lines = list(headers)
    verdict = judge(binding, Headers.of(method, lines, has_body(lines)), body_of(method, url.path, dict(parse_qsl(url.query))), pages=False)
    if verdict.ok:
        return None
    status = "PERMISSION_DENIED" if verdict.status == 403 else "INVALID_ARGUMENT"
    return ApiError(status, f"Refused: {verdict.message}.", http=verdict.status, headers=(("Connection", "close"),))
