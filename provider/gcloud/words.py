"""One shell command line -> its words, read the way bash reads them, without running anything.

What is understood: single quotes (literal), double quotes (``$VAR`` and ``\\"`` inside),
backslash escapes, backslash-newline continuations, ``#`` comments at the start of a word,
``$VAR`` and ``${VAR}`` from the given environment (an unquoted value with spaces splits into
several words, as bash does), and a leading ``VAR=value`` assignment (which bash passes to the
command, so later ``$VAR`` on the same line still reads the outer value). What is refused with a
message naming the column: ``$(...)`` and backticks (command substitution would run a program),
an undefined variable (bash would silently drop it), ``${VAR:-default}`` and other expansions,
pipes, redirections, ``;`` and ``&&`` (more than one command), and an unclosed quote.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from provider.core.record import Record

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL = re.compile(r"[0-9@*#?$!-]")
_OPERATORS = {"|": "a pipe", ";": "a second command (;)", "&": "a second command (&)",
              "<": "a redirection", ">": "a redirection"}


class ShellError(ValueError):
    """The command line cannot be read without running something, or is malformed."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(f"column {column}: {message}")
        self.column = column


class _Word(Record, frozen=False):
    """The word being read, and whether it has begun (a quoted empty string is still a word)."""

    text: str = ""
    started: bool = False  # a quoted empty string is still a word


class _Reader:
    def __init__(self, line: str, env: Mapping[str, str]) -> None:
        self.line = line
        self.env = env
        self.i = 0
        self.words: list[str] = []
        self.word = _Word()

    def end_word(self) -> None:
        if self.word.started:
            self.words.append(self.word.text)
        self.word = _Word()

    def add(self, text: str) -> None:
        self.word.text += text
        self.word.started = True

    def fail(self, message: str, at: int | None = None) -> ShellError:
        return ShellError(message, (self.i if at is None else at) + 1)

    def variable(self) -> tuple[str, int]:
        """``$NAME`` / ``${NAME}`` at self.i (the ``$``): its value and the index after it."""
        line, start = self.line, self.i
        nxt = line[start + 1: start + 2]
        if nxt == "(":
            raise self.fail("$(...) is command substitution: trainjobs never runs commands; "
                            "put the value in a variable of the environment instead")
        if nxt == "{":
            close = line.find("}", start + 2)
            inner = line[start + 2: close] if close >= 0 else ""
            if close < 0 or not _NAME.fullmatch(inner):
                raise self.fail("only ${NAME} is understood here (no defaults, substrings or other expansions)")
            name, end = inner, close + 1
        else:
            m = _NAME.match(line, start + 1)
            if m is None:
                if _SPECIAL.match(nxt):
                    raise self.fail(f"${nxt} is a special shell parameter; only $NAME and ${{NAME}} are understood")
                return "$", start + 1  # a lone $ is literal, as in bash
            name, end = m.group(0), m.end()
        if name not in self.env:
            raise self.fail(f"${name} is not defined in the environment (bash would silently drop it); "
                            f"export {name}=... first")
        return self.env[name], end

    def unquoted_variable(self) -> None:
        value, self.i = self.variable()
        parts = value.split()
        if not parts:
            return
        if value[:1].isspace():
            self.end_word()
        for k, part in enumerate(parts):
            if k:
                self.end_word()
            self.add(part)
        if value[-1:].isspace():
            self.end_word()

    def double_quoted(self) -> None:
        line = self.line
        open_at = self.i
        self.i += 1
        self.word.started = True
        while self.i < len(line):
            c = line[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\" and line[self.i + 1: self.i + 2] in ('"', "\\", "$", "`", "\n"):
                if line[self.i + 1] != "\n":
                    self.add(line[self.i + 1])
                self.i += 2
            elif c == "$":
                value, self.i = self.variable()
                self.add(value)
            elif c == "`":
                raise self.fail("backticks are command substitution: trainjobs never runs commands")
            else:
                self.add(c)
                self.i += 1
        raise self.fail('this double quote is never closed', open_at)

    def step(self) -> None:
        line, c = self.line, self.line[self.i]
        if c == "\\":
            nxt = line[self.i + 1: self.i + 2]
            if nxt == "\n":
                self.i += 2  # continuation
            elif nxt:
                self.add(nxt)
                self.i += 2
            else:
                self.i += 1
        elif c == "\n":
            self.end_word()
            self.i += 1
            if self.words and self.line[self.i:].strip() and not self.line[self.i:].lstrip().startswith("#"):
                raise self.fail("a newline without a backslash ends the command, and more follows: bash would "
                                "run that as a second command (end each continued line with \\)", self.i - 1)
        elif c in " \t":
            self.end_word()
            self.i += 1
        elif c == "'":
            close = line.find("'", self.i + 1)
            if close < 0:
                raise self.fail("this single quote is never closed")
            self.add(line[self.i + 1: close])
            self.i = close + 1
        elif c == '"':
            self.double_quoted()
        elif c == "$":
            self.unquoted_variable()
        elif c == "`":
            raise self.fail("backticks are command substitution: trainjobs never runs commands")
        elif c == "#" and not self.word.started:
            end = line.find("\n", self.i)
            self.i = len(line) if end < 0 else end
        elif c in _OPERATORS:
            raise self.fail(f"{_OPERATORS[c]} is not part of one gcloud command; give the gcloud command alone")
        else:
            self.add(c)
            self.i += 1


def split_words(line: str, env: Mapping[str, str]) -> list[str]:
    """The words bash would pass to the command, or ShellError saying why not."""
    reader = _Reader(line.replace("\r\n", "\n"), env)
    while reader.i < len(reader.line):
        reader.step()
    reader.end_word()
    return reader.words
