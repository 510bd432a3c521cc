"""A script's output redirections and ``| tee``, read as bash runs them (provider.gcloud.sequence finds them).

Bash allows a redirection anywhere among a simple command's words (``gcloud ... > out.txt``, ``>&2 echo x``,
``2>&1``), with the digits right before it as the file descriptor it redirects (``2>``; ``x2>`` is the word x2
and ``>``). Where a command prints changes nothing in the job it submits, so each output redirection of stdout
(1) or stderr (2) is read and named in a note: ``>``, ``>|``, ``>>``, ``&>``, ``&>>``, ``>&FILE``, ``N>&1``,
``N>&2``. A pipe into ``tee [-a] FILE...`` after a command is read the same way.

Refused by name: what gives a command its standard input (``<``, ``<<`` here-documents but the one
provider.gcloud.heredoc reads, ``<<<``, ``<&``,
``<>``, and a pipe into gcloud: gcloud may read its input, for a prompt or a flag's value given as ``-``), a
pipe into any other command (it would run as well), ``>&-`` (closes the stream gcloud writes to), another
file descriptor (``3>``, ``>&3``: bash stops, "Bad file descriptor"), and a file written before the training
command that the command reads (``echo ... > config.yaml`` then ``--config=config.yaml``): trainjobs reads the
file as it is, and never runs the script that would write it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from provider.gcloud.word_checks import shown

PIPES = ("|&", "|")
_INPUT = {"<": "an input redirection (<) gives the command a file as its standard input",
          "<<": "a here-document (<<) gives the command the lines that follow as its standard input",
          "<<<": "a here-string (<<<) gives the command a word as its standard input",
          "<&": "an input redirection (<&) gives the command another file descriptor as its standard input",
          "<>": "a redirection (<>) opens a file as the command's standard input"}
_STREAMS = {"": "stdout", "1": "stdout", "2": "stderr"}
_VERBS = ("create", "training", "describe", "stream-logs", "set", "get-value", "get", "list")
_TEE_OPTIONS = ("-a", "--append", "-i", "--ignore-interrupts", "-p")
READ = ("of redirections and pipes, only those of stdout and stderr (> FILE, >> FILE, 2> FILE, &> FILE, 2>&1, >&2) "
           "and | tee [-a] FILE after a command are read: they change where it prints, nothing of the job")


class Refused(ValueError):
    """A redirection or pipe that is not read; ``word``: the index of the command's word to blame."""

    def __init__(self, message: str, word: int = 0) -> None:
        super().__init__(message)
        self.word = word


def output(number: str, op: str, target: str | None) -> tuple[str, str | None]:
    """What the redirection ``number op target`` does, for a note, and the file it writes (None: a stream of the
    command, or /dev/...); Refused."""
    written = f"{number}{op}{'' if op == '>&' else ' '}{target or ''}".strip()
    if op in _INPUT:
        raise Refused(f"{_INPUT[op]}: gcloud may read its standard input (a prompt's answer, a flag's value given as "
                      f"-), which is not read here; {READ}")
    if not target:
        raise Refused(f"{op} without a file after it: bash stops with a syntax error; {READ}")
    stream = _STREAMS.get(number)
    if stream is None or (number and op in ("&>", "&>>")):
        raise Refused(f"{shown(written)} redirects file descriptor {number}, which is not read (bash opens it for the "
                      f"command); {READ}")
    if op == ">&" and (target.isdigit() or target == "-"):
        if target == "-":
            raise Refused(f"{shown(written)} closes the command's {stream}: gcloud fails when it writes to it, before or "
                          f"after it submits the job; {READ}")
        if target not in ("1", "2"):
            raise Refused(f"{shown(written)}: file descriptor {target} is not open in a script: bash stops ('Bad file "
                          f"descriptor') and the command does not run; {READ}")
        return f"{stream} goes to {_STREAMS[target]} ({written})", None
    verb = "is appended to" if op.endswith(">>") else "is written to"
    what = "stdout and stderr" if op in ("&>", "&>>", ">&") else stream
    return f"{what} {verb} {target} ({written})", None if target.startswith("/dev/") else target


def note(words: list[str], what: str, line: int) -> str:
    """The note for a redirection ``what`` of the command ``words`` (of line ``line``)."""
    if not words:
        return f"line {line}: a redirection alone ({what.rsplit(' (', 1)[-1][:-1]}) creates or empties the file only: read"
    name = words[0]
    if words[:1] == ["gcloud"]:  # up to its verb: gcloud ai-platform jobs submit training
        named = [w for w in words if not w.startswith("-")]
        end = next((k for k, w in enumerate(named) if w in _VERBS), 3)
        name = " ".join(named[:end + 1])
    return f"line {line}: {name}'s {what}: where it prints, nothing of the job: read"


def tee(words: list[str], line: int, op: str) -> tuple[str, list[str]]:
    """The note for ``| tee FILE...`` after a command, and the files it writes; Refused for a pipe into anything
    else."""
    if words[0] == "gcloud":
        raise Refused(into_gcloud(None, op))
    if words[0] != "tee":
        raise Refused(f"a pipe ({op}) into {shown(words[0])}: it would run as well, with what the command before prints "
                      f"as its input, and is not read; {READ}")
    bad = next((k for k, w in enumerate(words) if k and w.startswith("-") and w not in _TEE_OPTIONS), None)
    if bad is not None:
        raise Refused(f"tee {shown(words[bad])} is not read: tee {' '.join(_TEE_OPTIONS)} are; {READ}", bad)
    files = [w for w in words[1:] if not w.startswith("-")]
    said = f"also written to {', '.join(files)}" if files else "printed as it is"
    return f"line {line}: {op} tee: the output before it is {said}: where it prints, nothing of the job: read", files


def into_gcloud(name: str | None, op: str) -> str:
    """The refusal of a pipe into gcloud (``name``: the command before it, when known)."""
    before = shown(name) if name else "the command before it"
    return (f"a pipe ({op}) into gcloud: gcloud would read what {before} prints as its standard input (a prompt's "
            f"answer, a flag's value given as -), which is not read here; give the gcloud command alone")


def subshell(words: list[str], op: str) -> str:
    """The refusal of a pipe after a command that sets variables or properties: bash runs it in a subshell; after
    gcloud auth print-access-token (which sets nothing): what it prints goes to a command that would run."""
    if words[:2] == ["gcloud", "auth"] and words[2:3] and words[2].startswith("print-"):
        return (f"a pipe ({op}) after {shown(' '.join(words[:3]))}: the token it prints goes to the command after the "
                "pipe (docker login...), which would run, and trainjobs never runs a command; a login changes nothing "
                f"in the job: leave it out of the script to convert; {READ}")
    return (f"a pipe ({op}) after {shown(' '.join(words[:2]))}: bash runs each side of a pipe in a subshell, so what "
            f"it sets is lost for the commands after it; {READ}")


def read_by(target: str, words: list[str], cwd: Path) -> str | None:
    """The word of the training command ``words`` that names the file ``target`` (a path, relative to ``cwd`` or
    not; only a word, or a part of one between ``=`` and ``,``, with a ``.`` or ``/`` in it), or None."""
    path = os.path.normpath(cwd / target)
    for word in words[1:]:
        for piece in re.split(r"[=,]", word):
            if ("." in piece or "/" in piece) and os.path.normpath(cwd / piece) == path:
                return shown(word)
    return None
