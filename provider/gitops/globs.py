"""A stack's ``trainjobs:specs`` globs, matched against a list of paths instead of a directory.

The stack index (provider.stack.membership) matches them with ``glob.glob(pattern,
root_dir=ROOT, recursive=True)`` on disk; a plan must match them against the files of a git
commit too, so this translates a pattern to a regular expression with the same rules:
``*`` and ``?`` stay within one path segment, ``**`` spans directories, and a wildcard never
matches a name starting with a dot unless the pattern segment starts with one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

_MAGIC = re.compile(r"[*?\[]")
_NOT_HIDDEN = r"(?!\.)"


def _segment(part: str) -> str:
    out = [_NOT_HIDDEN] if _MAGIC.search(part) and not part.startswith(".") else []
    i = 0
    while i < len(part):
        c = part[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1
            j += part[j:j + 1] == "!"
            j += part[j:j + 1] == "]"
            end = part.find("]", j)
            if end < 0:
                out.append(re.escape(c))
            else:
                body = re.sub(r"([\\\[&~|^])", r"\\\1", part[i + 1:end])
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body + "]")
                i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


@cache
def compile_glob(pattern: str) -> re.Pattern[str]:
    """The regular expression of a ``trainjobs:specs`` pattern, over '/'-separated relative paths."""
    while pattern.startswith("./"):
        pattern = pattern[2:]
    parts = [p for p in pattern.split("/") if p != "."]
    regex = ""
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**" and not last:
            regex += rf"(?:{_NOT_HIDDEN}[^/]+/)*"
        elif part == "**":
            regex += rf"{_NOT_HIDDEN}[^/]+(?:/{_NOT_HIDDEN}[^/]+)*"
        else:
            regex += _segment(part) + ("" if last else "/")
    return re.compile(regex + r"\Z")


def matching(patterns: Iterable[str], paths: Iterable[str]) -> list[str]:
    """The paths (files) that any pattern matches, sorted."""
    compiled = [compile_glob(p) for p in patterns]
    return sorted(p for p in paths if any(c.match(p) for c in compiled))
