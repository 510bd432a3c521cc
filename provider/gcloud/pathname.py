"""bash's pathname expansion of one word: the files here its unquoted ``*``, ``?`` and ``[...]`` match.

bash replaces such a word with the names of the matching files, sorted, or keeps it as written
when none matches (its defaults: no ``nullglob``, no ``failglob``, no ``extglob``, no
``dotglob``: a leading ``.`` is matched only by a ``.``). provider.gcloud.words keeps a word that
matches nothing, as bash does (``--train-files=gs://b/data-*.csv`` reaches gcloud as written), and
refuses one that matches files, by name: the spec must not depend on what lies in the folder
the command happened to run in. Python's ``glob`` matches the way bash does for ``*``, ``?`` and
simple bracket expressions; the brackets it reads differently (``[^...]``, ``[[:alpha:]]``,
``[[=a=]]``, ``[[.a.]]``) are refused.
"""

from __future__ import annotations

import glob
import re
from pathlib import Path

GLOB_CHARS = "*?[]"
_MAGIC = re.compile(r"[*?]|\[.*\]")
_UNSURE = re.compile(r"\[(\^|[^\]]*\[[:=.])")


class PatternError(ValueError):
    """A bracket expression bash reads otherwise than trainjobs can here."""


def has_glob(shape: str) -> bool:
    """Whether a word's shape (unquoted characters as themselves: provider.gcloud.words) holds a glob."""
    return _MAGIC.search(shape) is not None


def matches(text: str, shape: str, cwd: Path) -> list[str]:
    """The names bash would put in place of the word (sorted; empty when none matches)."""
    if _UNSURE.search(shape):
        raise PatternError("a bracket expression with ^ or a [:class:], [=x=] or [.x.] inside")
    pattern = "".join(c if s == c and c in GLOB_CHARS else glob.escape(c) for c, s in zip(text, shape, strict=True))
    return sorted(glob.glob(pattern, root_dir=cwd))
