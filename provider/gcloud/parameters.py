"""bash's ``${...}`` parameter expansions: which are read without running anything, and what each yields.

Read (bash manual, "Shell Parameter Expansion"; tests/gcloud/test_words_bash.py holds each against
a real bash): ``${NAME}``, and the forms that pick between the variable's value and a word the
user wrote, by whether the variable is set (``-``, ``=``, ``+``, ``?``) or set and not empty (the
same with a colon: ``:-``, ``:=``, ``:+``, ``:?``):

* ``${NAME-word}`` / ``${NAME:-word}``: the value, else the word;
* ``${NAME=word}`` / ``${NAME:=word}``: the same, and NAME is set to the word for the rest of the line;
* ``${NAME+word}`` / ``${NAME:+word}``: the word if the value would be used, else nothing;
* ``${NAME?message}`` / ``${NAME:?message}``: the value, else bash stops with its own message;
* ``${NAME:offset}`` / ``${NAME:offset:length}`` of numbers written out (``${JOB_NAME:0:18}``; a negative offset
  after a space, ``${NAME: -4}``, a negative length counted from the end): that part of the value, as bash cuts it.

The word itself is read as bash reads it (quotes, ``$VAR``, nested ``${...}``) by
provider.gcloud.words, and only when bash would use it. Every other form is refused by name:
``${#NAME}``, ``${NAME#...}``, ``${NAME%...}``, ``${NAME/...}``, a substring whose offset or length is an
arithmetic expression, case and
``@`` transformations would each need their own reimplementation of bash's pattern matching or
arithmetic, and none is written in the training commands trainjobs converts; ``${!NAME}``, arrays
(``${NAME[@]}``) and special parameters (``${1}``, ``${@}``) cannot come from the environment. Of a positional
parameter, the forms that pick a word when it is unset (``REGION=${1:-us-central1}``, ``${2+x}``, ``${1:?usage}``)
are read as the script run with no arguments, named in a note: that word is what its author wrote for that case.
"""

from __future__ import annotations

import enum
import re

from provider.core.record import Record

_FIX = "write the value out, or give it as a variable of the environment"
# Why $1.., $@ and $* alone are not read (provider.gcloud.words), and what to write instead.
ARGUMENTS = ("the script's arguments ($1.., $@, $*) are given when it runs and not known here: write the value in "
             "its place (a default, ${1:-VALUE}, is read as the script run with no arguments)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL = re.compile(r"[0-9@*#?$!-]")
_DIGITS = re.compile(r"[1-9][0-9]*")
_OPS = (":-", ":=", ":+", ":?", "-", "=", "+", "?")
_SUBSTRING = re.compile(r":( -[0-9]+|[0-9]+)(?::(-?[0-9]+))?}")  # ${NAME:offset[:length]}, numbers written out
# What follows ${NAME when it is none of the read forms: the form, by its first character.
_REFUSED = {"[": "an array element (${NAME[...]}): arrays cannot come from the environment",
            "#": "pattern removal (${NAME#...}, ${NAME##...})", "%": "pattern removal (${NAME%...}, ${NAME%%...})",
            "/": "pattern substitution (${NAME/.../...})", ":": "a substring (${NAME:offset:length})",
            "^": "case modification (${NAME^...})", ",": "case modification (${NAME,...})",
            "@": "a transformation (${NAME@...})"}


class Refused(ValueError):
    """A ``${...}`` form that is not read here; the message names it and what is allowed."""


class Use(enum.Enum):
    """What a ``${NAME op word}`` stands for, given whether NAME is set and empty."""

    VALUE = "value"  # the variable's value; the word is not expanded
    WORD = "word"  # the word
    ASSIGN = "assign"  # the word, which also becomes NAME's value
    NOTHING = "nothing"  # nothing (``+`` of an unset variable); the word is not expanded
    FAIL = "fail"  # bash stops: ``?`` of an unset variable


class Head(Record):
    """``${NAME`` and its operator, read: ``op`` is None for ``${NAME}``; ``end`` is the index after it."""

    name: str
    op: str | None
    end: int
    cut: tuple[int, int | None] | None = None  # ${NAME:offset:length}: the offset and length (None: to the end)


def head(line: str, start: int) -> Head:
    """The expansion that begins at ``line[start]`` (its ``${``), or Refused."""
    i = start + 2
    m = _NAME.match(line, i)
    if m is None:
        c = line[i: i + 1]
        if c == "!":
            raise Refused(f"${{!...}} is an indirect expansion (the value of a variable named by another); {_FIX}")
        if c == "#" and line[i + 1: i + 2] not in ("}", ""):
            raise Refused(f"${{#...}} is a length, not read here; {_FIX}")
        if c and c in "123456789" and (made := _positional(line, i)) is not None:
            return made
        if c and _SPECIAL.match(c):
            raise Refused(f"${{{c}...}} is a special shell parameter, never from the environment; {_FIX}")
        if c == "{":  # ${{ env.NAME }}: GitHub Actions replaces it in a run: block before bash reads the line
            end = line.find("}}", i)
            shown = line[i - 2: end + 2] if end > 0 else "${{ ... }}"
            raise Refused(f"{shown} is a GitHub Actions expression, replaced by GitHub before bash runs (to bash: a bad "
                          "substitution); write its value, or $NAME for a variable the workflow sets in the "
                          "environment (env: NAME), or give trainjobs convert the workflow file itself")
        raise Refused("this ${ is not followed by a variable's name (bash: bad substitution)")
    name, j = m.group(0), m.end()
    rest = line[j: j + 2]
    if rest[:1] == "}":
        return Head(name, None, j + 1)
    for op in _OPS:
        if rest.startswith(op):
            return Head(name, op, j + len(op))
    if (cut := _SUBSTRING.match(line, j)) is not None:
        return Head(name, None, cut.end(), (int(cut.group(1)), int(cut.group(2)) if cut.group(2) else None))
    if not rest:
        raise Refused(f"this ${{{name} is never closed (no }})")
    form = _REFUSED.get(rest[0], f"{rest[0]!r} after the name (bash: bad substitution)")
    raise Refused(f"${{{name}{rest[0]}...}} is {form}, not read here; {_FIX}")


def sliced(head: Head, value: str) -> str:
    """The part of ``value`` that ``${NAME:offset:length}`` (head.cut) stands for, as bash cuts it (an offset past the
    end: nothing); Refused where bash stops ('substring expression < 0')."""
    if head.cut is None:
        return value
    offset, length = head.cut
    start = offset if offset >= 0 else len(value) + offset
    if start < 0 or start > len(value):
        return ""
    end = len(value) if length is None else start + length if length >= 0 else len(value) + length
    if end < start:
        raise Refused(f"bash would stop here with '{length}: substring expression < 0' (${head.name} has "
                      f"{len(value)} characters); write the value out")
    return value[start:end]


def _positional(line: str, i: int) -> Head | None:
    """``${N-word}``, ``${N:-word}``, ``${N+word}``, ``${N:+word}``, ``${N?..}``, ``${N:?..}`` of a positional
    parameter: read as the script run with no arguments (N unset), its word what the script's author wrote for that
    case; None for any other form (``${1}`` alone: its value is the caller's, refused by the caller)."""
    m = _DIGITS.match(line, i)
    assert m is not None
    j = m.end()
    for op in (":-", ":+", ":?", "-", "+", "?"):
        if line.startswith(op, j):
            return Head(m.group(0), op, j + len(op))
    if line.startswith(("=", ":="), j):
        raise Refused(f"${{{m.group(0)}=...}} cannot assign a positional parameter (bash: cannot assign in this way); "
                      f"{_FIX}")
    return None


def unset(name: str, op: str, line: int) -> str:
    """The note for ``${N<op>word}`` of a positional parameter, read as unset."""
    gives = "the word after it" if op.endswith("-") else "nothing" if op.endswith("+") else "bash's stop"
    return (f"line {line}: ${{{name}{op}...}} is read as the script run with no arguments (${name} unset), so it gives "
            f"{gives}; run with arguments, the script may submit another job: write the values in the script to "
            "convert that one")


def use(op: str, value: str | None) -> Use:
    """What ``${NAME<op>word}`` stands for when NAME's value is ``value`` (None: not set)."""
    missing = value is None or (op.startswith(":") and value == "")
    kind = op[-1]
    if kind == "+":
        return Use.NOTHING if missing else Use.WORD
    if not missing:
        return Use.VALUE
    return {"-": Use.WORD, "=": Use.ASSIGN, "?": Use.FAIL}[kind]


def failure(name: str, op: str, value: str | None, message: str) -> str:
    """bash's own message for ``${NAME?message}`` / ``${NAME:?message}`` of a missing variable, and the fix."""
    said = message or ("parameter null or not set" if op == ":?" else "parameter not set")
    state = "not set" if value is None else "empty"
    if name.isdigit():
        return (f"bash would stop here with '{name}: {said}' when the script is run with no arguments, as it is read "
                f"here; write the value of ${name} in the script")
    return (f"bash would stop here with '{name}: {said}' (${name} is {state} in the environment); "
            f"export {name}=... first")
