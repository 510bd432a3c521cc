"""The base images a Dockerfile builds on: each ``FROM`` as Docker reads it, with its line.

A spec that builds its image (``container.build``) runs what its Dockerfile makes, and that image
is only as served as its base: a ``FROM`` of a Vertex AI prebuilt training container is judged
as a named image is (rules/dockerfile.py). This module reads the Dockerfile as BuildKit does,
far enough to know each base image:

* parser directives at the top (``# escape=`` changes the line-continuation character);
* comments and blank lines, also inside a continued instruction; instructions in any case;
* here-documents (``RUN <<EOF`` ... ``EOF``), whose lines are never instructions;
* ``FROM [--platform=...] IMAGE [AS NAME]``: flags are skipped, a stage name is remembered, and
  a ``FROM`` of an earlier stage (or ``scratch``) names no image;
* ``ARG`` before the first ``FROM`` (the only ones a ``FROM`` sees): ``$NAME``, ``${NAME}``,
  ``${NAME:-default}`` and ``${NAME:+word}`` are replaced by their defaults (trainjobs passes no
  build arguments, so the defaults are what is built);
* the stages the built image needs: the last stage, the stages it builds ``FROM``, and those its
  ``COPY --from=`` or ``RUN --mount=...,from=`` read, and so on; a stage nothing needs is not built
  by BuildKit, so its base is not judged.

What is not judged (``unresolved`` says why): a base whose ``ARG`` has no default (Docker would
substitute an empty string, so the build fails on its own), or one written with a substitution
form Docker's FROM does not expand here. ``COPY --from=IMAGE`` of an image (not a stage) copies
files only and is not judged.
"""

from __future__ import annotations

import re
import shlex

from provider.core.record import Record, replace

_DIRECTIVE = re.compile(r"^#\s*([A-Za-z]+)\s*=\s*(\S+)\s*$")
_BRACED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?::([-+]))?(.*)$", re.S)
_HEREDOC = re.compile(r"<<(-?)\s*([\"']?)([A-Za-z_][A-Za-z0-9_]*)\2")
_FROM_FLAG = re.compile(r"(?:^|[\s,])from=([^\s,]+)", re.IGNORECASE)


class BaseImage(Record):
    """One ``FROM`` of a stage the built image needs."""

    written: str  # the image as the Dockerfile writes it (``${BASE}``)
    image: str | None  # with the global ARG defaults substituted; None where it cannot be
    line: int  # 1-based line of the FROM instruction
    unresolved: str | None = None  # why ``image`` is None


class _Stage(Record):
    """One FROM and what its stage reads from other stages."""

    name: str | None
    base: str  # the image or stage it builds FROM, substituted
    written: str
    line: int
    needs: tuple[str, ...] = ()  # stages (names or indexes) it copies or mounts from
    unresolved: str | None = None


def _instructions(text: str) -> list[tuple[int, str]]:
    """(first line, instruction with its continuations joined) for each instruction of the file."""
    lines = text.splitlines()
    escape = "\\"
    start = 0
    while start < len(lines):  # parser directives: only at the very top, before anything else
        m = _DIRECTIVE.match(lines[start].strip())
        if not m:
            break
        if m.group(1).lower() == "escape" and m.group(2) in ("\\", "`"):
            escape = m.group(2)
        start += 1
    out: list[tuple[int, str]] = []
    i = start
    while i < len(lines):
        stripped = lines[i].strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        first, parts = i + 1, []
        while True:
            body = lines[i].rstrip()
            i += 1
            if body.endswith(escape):
                parts.append(body[:-1])
                while i < len(lines) and (not lines[i].strip() or lines[i].lstrip().startswith("#")):
                    i += 1  # comments and blank lines inside a continued instruction are dropped
                if i < len(lines):
                    continue
            else:
                parts.append(body)
            break
        instruction = " ".join(p.strip() for p in parts)
        for dash, _, word in _HEREDOC.findall(instruction):  # the here-documents' bodies follow in order
            while i < len(lines) and (lines[i].lstrip("\t") if dash else lines[i]) != word:
                i += 1
            i += 1
        out.append((first, instruction))
    return out


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text, posix=True)
    except ValueError:  # an unclosed quote: Docker's own error; read the words as they stand
        return text.split()


def _substitute(written: str, args: dict[str, str | None]) -> tuple[str | None, str | None]:
    """``written`` with the global ARG defaults in place, or None and why not."""
    missing: list[str] = []
    image = _expand(written, args, missing)
    if missing and missing[0].startswith("{"):
        return None, f"${missing[0]} is a substitution trainjobs does not read (only $NAME, ${{NAME:-word}}, ${{NAME:+word}})"
    if missing:
        return None, (f"${missing[0]} has no default (an ARG with a value before the first FROM), and trainjobs "
                      "passes no build arguments: Docker would build FROM an empty name")
    return image, None


def _expand(text: str, args: dict[str, str | None], missing: list[str]) -> str:
    """Docker's word expansion: ``$NAME``, ``${NAME}``, ``${NAME:-word}``, ``${NAME:+word}`` (the word
    expanded in turn, braces nested), ``\\$`` a literal dollar."""
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and text[i + 1:i + 2] == "$":
            out.append("$")
            i += 2
            continue
        if ch != "$":
            out.append(ch)
            i += 1
            continue
        if text[i + 1:i + 2] == "{":
            depth, j = 1, i + 2
            while j < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            inner, i = text[i + 2:j - 1], j
            braced = _BRACED.match(inner)
            if braced is None or (braced.group(2) is None and braced.group(3)):
                missing.append(f"{{{inner}}}")  # a form FROM is not read for here (${X#p}, ${X/a/b})
                continue
            name, op, word = braced.group(1), braced.group(2), braced.group(3)
        else:
            m = re.match(r"[A-Za-z_][A-Za-z0-9_]*", text[i + 1:])
            if m is None:
                out.append("$")
                i += 1
                continue
            name, op, word, i = m.group(0), None, "", i + 1 + m.end()
        current = args.get(name)
        if op == "-":  # the word where NAME is unset or empty
            out.append(current or _expand(word, args, missing))
        elif op == "+":  # the word where NAME is set and not empty
            out.append(_expand(word, args, missing) if current else "")
        elif current:
            out.append(current)
        else:
            missing.append(name)
    return "".join(out)


def _global_args(words: list[str], args: dict[str, str | None]) -> None:
    for word in words:
        name, eq, default = word.partition("=")
        args[name] = _expand(default, args, []) if eq else args.get(name)  # a default may name an earlier ARG


def _needs(words: list[str]) -> tuple[str, ...]:
    """The stages a COPY or RUN reads (``--from=NAME``, ``--mount=...,from=NAME``)."""
    out = []
    for word in words:
        if word.lower().startswith("--from="):
            out.append(word.split("=", 1)[1])
        elif word.lower().startswith("--mount="):
            out += _FROM_FLAG.findall(word.split("=", 1)[1])
    return tuple(out)


def _stages(text: str) -> list[_Stage]:
    args: dict[str, str | None] = {}
    stages: list[_Stage] = []
    for line, instruction in _instructions(text):
        keyword, _, rest = instruction.partition(" ")
        keyword = keyword.upper()
        words = _split(rest)
        if keyword == "ARG" and not stages:
            _global_args(words, args)
        elif keyword == "FROM":
            plain = [w for w in words if not w.startswith("--")]
            if not plain:
                continue
            image, why = _substitute(plain[0], args)
            name = plain[2].lower() if len(plain) >= 3 and plain[1].lower() == "as" else None
            stages.append(_Stage(name=name, base=image or "", written=plain[0], line=line, unresolved=why))
        elif keyword in ("COPY", "RUN", "ADD") and stages:
            needs = _needs([w for w in words if w.startswith("--")])
            if needs:
                stages[-1] = replace(stages[-1], needs=stages[-1].needs + needs)
    return stages


def _stage_index(ref: str, stages: list[_Stage], before: int) -> int | None:
    """The earlier stage ``ref`` names (its AS name, or its number), else None: an image."""
    low = ref.lower()
    for j in range(before - 1, -1, -1):
        if stages[j].name == low:
            return j
    if low.isdigit() and int(low) < before:
        return int(low)
    return None


def base_images(text: str) -> list[BaseImage]:
    """The base image of each stage the built image (the last stage) needs, in file order."""
    stages = _stages(text)
    if not stages:
        return []
    needed, todo = set(), [len(stages) - 1]
    while todo:
        k = todo.pop()
        if k in needed:
            continue
        needed.add(k)
        for ref in (stages[k].base, *stages[k].needs):
            j = _stage_index(ref, stages, k)
            if j is not None:
                todo.append(j)
    out = []
    for k in sorted(needed):
        stage = stages[k]
        if stage.unresolved is None and (stage.base.lower() == "scratch" or _stage_index(stage.base, stages, k) is not None):
            continue  # a stage or scratch: no image is pulled
        out.append(BaseImage(written=stage.written, image=None if stage.unresolved else stage.base,
                             line=stage.line, unresolved=stage.unresolved))
    return out
