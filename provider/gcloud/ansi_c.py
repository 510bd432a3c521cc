"""bash's ANSI-C quoting, ``$'...'``: the string it stands for, as bash 5 in a UTF-8 locale reads it.

The escapes (bash's ``strtrans.c``, "ANSI-C Quoting" in the bash manual): ``\\a \\b \\e \\E \\f \\n
\\r \\t \\v \\\\ \\' \\" \\?``, ``\\NNN`` (one to three octal digits, the byte ``NNN & 0xFF``),
``\\xHH`` (one or two hex digits, a byte), ``\\uHHHH`` / ``\\UHHHHHHHH`` (one to four / eight hex
digits, a character written as UTF-8) and ``\\cX`` (control-X). Any other backslash stays, with
the character after it (``\\q`` is ``\\q``). A NUL byte ends the string there: bash drops the
rest of the quoted text (the word goes on after the closing quote).

Bytes are kept as Python keeps undecodable bytes of the command line (``surrogateescape``: byte
0xFF is U+DCFF), so the word they end up in can be checked as UTF-8 once, whole
(provider.gcloud.words). What bash itself would write differently outside a UTF-8 locale, and
``\\u`` of a surrogate or beyond U+10FFFF (not a character), is refused.
"""

from __future__ import annotations

_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
           "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_OCTAL = "01234567"
_HEX = "0123456789abcdefABCDEF"


class AnsiCError(ValueError):
    """A ``$'...'`` string bash would read differently from what trainjobs can stand for; at an index."""

    def __init__(self, message: str, at: int) -> None:
        super().__init__(message)
        self.at = at


def _byte(value: int) -> str:
    """One byte as the command line's text holds it (surrogateescape above 0x7F)."""
    return chr(value) if value < 0x80 else chr(0xDC00 + value)


def _digits(line: str, start: int, allowed: str, most: int) -> str:
    end = start
    while end < len(line) and end - start < most and line[end] in allowed:
        end += 1
    return line[start:end]


def _escape(line: str, i: int) -> tuple[str, int]:
    """The text of the escape whose backslash is at ``i``, and the index after it."""
    c = line[i + 1: i + 2]
    if c in _SIMPLE:
        return _SIMPLE[c], i + 2
    if c in _OCTAL and c:
        digits = _digits(line, i + 1, _OCTAL, 3)
        return _byte(int(digits, 8) & 0xFF), i + 1 + len(digits)
    if c == "x":
        digits = _digits(line, i + 2, _HEX, 2)
        return (_byte(int(digits, 16)), i + 2 + len(digits)) if digits else ("\\x", i + 2)
    if c in ("u", "U"):
        digits = _digits(line, i + 2, _HEX, 4 if c == "u" else 8)
        if not digits:
            return "\\" + c, i + 2
        value = int(digits, 16)
        if 0xD800 <= value <= 0xDFFF or value > 0x10FFFF:
            raise AnsiCError(f"\\{c}{digits} is not a character (a surrogate or beyond U+10FFFF)", i)
        return chr(value), i + 2 + len(digits)
    if c == "c":
        x = line[i + 2: i + 3]
        if not x or x == "'":  # \c just before the closing quote stays as written
            return "\\c", i + 2
        if x == "\\" or not x.isascii():
            raise AnsiCError(f"\\c{x} is not understood here; allowed: \\c and a letter, @, [, ], ^, _ or ?", i)
        return chr(0x7F if x == "?" else ord(x.upper()) & 0x1F), i + 3
    return "\\" + c, i + 2


def read(line: str, start: int) -> tuple[str, int]:
    """The string of the ``$'...'`` whose ``$`` is at ``start``, and the index after its closing quote.

    AnsiCError when it is never closed or holds an escape bash would read differently.
    """
    out: list[str] = []
    i = start + 2
    ended = False  # a NUL seen: bash drops the rest of the string
    while i < len(line):
        c = line[i]
        if c == "'":
            return "".join(out), i + 1
        if c == "\\" and i + 1 < len(line):
            text, i = _escape(line, i)
        else:
            text, i = c, i + 1
        if "\x00" in text:
            ended = True
        if not ended:
            out.append(text)
    raise AnsiCError("this $'...' string is never closed", start)
