"""The C extension built from _reader.c (see there and provider/document/native.py)."""

from collections.abc import Callable
from typing import Any

from provider.document.loaded import Position

def read(
    data: bytes,
    plain: Callable[[str], tuple[Any, str | None, object | None]],
    special_words: frozenset[str],
    numeric_start: str,
    key_words: frozenset[str],
    max_depth: int,
    max_nodes: int,
    /,
) -> (
    tuple[
        Any,
        dict[int, Position],
        dict[int, dict[str, Position]],
        dict[int, dict[str, Position]],
        dict[int, list[Position]],
        dict[tuple[int, Any], str],
    ]
    | None
): ...
