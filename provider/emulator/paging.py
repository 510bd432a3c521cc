"""List paging: page sizes and opaque, stable page tokens.

Jobs are listed newest first, ordered by (create time, id). A page token holds the position of
the last job returned, so a job created while a client pages never shifts the pages it has not
read yet, and a deleted job never makes it skip one. It also holds a digest of the request
(parent, filter, read mask): a token only works with the request that produced it.

``pageSize``: absent or 0 means 100 (Vertex AI's default is not documented); at most 1000,
larger values are lowered to 1000; negative values are refused.
"""

from __future__ import annotations

import base64
import hashlib
import json

from provider.emulator.errors import invalid

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000

Key = tuple[str, str]  # (create time, id)


def page_size(raw: str | None) -> int:
    if raw in (None, ""):
        return DEFAULT_PAGE_SIZE
    try:
        size = int(raw)
    except ValueError:
        raise invalid(f'Invalid value for page_size: "{raw}" is not an integer.') from None
    if size < 0:
        raise invalid(f"page_size must not be negative (got {size}).")
    return min(size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def encode(after: Key, *request: str) -> str:
    data = json.dumps({"a": list(after), "r": _digest(*request)}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _position(data: object) -> Key | None:
    """The (create time, id) a token names, or None when it is not exactly that."""
    after = data.get("a") if isinstance(data, dict) else None
    if not (isinstance(after, list) and len(after) == 2 and all(isinstance(p, str) and p for p in after)):
        return None
    return after[0], after[1]


def decode(token: str | None, *request: str) -> Key | None:
    """The position after which the page starts; INVALID_ARGUMENT for a malformed token or one of another request."""
    if not token:
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    except ValueError:  # binascii.Error, UnicodeDecodeError and JSONDecodeError are ValueErrors
        data = None
    after = _position(data)
    if after is None or not isinstance(data, dict) or not isinstance(data.get("r"), str):
        raise invalid("Invalid page token.")
    if data["r"] != _digest(*request):
        raise invalid("Invalid page token: it was issued for a different parent, filter or read mask.")
    return after
