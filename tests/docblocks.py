"""The fenced blocks of README.md and docs/*.md, each with what the README test does with it.

A block's kind comes from a marker on the line just above its fence, ``<!-- readme: KIND ARGS -->``,
or, without one, from its language: ``bash``, ``sh`` and ``python`` blocks run, ``console`` blocks
run each ``$ `` line and compare what it prints with the lines shown. Every other block must say
what it is, so that no block can drift without the test noticing:

``run``                 run it (the default for bash, sh and python)
``background PORT``     start it in the background (a server); later blocks of the same page use it;
                        PORT, the port the page names, is replaced by a free one so a busy port
                        cannot fail the test; the server is stopped when the page is done
``spec PATH``           a spec: written to PATH in the clone and validated there
``file PATH``           a file later blocks of the page read (a config, a job.yaml): written to PATH
``stack-config``        a fragment of a stack file's ``config:``: put in a copy of
                        stacks/Pulumi.local.yaml and checked with ``trainjobs validate``
``tree``                a folder tree: every file and folder it names exists (``tree_paths``)
``other-config TEST``   a snippet of another tool's config (pre-commit's): TEST, the test that runs that
                        tool with it, must exist
``output``              what a command prints, or the shape of a document: not a command
``needs WHAT``          needs what this machine lacks: ``pulumi`` (the Pulumi CLI), ``gcp`` (a Google
                        Cloud account), ``docker`` (a container engine); the block must name it
``suite``               the test suite itself (CI runs it; the README test cannot run itself)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_FENCE = re.compile(r"^(?P<fence>```+|~~~+)(?P<lang>[\w+-]*)\s*$")
_MARKER = re.compile(r"^<!--\s*readme:\s*(?P<kind>[a-z-]+)(?P<args>[^>]*?)\s*-->\s*$")
KINDS = ("run", "background", "spec", "file", "stack-config", "tree", "other-config", "output", "needs", "suite", "console")
NEEDS = {"pulumi": ("pulumi",), "gcp": ("gcloud", "gs://", "--stack vision-dev", "project="),
         "docker": ("docker", "pulumi up")}
_DEFAULT = {"bash": "run", "sh": "run", "shell": "run", "python": "run", "console": "console"}


@dataclass(frozen=True)
class Block:
    path: Path  # relative to the repository root
    line: int  # of the opening fence, 1-based
    lang: str
    kind: str
    args: str
    text: str

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


class BlockError(Exception):
    """A block with no kind, an unknown kind, or a marker that is not followed by a fence."""


def blocks(root: Path, path: Path) -> list[Block]:
    lines = (root / path).read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    marker: tuple[str, str, int] | None = None
    i = 0
    while i < len(lines):
        m = _MARKER.match(lines[i])
        if m:
            marker = (m["kind"], m["args"].strip(), i + 1)
            i += 1
            continue
        f = _FENCE.match(lines[i])
        if not f:
            if marker is not None and lines[i].strip():
                raise BlockError(f"{path}:{marker[2]}: a readme marker must be just above a fenced block")
            i += 1
            continue
        start, fence = i, f["fence"]
        i += 1
        body: list[str] = []
        while i < len(lines) and lines[i].strip() != fence:
            body.append(lines[i])
            i += 1
        i += 1  # the closing fence
        lang = f["lang"].lower()
        kind, args = (marker[0], marker[1]) if marker else (_DEFAULT.get(lang, ""), "")
        marker = None
        where = f"{path}:{start + 1}"
        if not kind:
            raise BlockError(f"{where}: a ```{lang} block with no readme marker: say what it is "
                             f"(<!-- readme: KIND -->, KIND one of {', '.join(KINDS)}; tests/docblocks.py)")
        if kind not in KINDS:
            raise BlockError(f"{where}: unknown readme kind {kind!r}; allowed: {', '.join(KINDS)}")
        if kind == "needs":
            words = NEEDS.get(args)
            if words is None:
                raise BlockError(f"{where}: 'needs {args}': allowed: {', '.join(NEEDS)}")
            if not any(w in "\n".join(body) for w in words):
                raise BlockError(f"{where}: marked as needing {args}, but the block names none of {words}")
        if kind == "other-config" and not (root / args).is_file():
            raise BlockError(f"{where}: 'other-config' names {args!r}, which is not a test file here")
        if kind in ("spec", "file") and not args:
            raise BlockError(f"{where}: '{kind}' needs the path to write the block to")
        found.append(Block(path, start + 1, lang, kind, args, "\n".join(body) + "\n"))
    return found


def pages(root: Path) -> list[Path]:
    """README.md first (its set-up comes first), then docs/ in name order."""
    return [Path("README.md"), *sorted(p.relative_to(root) for p in (root / "docs").glob("*.md"))]


def tree_paths(block: Block) -> list[str]:
    """The paths a ``tree`` block names: a name at the start of a line, indented two spaces a level
    under its folder (a name ending in ``/``); ``a, b`` names two; deeper lines continue a description."""
    found: list[str] = []
    folders: list[str] = []
    for line in block.text.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        if not line.strip() or indent % 2 or indent > 2 * len(folders) or indent >= 16:
            continue
        head = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        del folders[indent // 2:]
        for name in head.split(", "):
            found.append("".join(folders) + name)
        if head.endswith("/"):
            folders.append(head)
    return found
