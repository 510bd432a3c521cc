"""Close-match suggestions ("did you mean 'us-central1'?"): the one home for every message that offers one.

A value is compared with the options as written, then without regard to case, so a schema enum,
a catalog name and a command-line word are all suggested the same way.
"""

from __future__ import annotations

from collections.abc import Iterable


def close_matches(value: str, options: Iterable[object], n: int = 3) -> list[str]:
    """Up to ``n`` options close to ``value`` (difflib's ratio >= 0.6), or the one equal ignoring case."""
    words = [o for o in options if isinstance(o, str)]
    import difflib  # only a wrong value needs it: not imported on every start

    close = difflib.get_close_matches(value, words, n=n, cutoff=0.6)
    if not close:
        lowered = {w.lower(): w for w in words}
        if value.lower() in lowered:
            close = [lowered[value.lower()]]
        else:
            close = [lowered[m] for m in difflib.get_close_matches(value.lower(), list(lowered), n=n, cutoff=0.6)]
    return close


def did_you_mean(value: object, options: Iterable[object]) -> str | None:
    """``did you mean 'a' or 'b'?`` for a string close to some of ``options``, else None."""
    if not isinstance(value, str):
        return None
    close = close_matches(value, options)
    if not close:
        return None
    return "did you mean " + " or ".join(repr(c) for c in close) + "?"
