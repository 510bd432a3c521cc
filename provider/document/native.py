"""The YAML reader's common path in C (``provider/document/_reader.c``), where it is built.

``setup.py`` builds the extension wherever a C compiler and libyaml's headers are (the Debian
package libyaml-dev; ``scripts/system-deps.sh`` installs it), and an install goes on without it
where they are not. ``read`` returns None for a document the C path does not take (see
_reader.c) and everywhere the extension is missing: ``yaml_loader`` then reads it in Python,
with the same values, positions and messages (``tests/test_native_reader.py`` holds them equal).
"""

from __future__ import annotations

from provider.document.loaded import MAX_DEPTH, MAX_NODES, LoadedDocument
from provider.document.scalars import KEY_WORDS, NUMERIC_START, SPECIAL_WORDS, plain

try:
    from provider.document import _reader
except ImportError:  # not built here: the Python reader reads everything
    _reader = None  # type: ignore[assignment]

_NUMERIC_START = "".join(sorted(NUMERIC_START))


def built() -> bool:
    """Whether this install has the C path."""
    return _reader is not None


def read(text: str) -> LoadedDocument | None:
    """The document in ``text`` read in C, or None: not built here, or a document it leaves to Python."""
    if _reader is None:
        return None
    try:
        data = text.encode()
    except UnicodeEncodeError:  # a lone surrogate: the Python reader says so
        return None
    found = _reader.read(data, plain, SPECIAL_WORDS, _NUMERIC_START, KEY_WORDS, MAX_DEPTH, MAX_NODES)
    if found is None:
        return None
    root, starts, key_positions, value_positions, item_positions, raw_plain = found
    return LoadedDocument(data=root, starts=starts, key_positions=key_positions, value_positions=value_positions,
                          item_positions=item_positions, raw_plain=raw_plain)
