"""What a word or a command line, once read (provider.gcloud.words), may not be: something bash would
still expand from the machine it runs on (``~``, globs that match files, braces), or not text."""

from __future__ import annotations

import re
from pathlib import Path

from provider.core.record import Record
from provider.gcloud import pathname, secrets

# The shape of a word (see Word): what bash would still expand in it once quotes are gone.
QUOTED = "\x01"
_BRACE = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")

class ShellError(ValueError):
    """The command line cannot be read without running something, or is malformed: at ``column`` (1-based) of the
    text, or of its ``line`` (1-based) once provider.gcloud.script.located said which."""

    def __init__(self, message: str, column: int, line: int | None = None) -> None:
        super().__init__(f"line {line}, column {column}: {message}" if line else f"column {column}: {message}")
        self.message, self.column, self.line = message, column, line


class Word(Record, frozen=False):
    """The word being read: its text, where it began, and its shape.

    The shape has one character per character of the text: the character itself where bash
    would still expand it (unquoted text; a glob character from an unquoted variable's value),
    \\x01 where it is quoted. The checks for ``~``, globs and braces read the shape.
    """

    text: str = ""
    shape: str = ""
    start: int = -1  # -1: not begun (a quoted empty string begins a word)


def shown(text: str) -> str:
    """A word as a message may show it: no secret, no raw byte or control character."""
    raw = secrets.shown(text).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return repr(raw)


def expansion(word: Word, cwd: Path, before_command: bool, braced: bool = False) -> str | None:
    """What bash would still expand in a finished word, said by name, or None. An assignment before
    the command is neither globbed nor brace-expanded (a word written like one after it is); one
    that is an argument of export or declare (``braced``) is brace-expanded, yet not globbed."""
    shape, named = word.shape, shown(word.text)
    assignment = ASSIGNMENT.match(shape)
    tilde = shape.startswith("~") or (assignment is not None and re.search(r"[=:]~", shape[assignment.end() - 1:]))
    if tilde:
        return (f"the word {named} would be expanded by bash: ~ becomes a home folder of this machine; "
                "write the path out (relative to the repository), or quote the ~ if it is meant literally")
    if before_command and not braced:
        return None
    if not before_command and pathname.has_glob(shape) and secrets.MARK not in word.text:  # a secret's word is left out or refused
        try:
            found = pathname.matches(word.text, shape, cwd)
        except pathname.PatternError as exc:
            return f"the word {named} holds {exc}; quote the word, or write the names it stands for out"
        if found:
            some = ", ".join(repr(f) for f in found[:3]) + (", ..." if len(found) > 3 else "")
            return (f"the word {named} holds an unquoted glob (*, ? or [...]) that matches files here ({some}): bash "
                    "would put their names in its place; write the names out, or quote the word if it is meant "
                    "literally")
    if _BRACE.search(shape):
        return (f"the word {named} holds an unquoted brace expansion ({{a,b}} or {{1..3}}): bash would make "
                "several words of it; write them out, or quote the word if it is meant literally")
    return None


def utf8_problem(text: str) -> str | None:
    """Why ``text`` (undecodable bytes as surrogateescape) is not UTF-8, or None."""
    try:
        text.encode("utf-8", "surrogateescape").decode("utf-8")
    except UnicodeEncodeError:
        return "it holds a character that is not one (a lone surrogate)"
    except UnicodeDecodeError as exc:
        return f"byte 0x{exc.object[exc.start]:02x} is not UTF-8"
    return None


def check_text(line: str) -> None:
    if "\x00" in line:
        raise ShellError("a NUL character cannot be part of a command line", line.index("\x00") + 1)
    problem = utf8_problem(line)
    if problem is not None:
        at = next(k for k, c in enumerate(line) if utf8_problem(c) is not None)
        raise ShellError(f"the command line is not valid UTF-8 ({problem}); allowed: UTF-8 text: "
                         "write the value out as text", at + 1)


def checked_words(words: list[str]) -> list[str]:
    """The words, each checked as UTF-8 and made text, or ShellError naming the first that is not."""
    for k, word in enumerate(words):
        problem = utf8_problem(word)
        if problem is not None:
            raise ShellError(f"word {k + 1} ({shown(word)}) is not valid UTF-8 ({problem}): a $'\\x..' escape or a "
                             "variable's value made it so; allowed: UTF-8 text", 1)
    return [w.encode("utf-8", "surrogateescape").decode("utf-8") for w in words]  # bytes that are UTF-8: text
