"""Short, escaped excerpts of input text, for error messages.

A file that is not a spec (a secret behind a symlink, a binary, a key file) must never be
echoed into a message that lands in CI logs or pull-request annotations. Every piece of
input text a message quotes goes through ``clip``: at most ``LIMIT`` characters, with
control, format (bidirectional overrides) and other non-printable characters escaped.
"""

from __future__ import annotations

LIMIT = 40


def _escape(ch: str) -> str:
    if ch.isprintable():
        return ch
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def clip(text: str, limit: int = LIMIT) -> str:
    """``text`` escaped and cut to ``limit`` characters; a cut says how long the original was."""
    head = text[:limit]
    shown = head if head.isprintable() else "".join(_escape(ch) for ch in head)
    if len(text) > limit:
        return f"{shown}... ({len(text):,} characters)"
    return shown


def quoted(text: str, limit: int = LIMIT) -> str:
    """``clip(text)`` in single quotes, for a value inside a sentence."""
    return "'" + clip(text, limit).replace("'", "\\'") + "'"
