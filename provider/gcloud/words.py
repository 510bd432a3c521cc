"""One shell command line -> its words, read the way bash reads them, without running anything.

What is read as bash 5 reads it (in a UTF-8 locale; tests/gcloud/test_words_bash.py holds each
against a real bash): single quotes (literal), double quotes (``$VAR`` and ``\\"`` inside),
``$'...'`` (ANSI-C escapes: provider.gcloud.ansi_c), ``$"..."`` (as double quotes: there is no
message catalogue), backslash escapes, backslash-newline continuations, ``#`` comments at the start
of a word, ``$VAR`` and ``${VAR}`` from the given environment (an unquoted value with spaces, tabs
or newlines splits into several words, as bash does), and a leading ``VAR=value`` assignment
(which bash passes to the command, so later ``$VAR`` on the same line still reads the outer
value). A variable whose name looks secret stands as a marker, never its value
(provider.gcloud.secrets).

What is refused with a message naming the column, and what to write instead:

* what would run something or more than one command: ``$(...)``, ``$((...))``, ``$[...]`` and
  backticks, pipes, redirections, ``;``, ``&&``, ``( ... )``, and a newline without a backslash;
* what bash would expand from the machine it runs on, which the spec must not depend on: a ``~``
  that bash turns into a home folder (at the start of a word, or after the ``=`` or a ``:`` of a
  ``NAME=...`` word), an unquoted glob (``*``, ``?``, ``[...]``) that matches files in the folder
  the command runs in (bash puts their names in its place; one that matches nothing stays as
  written, as bash keeps it: provider.gcloud.pathname), an unquoted brace expansion (``{a,b}``,
  ``{1..3}``: several words);
* what bash would read in a way that cannot be known here: an undefined variable (bash silently
  drops it), ``${VAR:-default}`` and other expansions, special parameters (``$1``, ``$@``...);
* what is not text: an unclosed quote, a NUL, and invalid UTF-8 anywhere in the line or in a word
  (a ``$'\\xff'`` byte, a variable's value).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from provider.core.record import Record, field
from provider.gcloud import ansi_c, pathname, secrets

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL = re.compile(r"[0-9@*#?$!-]")
_OPERATORS = {"|": "a pipe", ";": "a second command (;)", "&": "a second command (&)",
              "<": "a redirection", ">": "a redirection", "(": "a subshell or group ( ... )",
              ")": "a subshell or group ( ... )"}
_IFS = re.compile(r"[ \t\n]+")  # bash's default IFS (bash never takes IFS from the environment)
# The shape of a word (see _Word): what bash would still expand in it once quotes are gone.
_QUOTED = "\x01"
_BRACE = re.compile(r"\{[^{}]*(,|\.\.)[^{}]*\}")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


class ShellError(ValueError):
    """The command line cannot be read without running something, or is malformed."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(f"column {column}: {message}")
        self.column = column


class Line(Record):
    """A command line, read: its words, and the environment variables it took (secret ones by name only)."""

    words: list[str]
    plain: dict[str, str] = field(default_factory=dict)  # each variable read and its value
    secret: list[str] = field(default_factory=list)  # variables whose names look secret: only markers stand for them


class _Word(Record, frozen=False):
    """The word being read: its text, where it began, and its shape.

    The shape has one character per character of the text: the character itself where bash
    would still expand it (unquoted text; a glob character from an unquoted variable's value),
    \\x01 where it is quoted. The checks for ``~``, globs and braces read the shape.
    """

    text: str = ""
    shape: str = ""
    start: int = -1  # -1: not begun (a quoted empty string begins a word)


def _shown(text: str) -> str:
    """A word as a message may show it: no secret, no raw byte or control character."""
    raw = secrets.shown(text).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return repr(raw)


def _expansion(word: _Word, cwd: Path) -> str | None:
    """What bash would still expand in a finished word, said by name, or None."""
    shape, shown = word.shape, _shown(word.text)
    assignment = _ASSIGNMENT.match(shape)
    tilde = shape.startswith("~") or (assignment is not None and re.search(r"[=:]~", shape[assignment.end() - 1:]))
    if tilde:
        return (f"the word {shown} would be expanded by bash: ~ becomes a home folder of this machine; "
                "write the path out (relative to the repository), or quote the ~ if it is meant literally")
    if pathname.has_glob(shape) and secrets.MARK not in word.text:  # a secret's word is left out or refused
        try:
            found = pathname.matches(word.text, shape, cwd)
        except pathname.PatternError as exc:
            return f"the word {shown} holds {exc}; quote the word, or write the names it stands for out"
        if found:
            some = ", ".join(repr(f) for f in found[:3]) + (", ..." if len(found) > 3 else "")
            return (f"the word {shown} holds an unquoted glob (*, ? or [...]) that matches files here ({some}): bash "
                    "would put their names in its place; write the names out, or quote the word if it is meant "
                    "literally")
    if _BRACE.search(shape):
        return (f"the word {shown} holds an unquoted brace expansion ({{a,b}} or {{1..3}}): bash would make "
                "several words of it; write them out, or quote the word if it is meant literally")
    return None


class _Reader:
    def __init__(self, line: str, env: Mapping[str, str], cwd: Path) -> None:
        self.line = line
        self.env = env
        self.cwd = cwd
        self.i = 0
        self.words: list[str] = []
        self.word = _Word()
        self.plain: dict[str, str] = {}
        self.secret: list[str] = []

    def end_word(self) -> None:
        if self.word.start >= 0:
            problem = _expansion(self.word, self.cwd)
            if problem is not None:
                raise self.fail(problem, self.word.start)
            self.words.append(self.word.text)
        self.word = _Word()

    def add(self, text: str, quoted: bool, from_variable: bool = False) -> None:
        if self.word.start < 0:
            self.word.start = self.i
        self.word.text += text
        if quoted:
            self.word.shape += _QUOTED * len(text)
        elif from_variable:  # a variable's value is globbed, never tilde- or brace-expanded
            self.word.shape += "".join(c if c in "*?[]" else _QUOTED for c in text)
        else:
            self.word.shape += text

    def begin(self) -> None:
        """A quote begins a word even when it adds nothing (``''`` is an empty word)."""
        if self.word.start < 0:
            self.word.start = self.i

    def fail(self, message: str, at: int | None = None) -> ShellError:
        return ShellError(message, (self.i if at is None else at) + 1)

    def variable(self) -> tuple[str, int]:
        """``$NAME`` / ``${NAME}`` at self.i (the ``$``): its value (a marker if secret) and the index after it."""
        line, start = self.line, self.i
        nxt = line[start + 1: start + 2]
        if nxt in ("(", "["):
            raise self.fail(f"${nxt}...{')' if nxt == '(' else ']'} is command substitution or arithmetic: trainjobs "
                            "never runs commands; put the value in a variable of the environment instead")
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
        if secrets.looks_secret(name):
            if name not in self.secret:
                self.secret.append(name)
            return secrets.marker(name), end
        self.plain[name] = self.env[name]
        return self.env[name], end

    def unquoted_variable(self) -> None:
        value, end = self.variable()
        for k, part in enumerate(_IFS.split(value)):  # each run of IFS characters ends a word
            if k:
                self.end_word()
            if part:
                self.add(part, quoted=False, from_variable=True)
        self.i = end

    def double_quoted(self) -> None:
        line = self.line
        open_at = self.i
        self.begin()
        self.i += 1
        while self.i < len(line):
            c = line[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\" and line[self.i + 1: self.i + 2] in ('"', "\\", "$", "`", "\n"):
                if line[self.i + 1] != "\n":
                    self.add(line[self.i + 1], quoted=True)
                self.i += 2
            elif c == "$":
                value, end = self.variable()
                self.add(value, quoted=True)
                self.i = end
            elif c == "`":
                raise self.fail("backticks are command substitution: trainjobs never runs commands")
            else:
                self.add(c, quoted=True)
                self.i += 1
        raise self.fail('this double quote is never closed', open_at)

    def dollar(self) -> None:
        nxt = self.line[self.i + 1: self.i + 2]
        if nxt == "'":
            try:
                text, end = ansi_c.read(self.line, self.i)
            except ansi_c.AnsiCError as exc:
                raise self.fail(str(exc), exc.at) from None
            self.begin()
            self.add(text, quoted=True)
            self.i = end
        elif nxt == '"':  # $"..." is translated by the locale's catalogue: there is none, so it is "..."
            self.i += 1
            self.double_quoted()
        else:
            self.unquoted_variable()

    def backslash(self) -> None:
        nxt = self.line[self.i + 1: self.i + 2]
        if nxt == "\n":
            self.i += 2  # continuation
        elif nxt:
            self.add(nxt, quoted=True)
            self.i += 2
        else:
            self.i += 1

    def newline(self) -> None:
        self.end_word()
        self.i += 1
        rest = self.line[self.i:]
        if self.words and rest.strip() and not rest.lstrip().startswith("#"):
            raise self.fail("a newline without a backslash ends the command, and more follows: bash would "
                            "run that as a second command (end each continued line with \\)", self.i - 1)

    def single_quoted(self) -> None:
        close = self.line.find("'", self.i + 1)
        if close < 0:
            raise self.fail("this single quote is never closed")
        self.begin()
        self.add(self.line[self.i + 1: close], quoted=True)
        self.i = close + 1

    def step(self) -> None:
        c = self.line[self.i]
        if c == "\\":
            self.backslash()
        elif c == "\n":
            self.newline()
        elif c in " \t":
            self.end_word()
            self.i += 1
        elif c == "'":
            self.single_quoted()
        elif c == '"':
            self.double_quoted()
        elif c == "$":
            self.dollar()
        elif c == "`":
            raise self.fail("backticks are command substitution: trainjobs never runs commands")
        elif c == "#" and self.word.start < 0:
            end = self.line.find("\n", self.i)
            self.i = len(self.line) if end < 0 else end
        elif c in _OPERATORS:
            raise self.fail(f"{_OPERATORS[c]} is not part of one gcloud command; give the gcloud command alone")
        else:
            self.add(c, quoted=False)
            self.i += 1


def _utf8_problem(text: str) -> str | None:
    """Why ``text`` (undecodable bytes as surrogateescape) is not UTF-8, or None."""
    try:
        text.encode("utf-8", "surrogateescape").decode("utf-8")
    except UnicodeEncodeError:
        return "it holds a character that is not one (a lone surrogate)"
    except UnicodeDecodeError as exc:
        return f"byte 0x{exc.object[exc.start]:02x} is not UTF-8"
    return None


def _check_text(line: str) -> None:
    if "\x00" in line:
        raise ShellError("a NUL character cannot be part of a command line", line.index("\x00") + 1)
    problem = _utf8_problem(line)
    if problem is not None:
        at = next(k for k, c in enumerate(line) if _utf8_problem(c) is not None)
        raise ShellError(f"the command line is not valid UTF-8 ({problem}); allowed: UTF-8 text: "
                         "write the value out as text", at + 1)


def read_line(line: str, env: Mapping[str, str], cwd: Path | None = None) -> Line:
    """The words bash would pass to the command run in ``cwd`` (default: the current directory) and
    the variables they took, or ShellError saying why not."""
    _check_text(line)
    reader = _Reader(line.replace("\r\n", "\n"), env, cwd or Path.cwd())
    while reader.i < len(reader.line):
        reader.step()
    reader.end_word()
    for k, word in enumerate(reader.words):
        problem = _utf8_problem(word)
        if problem is not None:
            raise ShellError(f"word {k + 1} ({_shown(word)}) is not valid UTF-8 ({problem}): a $'\\x..' escape or a "
                             "variable's value made it so; allowed: UTF-8 text", 1)
    words = [w.encode("utf-8", "surrogateescape").decode("utf-8") for w in reader.words]  # bytes that are UTF-8: text
    return Line(words, dict(reader.plain), list(reader.secret))


def split_words(line: str, env: Mapping[str, str], cwd: Path | None = None) -> list[str]:
    """The words bash would pass to the command (secret variables as markers), or ShellError saying why not."""
    return read_line(line, env, cwd).words
