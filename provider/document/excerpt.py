"""Text from a repository made safe to show: escaped, and in excerpts short.

File names, values and messages that quote them come from pull requests. Sent raw to a
terminal, an ESC starts an ANSI sequence (colours, cursor moves, a retitled window, an OSC 8
link), a carriage return or a newline forges a line of its own (``result: OK``), and a
bidirectional override (U+202E) shows a name backwards. ``printable`` is the one place that
decides what is shown as an escape instead: every character Python does not call printable,
that is the Unicode categories

* Cc: control characters (ESC, CR, LF, TAB, DEL, C1 controls),
* Cf: format characters (bidi embeddings, overrides and isolates U+202A-U+202E, U+2066-U+2069,
  zero-width spaces and joiners, the byte-order mark),
* Zl, Zp: the line and paragraph separators U+2028 and U+2029,
* Zs other than the ASCII space (a no-break space looks like a space and is not one),
* Cs: lone surrogates (a file name's undecodable bytes, kept by ``surrogateescape``),
* Co, Cn: private-use and unassigned code points.

Each is written as a Python escape of its code point: ``\\x1b`` (ESC), ``\\x0a`` (a newline),
``\\u202e``, ``\\U000e0001``.
Every other character, non-ASCII letters included, is shown as it is.

A file that is not a spec (a secret behind a symlink, a binary, a key file) must never be
echoed into a message that lands in CI logs or pull-request annotations: every piece of input
text a message quotes goes through ``clip``, at most ``LIMIT`` characters, escaped.
"""

from __future__ import annotations

LIMIT = 40


def _escape(ch: str) -> str:
    if ch.isprintable():
        return ch
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` with every character that is not printable (see the module docstring) escaped."""
    return text if text.isprintable() else "".join(_escape(ch) for ch in text)


def clip(text: str, limit: int = LIMIT) -> str:
    """``text`` escaped and cut to ``limit`` characters; a cut says how long the original was."""
    shown = printable(text[:limit])
    if len(text) > limit:
        return f"{shown}... ({len(text):,} characters)"
    return shown


def quoted(text: str, limit: int = LIMIT) -> str:
    """``clip(text)`` in single quotes, for a value inside a sentence."""
    return "'" + clip(text, limit).replace("'", "\\'") + "'"
