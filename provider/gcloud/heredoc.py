"""Here-documents: ``cat > config.yaml <<EOF ... EOF`` before the training command, the file its ``--config`` reads.

Scripts often write the job's configuration from the script itself, with the script's variables in it, then submit
it: ``cat > "$CFG" <<EOF`` (or ``cat <<EOF > "$CFG"``), the lines up to ``EOF``, then ``gcloud ... --config="$CFG"``.
Nothing needs to run to know what that file holds: bash writes the lines as they are, with ``$VAR``, ``${...}`` and
``$(...)`` expanded (and ``\\$``, ``\\```, ``\\\\``, ``\\``-newline read) when no part of the delimiter word is
quoted, and as they are when one is (``<<'EOF'``, ``<<"EOF"``, ``<<\\EOF``); ``<<-`` strips the lines' leading tabs
(bash manual, "Here Documents"). So such a file is read from the script (the expansions as provider.gcloud.words
reads any other: from the environment and the script's assignments; a variable whose name looks secret is refused,
a committed spec would hold it), at the script's own lines, for the ``--config`` that names it.

The training command's own here-document is its standard input, which gcloud reads as the file of ``--config``
where that names it: ``--config=-`` of ``gcloud ai custom-jobs create`` (its loader, console_io.ReadFromFileOrStdin,
reads - as standard input) and ``--config=/dev/stdin`` of any (hp-tuning-jobs and ai-platform load a path, and
/dev/stdin is one): read as that file (stdin_config).

Any other here-document (into gcloud otherwise, python, ``cat >> FILE``, a file the command reads otherwise than by
``--config``) is still refused by name (provider.gcloud.redirection).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from provider.core.record import Record
from provider.gcloud import redirection

_ENDS = " \t\n;&|<>()"
ONLY = ("of here-documents, only cat > FILE <<EOF (or cat <<EOF > FILE) before the training command is read, "
        "for the file its --config names, and the training command's own, for its --config /dev/stdin (or --config - "
        "of gcloud ai custom-jobs create)")


class Refused(ValueError):
    """A here-document that is not read, and why."""


class Misread(ValueError):
    """The training command ``word`` (its index) reads what a here-document or $(mktemp) made otherwise than by
    --config."""

    def __init__(self, message: str, word: int = 0) -> None:
        super().__init__(message)
        self.word = word


class Here(Record):
    """A file a here-document writes: its path (absolute), its name as written, its text as bash writes it, and the
    script's line of the text's first line."""

    path: str
    target: str
    text: str
    line: int
    shown: str = ""  # how messages name it: the script (pad: its lines before the text), or the file as written
    pad: int = 0
    cell: int | None = None  # a notebook's cell the text was written in (then shown: the notebook, pad: the cell's)
    source: str = ""  # the file envsubst (or the command's < FILE) read the text from, as written: messages name it

    def raw(self) -> bytes:
        """The text as the file holds it, after ``pad`` empty lines: a problem's line is the script's."""
        return ("\n" * self.pad + self.text).encode()


def delimiter(line: str, i: int) -> tuple[str, bool, int]:
    """The delimiter word at ``line[i]`` (spaces before it skipped): its text as bash compares it (quotes
    removed), whether any part of it was quoted (then the lines are written as they are), and the index after it."""
    while i < len(line) and line[i] in " \t":
        i += 1
    out: list[str] = []
    quoted = False
    while i < len(line) and line[i] not in _ENDS:
        c = line[i]
        if c in "'\"":
            close = line.find(c, i + 1)
            if close < 0:
                raise Refused("the here-document's delimiter word has a quote that is never closed")
            out.append(line[i + 1: close])
            quoted, i = True, close + 1
        elif c == "\\" and line[i + 1: i + 2] not in ("", "\n"):
            out.append(line[i + 1])
            quoted, i = True, i + 2
        elif c in "$`":
            raise Refused("a here-document's delimiter word with $ or ` is not read: write it plainly (<<EOF)")
        else:
            out.append(c)
            i += 1
    if not out:
        raise Refused("<< without a delimiter word after it: bash stops with a syntax error")
    return "".join(out), quoted, i


def body(line: str, after: int, word: str, strip: bool) -> tuple[int, int, str]:
    """Where the here-document's lines begin (after the end of the line of ``<<``), where its delimiter line ends,
    and its text (leading tabs stripped for ``<<-``); Refused when no line ends it."""
    nl = line.find("\n", after)
    if nl < 0:
        raise Refused(f"the here-document's lines (up to a line {word}) never come: the script ends on the line of <<")
    if line[nl - 1] == "\\":
        raise Refused("the line of << goes on after a \\-newline: end the command on the line of << (bash reads the "
                      "here-document's lines only after the whole command)")
    start = pos = nl + 1
    lines: list[str] = []
    while pos < len(line):
        end = line.find("\n", pos)
        end = len(line) if end < 0 else end
        text = line[pos:end].lstrip("\t") if strip else line[pos:end]
        if text == word:
            return start, end, "".join(lines)
        lines.append(text + "\n")
        pos = end + 1
    raise Refused(f"the here-document is never ended by a line {word} (bash writes the rest of the script into it, "
                  "with a warning): end it with a line that is only the delimiter")


def blanked(line: str, start: int, end: int) -> str:
    """``line`` with its characters from ``start`` to ``end`` spaces (newlines kept): the here-document's lines,
    which bash does not read as commands, read as blank lines, every index of the text where it was."""
    return line[:start] + re.sub(r"[^\n]", " ", line[start:end]) + line[end:]


def by_config(target: str, words: list[str], cwd: Path) -> bool:
    """Whether the training command ``words`` names ``target`` (read from ``cwd``) with --config, and with nothing
    else."""
    path = os.path.normpath(cwd / target)
    named = [k for k, word in enumerate(words) if os.path.normpath(cwd / word.removeprefix("--config=")) == path]
    return bool(named) and all(words[k].startswith("--config=") or words[k - 1] == "--config" for k in named)


def check(heres: tuple[Here, ...], words: list[str], cwd: Path, temp: str) -> None:
    """Misread where the training command ``words`` reads a here-document's file otherwise than by --config, or
    where a name ``$(mktemp)`` made (holding ``temp``, provider.gcloud.substitution) reaches the job."""
    for k, word in enumerate(words):
        if temp in word and not any(word in (f"--config={h.target}", h.target) and (
                word.startswith("--config=") or words[k - 1] == "--config") for h in heres):
            raise Misread(f"{word!r}: the name $(mktemp) makes is known only when the script runs, and here it "
                          "reaches the job: write the name out (a here-document may write the file, for --config)", k)
    for here in heres:
        if temp in here.text:
            raise Misread(f"the here-document into {here.target} holds the name $(mktemp) makes, known only when the "
                          "script runs: write the name out")
        if redirection.read_by(here.target, words, cwd) and not by_config(here.target, words, cwd):
            raise Misread(f"{here.target} is written by a here-document and read by the training command otherwise "
                          f"than by --config; {ONLY}")


def _configs(words: list[str]) -> list[str]:
    """The values of the --config flags of the command ``words``."""
    return [w.removeprefix("--config=") for w in words if w.startswith("--config=")] + [
        words[k + 1] for k, w in enumerate(words[:-1]) if w == "--config"]


def stdin_config(words: list[str]) -> str | None:
    """The ``--config`` value of the training command ``words`` that reads its standard input (``-`` for custom-jobs
    create, ``/dev/stdin`` for any), or None."""
    named = [w for w in words[1:] if not w.startswith("-") and w not in ("alpha", "beta")][:3]
    values = _configs(words)
    if len(values) != 1:
        return None
    if values[0] == "/dev/stdin" or (values[0] == "-" and named == ["ai", "custom-jobs", "create"]):
        return values[0]
    return None


def stdin_note(here: Here, line: int) -> str:
    """The note for the training command's here-document, read as the file its --config names."""
    last = here.line + here.text.count("\n") - 1
    return (f"line {line}: the here-document of lines {here.line}-{last} is the training command's standard input, "
            f"which its --config {here.target} reads: read as bash writes it")


def find(heres: tuple[Here, ...], where: Path) -> Here | None:
    """The file a here-document writes at ``where``: the last one written there."""
    return next((h for h in reversed(heres) if h.path == os.path.normpath(where)), None)


def refused(named: list[str], outputs: list[str]) -> str:
    """Why the here-document of the command ``named`` (its output redirections ``outputs``) is not read."""
    if named[:1] == ["cat"]:
        said = "; ".join(outputs) or "stdout is printed"
        return (f"cat with a here-document: {said}, where only one file written whole (cat > FILE) before the "
                "training command is read")
    if named[:1] == ["gcloud"] and _configs(named) == ["-"]:
        return ("--config - is read as standard input by gcloud ai custom-jobs create only: this command's loader "
                "opens a file named - (gcloud stops: it does not exist); write --config=/dev/stdin")
    if named[:1] == ["gcloud"]:
        return ("a here-document (<<) gives gcloud the lines that follow as its standard input: gcloud may read it (a "
                "prompt's answer, a flag's value given as -), which is not read here")
    who = f"{named[0]!r}" if named else "no command"
    return f"a here-document (<<) gives {who} the lines that follow as its standard input: {who} would run, and " \
           "trainjobs never runs a command"


def note(here: Here, line: int) -> str:
    """The note for a here-document read as the file it writes."""
    last = here.line + here.text.count("\n") - 1
    return (f"line {line}: cat writes the here-document of lines {here.line}-{last} into {here.target}: read as bash "
            "writes it, for the --config that names it")
