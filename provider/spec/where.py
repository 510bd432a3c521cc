"""Where a value of the model was written: its document path (shared by every model module)."""

from __future__ import annotations

DocPath = tuple[str | int, ...]
Where = dict[str, DocPath]


def path_of(value: object, part: str = "") -> DocPath:
    """The document path of ``value``'s ``part`` (or of the value itself)."""
    at: Where = getattr(value, "at", {})
    if part and part in at:
        return at[part]
    return at.get("", ())
