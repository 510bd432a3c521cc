"""Values not known yet: what the engine sends during ``pulumi preview``.

During a preview an input that depends on another resource's output (a built image's ref, a
service account being created) is unknown. The engine sends it as the string
``pulumi.runtime.rpc.UNKNOWN`` ("04da6b54-80e4-46f7-96ec-b56ff0331ba9"); the SDK's dynamic host
deserialises Check's and Diff's properties with ``keep_unknowns=True``, which turns that string
into a ``pulumi.output.Unknown`` object, at any depth. Create, Read, Update and Delete never see
one (the engine only calls them with known values). The provider asks these two questions of
any value instead of assuming a mapping, a list or a string.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# The engine's sentinel, as in pulumi.runtime.rpc (a test checks that they agree).
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"


def is_unknown(value: Any) -> bool:
    """The value itself is not known yet (the sentinel, or the SDK's Unknown object)."""
    if isinstance(value, str):
        return value == UNKNOWN
    return type(value).__name__ == "Unknown" and type(value).__module__.startswith("pulumi")


_SCALARS = frozenset({int, float, bool, type(None)})


def has_unknown(value: Any) -> bool:
    """The value, or anything inside it, is not known yet."""
    # What the host deserialises is made of exactly these types: each is answered without the ABC
    # checks below (Check walks every input for unknowns once per job: issue 31's profile).
    kind = type(value)
    if kind is str:
        return bool(value == UNKNOWN)
    if kind is dict or kind is list:
        for v in value.values() if kind is dict else value:  # a leaf is answered here, not by a call
            leaf = type(v)
            if leaf is str:
                if v == UNKNOWN:
                    return True
            elif leaf not in _SCALARS and has_unknown(v):
                return True
        return False
    if kind in _SCALARS:
        return False
    if is_unknown(value):
        return True
    if isinstance(value, Mapping):
        return any(has_unknown(v) for v in value.values())
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return any(has_unknown(v) for v in value)
    return False
