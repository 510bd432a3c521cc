"""File bytes as YAML text: UTF-8 within the size limit, or one problem saying why not."""

from __future__ import annotations

from provider.core.problem import Problem
from provider.document.loaded import MAX_BYTES


def decode(data: bytes, filename: str) -> tuple[str | None, list[Problem]]:
    """Turn file bytes into text, refusing binary, non-UTF-8 and oversized input."""

    def fail(message: str, allowed: str, line: int = 1, col: int = 1, rule: str = "file") -> tuple[None, list[Problem]]:
        return None, [Problem(file=filename, line=line, column=col, path="", message=message, allowed=allowed, rule=rule)]

    if len(data) > MAX_BYTES:
        return fail(
            f"the file is {len(data):,} bytes, larger than the {MAX_BYTES:,}-byte limit",
            "spec files up to 1 MiB",
            rule="file.size",
        )
    if b"\x00" in data:
        return fail("this is a binary file, not YAML text", "UTF-8 text", rule="file.binary")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        before = data[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        return fail(f"the file is not valid UTF-8 (byte 0x{data[exc.start]:02x})", "UTF-8 text", line, col, "file.encoding")
    if "\ufffe" in text or "\ufeff" in text[1:]:
        return fail("the file contains a stray byte-order mark", "UTF-8 text", rule="file.encoding")
    return text, []
