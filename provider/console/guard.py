"""The console's guard: provider.core.trust's rules on every request, and the token of its forms.

A cancel (the console's one state change) is done only when all of these hold:

* its Host names the console (trust rule 1). This is the one defence against DNS rebinding: a
  rebinding page is same-origin with its own name, so it could read any page, token and cookie
  the console gave that name; refused at the Host, it reads nothing;
* its Origin, when sent, is the console's own, and Sec-Fetch-Site, when sent, is not another
  site's (rules 2 and 3): every current browser sends one or both with a POST;
* its form's ``token`` is HMAC-SHA256(secret, nonce): the secret never leaves the process; the
  nonce is this browser's cookie, ``SameSite=Strict; HttpOnly``. A page of another site gets no
  cookie sent with its POST (not even from a frame), cannot read the token, and cannot make one
  for a cookie it planted (cookies are not separated by port, so a page of another local server
  could plant one). A token seen elsewhere (a screenshot, a proxy's log) is worth nothing in
  another browser.

Every answer also forbids framing (clickjacking the Cancel button) and MIME sniffing.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Callable

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from provider.core.trust import READS, Binding, Body, Headers, Verdict, has_body, judge

COOKIE = "trainjobs_console"
_NONCE = re.compile(r"^[A-Za-z0-9_-]{22,64}$")
SECURITY_HEADERS = (
    ("X-Frame-Options", "DENY"),
    ("Content-Security-Policy", "frame-ancestors 'none'"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),
)
Refuse = Callable[[Request, Verdict], Response]


def form_token(secret: bytes, nonce: str) -> str:
    """The token a form of this browser carries: bound to its cookie and to this process."""
    return hmac.new(secret, nonce.encode(), hashlib.sha256).hexdigest()


def nonce_of(request: Request) -> str:
    """This browser's nonce (the one the guard gave this request: its cookie, or a new one it sets)."""
    nonce: str = request.state.nonce
    return nonce


def valid_token(secret: bytes, request: Request, token: object) -> bool:
    """Whether a submitted form's token is the one made for the cookie this request carries."""
    cookie = request.cookies.get(COOKIE, "")
    return bool(_NONCE.match(cookie)) and isinstance(token, str) and hmac.compare_digest(
        token, form_token(secret, cookie))


class Guard:
    """ASGI middleware: judge each request (provider.core.trust) before any route sees it, refuse with
    ``refuse``'s page, give a browser without one its nonce cookie, and add SECURITY_HEADERS."""

    def __init__(self, app: ASGIApp, binding: Binding, refuse: Refuse) -> None:
        self.app = app
        self.binding = binding
        self.refuse = refuse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        lines = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        method = scope["method"]
        verdict = judge(self.binding, Headers.of(method, lines, has_body(lines)),
                        Body.NONE if method in READS else Body.FORM, pages=True)
        cookie = Request(scope).cookies.get(COOKIE, "")
        nonce = cookie if _NONCE.match(cookie) else secrets.token_urlsafe(32)
        scope.setdefault("state", {})["nonce"] = nonce

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in SECURITY_HEADERS:
                    headers.append(key, value)
                if verdict.ok and nonce != cookie:
                    headers.append("Set-Cookie", f"{COOKIE}={nonce}; Path=/; HttpOnly; SameSite=Strict")
            await send(message)

        if verdict.ok:
            await self.app(scope, receive, send_with_headers)
        else:
            await self.refuse(Request(scope, receive), verdict)(scope, receive, send_with_headers)
