"""One shell command line -> its words, read the way bash reads them, without running anything.

What is read as bash 5 reads it (in a UTF-8 locale; tests/gcloud/test_words_bash.py holds each against a real
bash): single quotes (literal), double quotes (``$VAR`` and ``\\"`` inside), ``$'...'`` (ANSI-C escapes:
provider.gcloud.ansi_c), ``$"..."`` (as double quotes: there is no message catalogue), backslash escapes (a lone
one at the very end stays), backslash-newline continuations, ``#`` comments at the start of a word, ``$VAR`` and
``${VAR}`` from the given environment (an unquoted value splits at spaces, tabs and newlines), ``${VAR:-word}``
and its kin (provider.gcloud.parameters), a leading ``VAR=value`` (passed to the command: a later ``$VAR`` on the
line reads the outer value), and the commands before ``&&``, ``;`` or a newline that set what the command's
``$REGION`` reads (``REGION=x && gcloud ...``, ``export``, ``set -eu``: provider.gcloud.prelude) or the gcloud
properties it reads (``gcloud config set ai/region x``: provider.gcloud.properties, kept on the Line). A variable
whose name looks secret stands as a marker, never its value (provider.gcloud.secrets). A notebook's ``!gcloud``
line or ``%%bash`` cell: provider.gcloud.notebook; a line written for PowerShell or cmd.exe is named as such
(provider.gcloud.other_shells). A script around the command: what only prints or reads the job before or after it
(``echo``, ``gcloud ai-platform jobs stream-logs``...: provider.gcloud.script, read by provider.gcloud.sequence),
and the command substitutions whose output is known (``$(date +%Y%m%d)``, ``$(gcloud config get-value project)``:
provider.gcloud.substitution).

What is refused with a message naming the column (the line and column in a text of several lines), and what to
write instead:

* what would run something or more than one command: ``$(...)`` and backticks other than those above (and
  a ``$(...)`` in a ``${VAR:-word}`` word bash does not expand is passed over, as bash never runs it), ``$((...))``, ``$[...]``, pipes, redirections,
  ``;``, ``&&``, ``||``, ``&``, ``( ... )``, and a newline without a backslash, each named as written (except
  after the commands above, and an output redirection or ``| tee``, which change nothing in the job and are
  noted: provider.gcloud.redirection);
* what bash would expand from the machine it runs on, which the spec must not depend on: a ``~`` that bash turns
  into a home folder (at the start of a word, or after the ``=`` or a ``:`` of a ``NAME=...`` word), an unquoted
  glob (``*``, ``?``, ``[...]``) that matches files in the folder the command runs in (bash puts their names in
  its place; one that matches nothing stays as written, as bash keeps it: provider.gcloud.pathname), an unquoted
  brace expansion (``{a,b}``, ``{1..3}``: several words);
* what bash would read in a way that cannot be known here: an undefined variable (bash silently drops it),
  ``${VAR:?message}`` of a missing VAR (with bash's own message), the expansions that are not read
  (provider.gcloud.parameters), special parameters (``$1``, ``$@``...);
* what is not text: an unclosed quote, a NUL, invalid UTF-8 in the line or a word (``$'\\xff'``, a variable's value).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from provider.core.record import Record, field
from provider.core.secret_names import looks_secret
from provider.gcloud import ansi_c, heredoc, notebook, other_shells, parameters, prelude, script, secrets
from provider.gcloud.sequence import Commands
from provider.gcloud.word_checks import ASSIGNMENT, QUOTED, ShellError, Word, check_text, checked_words

__all__ = ["ALLOWED", "Line", "ShellError", "read_line", "split_words"]

ALLOWED = prelude.ALLOWED

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL = re.compile(r"[0-9@*#?$!-]")
_IFS = re.compile(r"[ \t\n]+")  # bash's default IFS (bash never takes IFS from the environment)


class Line(Record):
    """A command line, read: its words, and the environment variables it took (secret ones by name only)."""

    words: list[str]
    plain: dict[str, str] = field(default_factory=dict)  # each variable read and its value
    secret: list[str] = field(default_factory=list)  # variables whose names look secret: only markers stand for them
    properties: dict[str, str] = field(default_factory=dict)  # gcloud config set before it: full name -> value
    notes: list[str] = field(default_factory=list)  # what the commands before it set that the job ignores
    starts: list[int] = field(default_factory=list)  # where each word began in the text read
    heres: tuple[heredoc.Here, ...] = ()  # the files here-documents wrote before it (provider.gcloud.heredoc)


class _Reader(Commands):
    def __init__(self, line: str, env: Mapping[str, str], cwd: Path) -> None:
        self.line, self.env, self.cwd, self.i = line, env, cwd, 0
        self.words: list[str] = []
        self.word = Word()
        self.plain: dict[str, str] = {}
        self.secret: list[str] = []
        self.properties, self.notes = dict[str, str](), list[str]()  # gcloud config set before it, and notes
        self.shell: dict[str, str] = {}  # shell variables the line sets (NAME=v && ..., ${NAME:=word})
        self.pending: dict[str, str] = {}  # this command's assignments so far: later ones see them, bash's order
        self.assigned = 0  # how many of this command's words are NAME=value assignments (leading, or export's)
        self.builtin = ""  # this command's first word, when one of prelude.BUILTINS (export, declare, set)
        self.starts: list[int] = []  # where each of this command's words began
        self.nounset = False  # set -u is on
        self.dry = 0  # > 0 while reading a ${...} word bash would not expand: only its end is sought
        self.whole = 0  # > 0 while a word is read whole, never split (an assigned or a message word)
        self.anchor = -1  # where the expansion being read began: a word it begins begins there
        self.held = False  # a word read aside (see aside) belongs to an assignment
        self.quoted_braces = 0  # > 0 inside a "${NAME<op>word}"
        self.glued = False  # whether the last character read belongs to a token (then a # is not a comment)
        self.command: tuple[list[str], list[int]] | None = None  # the training command's words and starts, once ended
        self.single, self.trailing, self.captured = False, True, False  # see Commands

    def fresh(self, text: str) -> _Reader:
        return _Reader(text, self.env, self.cwd)

    def assigning(self) -> bool:
        """Whether the word being read is one of the command's leading NAME=value assignments."""
        leading = len(self.words) == self.assigned or self.builtin in prelude.DECLARING
        return self.held or (leading and ASSIGNMENT.match(self.word.shape) is not None)

    def end_word(self) -> None:
        if self.word.start >= 0 and not self.dry:
            assignment = self.assigning()
            problem = prelude.problem(self.builtin, self.word, self.cwd, assignment)
            if problem is not None:
                raise self.fail(problem, self.word.start)
            if assignment:  # bash performs them in order: a later one's $NAME sees an earlier one
                self.assigned += 1
                name, _, value = self.word.text.partition("=")
                self.pending[name] = value
        if self.word.start >= 0:
            if len(self.words) == self.assigned and self.word.text == self.word.shape in prelude.RESERVED:
                raise self.fail(prelude.reserved(self.word.text), self.word.start)
            if not self.words and self.word.text == self.word.shape and self.word.text in prelude.BUILTINS:
                self.builtin = self.word.text  # as bash, only a builtin's name written unquoted
            self.words.append(self.word.text)
            self.starts.append(self.word.start)
        self.word = Word()

    def add(self, text: str, quoted: bool, from_variable: bool = False) -> None:
        if self.word.start < 0:
            self.word.start = self.anchor if self.anchor >= 0 else self.i
        self.word.text += text
        if quoted:
            self.word.shape += QUOTED * len(text)
        elif from_variable:  # a variable's value is globbed, never tilde- or brace-expanded
            self.word.shape += "".join(c if c in "*?[]" else QUOTED for c in text)
        else:
            self.word.shape += text

    def put(self, value: str, quoted: bool) -> None:
        """An expansion's result: split at each run of IFS characters unless quoted (or assigned), as bash does."""
        if quoted or self.whole or self.assigning():  # bash neither splits nor globs an assignment's value
            self.add(value, quoted=True)
            return
        for k, part in enumerate(_IFS.split(value)):
            if k:
                self.end_word()
            if part:
                self.add(part, quoted=False, from_variable=True)

    def begin(self) -> None:
        """A quote begins a word even when it adds nothing (``''`` is an empty word)."""
        if self.word.start < 0:
            self.word.start = self.i

    def fail(self, message: str, at: int | None = None) -> ShellError:
        return ShellError(message, (self.i if at is None else at) + 1)

    def raw(self, name: str) -> tuple[str | None, bool]:
        """NAME's value (None: not set) and whether it is the environment's: this command's earlier
        assignments (for a later assignment) and the line's shell variables come first, as in bash."""
        if name in self.pending and self.assigning() and not self.builtin:  # export's words are expanded first
            return self.pending[name], False
        if name in self.shell:
            return self.shell[name], False
        return self.env.get(name), True

    def value_of(self, name: str, at: int) -> str:
        """What ``$NAME`` stands for: its value, or a marker if its name looks secret."""
        if self.dry:
            return ""
        value, from_env = self.raw(name)
        if value is None:
            raise self.fail(prelude.undefined(name, self.nounset), at)
        if looks_secret(name):
            if name not in self.secret:
                self.secret.append(name)
            return secrets.marker(name)
        if from_env:
            self.plain[name] = value
        return value

    def expand(self, quoted: bool) -> None:
        """``$NAME`` / ``${...}`` at self.i (the ``$``), added to the word."""
        line, start = self.line, self.i
        nxt = line[start + 1: start + 2]
        if nxt == "(" and line[start + 2: start + 3] != "(":  # one bash does not run (dry): only its end is sought
            self.substitute(quoted)
            return
        if nxt in ("(", "["):
            raise self.fail(other_shells.substitution(line, start))
        outer = self.anchor < 0
        if outer:
            self.anchor = start
        try:
            if nxt == "{":
                self.parameter(quoted)
                return
            m = _NAME.match(line, start + 1)
            if m is None:
                if _SPECIAL.match(nxt) and not self.dry:  # a word bash does not expand: only its end is sought
                    raise self.fail(f"${nxt} is a special shell parameter; " + (parameters.ARGUMENTS if nxt in
                                    "@*123456789" else "only variables of the environment are understood"))
                self.add("$", quoted=True)  # a lone $ is literal, as in bash
                self.i = start + 1
                return
            self.put(self.value_of(m.group(0), start), quoted)
            self.i = m.end()
        finally:
            if outer:
                self.anchor = -1

    def parameter(self, quoted: bool) -> None:
        """``${NAME}`` or ``${NAME<op>word}`` at self.i (provider.gcloud.parameters)."""
        start = self.i
        try:
            head = parameters.head(self.line, start)
        except parameters.Refused as exc:
            raise self.fail(str(exc)) from None
        self.i = head.end
        if head.op is None:  # ${NAME}, or a part of it: ${NAME:offset:length}
            self.put(self.cut(head, self.value_of(head.name, start), start), quoted)
            return
        value = None if self.dry or head.name.isdigit() else self.raw(head.name)[0]
        use = parameters.Use.VALUE if self.dry else parameters.use(head.op, value)
        if head.name.isdigit() and not self.dry:  # no argument given: N is unset
            self.notes.append(parameters.unset(head.name, head.op, script.position(self.line, start)[0]))
        if use in (parameters.Use.VALUE, parameters.Use.NOTHING):
            self.aside(quoted, dry=True)  # bash does not expand the word: only its end is sought
            if use is parameters.Use.VALUE:
                self.put(self.value_of(head.name, start), quoted)
        elif use is parameters.Use.WORD:
            self.braced_word(quoted)
        else:
            text = self.aside(quoted, dry=False)
            if use is parameters.Use.FAIL:
                raise self.fail(parameters.failure(head.name, head.op, value, text), start)
            self.shell[head.name] = text
            self.put(self.value_of(head.name, start), quoted)

    def aside(self, quoted: bool, dry: bool) -> str:
        """The ``${...}`` word at self.i read whole, apart (an assigned value, a message), or only to its end (dry)."""
        word, words, held = self.word, self.words, self.held
        self.held = self.assigning()
        self.word, self.words, self.whole, self.dry = Word(), [], self.whole + 1, self.dry + dry
        try:
            self.braced_word(quoted)
            return self.word.text
        finally:
            self.word, self.words, self.whole, self.dry, self.held = word, words, self.whole - 1, self.dry - dry, held

    def braced_word(self, quoted: bool) -> None:
        """The word of a ``${NAME<op>word}`` up to its ``}``, read as bash reads it. In "...", a ' is kept, yet
        a ``}`` between two does not end the word (bash pairs them), and ``\\}`` is ``}`` in nested "..." too;
        unquoted, its own text is split and globbed as a value is, and a ``~`` that begins it is a home folder."""
        start, single = self.anchor, False
        self.quoted_braces += quoted
        if not quoted and self.line[self.i: self.i + 1] == "~" and not self.dry:
            raise self.fail("~ at the start of this ${...} word would be expanded by bash: ~ becomes a home folder "
                            "of this machine; write the path out, or quote the ~ if it is meant literally")
        while self.i < len(self.line):
            c = self.line[self.i]
            if c == "}" and not single:
                self.i, self.quoted_braces = self.i + 1, self.quoted_braces - quoted
                return
            if c == "'" and quoted:
                single = not single
                self.add(c, quoted=True)
                self.i += 1
            elif quoted:
                self.quoted_char(in_braces=True)
            elif c in "\\'\"$`":
                self.step()
            else:
                self.put(c, quoted=False)
                self.i += 1
        raise self.fail("this ${ is never closed (no })", start)

    def quoted_char(self, in_braces: bool = False) -> None:
        """One character (or escape, or expansion) at self.i inside double quotes."""
        line, c = self.line, self.line[self.i]
        escapes = ('"', "\\", "$", "`", "\n") + (("}",) if self.quoted_braces else ())  # "\}" too, in "${X:-...}"
        if c == "\\" and line[self.i + 1: self.i + 2] in escapes:
            if line[self.i + 1] != "\n":
                self.add(line[self.i + 1], quoted=True)
            self.i += 2
        elif c == "\\" and in_braces:  # kept as written, with the character it does not escape
            self.add(line[self.i: self.i + 2], quoted=True)
            self.i += 2
        elif c == '"' and in_braces:
            self.double_quoted()
        elif c == "$" and in_braces and line[self.i + 1: self.i + 2] == "'":
            text, end = self.ansi_c()
            if any(q in text for q in "\"'\\`$}"):  # bash 5 reads them again there, even in a word it does not use
                raise self.fail("a $'...' that stands for \", ', \\, `, $ or } inside a double-quoted ${...} word is "
                                "read again by bash (a bad substitution, or an expansion); leave the ${...} unquoted")
            self.add(text, quoted=True)
            self.i = end
        elif c == "$" and in_braces and line[self.i + 1: self.i + 2] == '"':
            self.dollar()
        elif c == "$":
            self.expand(quoted=True)
        elif c == "`" and not self.dry:
            self.substitute(quoted=True)
        elif c == "`":
            raise self.fail("backticks are command substitution: trainjobs never runs commands")
        else:
            self.add(c, quoted=True)
            self.i += 1

    def double_quoted(self) -> None:
        open_at = self.i
        self.begin()
        self.i += 1
        while self.i < len(self.line):
            if self.line[self.i] == '"':
                self.i += 1
                return
            self.quoted_char()
        raise self.fail('this double quote is never closed', open_at)

    def dollar(self) -> None:
        nxt = self.line[self.i + 1: self.i + 2]
        if nxt == "'":
            text, end = self.ansi_c()
            self.begin()
            self.add(text, quoted=True)
            self.i = end
        elif nxt == '"':  # $"..." is translated by the locale's catalogue: there is none, so it is "..."
            self.i += 1
            self.double_quoted()
        else:
            self.expand(quoted=False)

    def ansi_c(self) -> tuple[str, int]:
        """The ``$'...'`` at self.i: what it stands for, and the index after it."""
        try:
            return ansi_c.read(self.line, self.i)
        except ansi_c.AnsiCError as exc:
            raise self.fail(str(exc), exc.at) from None

    def backslash(self) -> None:
        nxt = self.line[self.i + 1: self.i + 2]
        if nxt == "\n":
            self.i += 2  # continuation
        else:  # a lone backslash at the very end of the line stays one, as bash keeps it
            self.add(nxt or "\\", quoted=True)
            self.i += 2

    def single_quoted(self) -> None:
        close = self.line.find("'", self.i + 1)
        if close < 0:
            raise self.fail("this single quote is never closed")
        self.begin()
        self.add(self.line[self.i + 1: close], quoted=True)
        self.i = close + 1

    def step(self) -> None:
        c, glued = self.line[self.i], self.glued
        if self.line[self.i: self.i + 2] != "\\\n":  # a continuation leaves the token as it was
            self.glued = c not in " \t\n|&;<>()"
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
        elif c == "`" and not self.dry and not other_shells.continues(self.line, self.i):
            self.substitute(quoted=False)
        elif c == "`":
            raise self.fail(other_shells.backtick(self.line, self.i))
        elif c == "#" and not glued:  # a comment begins a token: after ${X:-} or '' it is text
            end = self.line.find("\n", self.i)
            self.i = len(self.line) if end < 0 else end
        elif c in "|&;<>()":
            self.operator()
        else:
            self.add(c, quoted=False)
            self.i += 1


def read_line(line: str, env: Mapping[str, str], cwd: Path | None = None) -> Line:
    """The words bash would pass to the command run in ``cwd`` (default: the current directory) and
    the variables they took, or ShellError saying why not."""
    text = line.replace("\r\n", "\n")
    try:
        check_text(line)
        reader = _Reader(notebook.shell_line(text), env, cwd or Path.cwd())
        reader.trailing = not script.bang(text)
        reader.read()
    except ShellError as exc:  # in a script of several lines: at its line and column (a notebook's ! line: its own)
        raise (exc if script.bang(text) else script.located(exc, text)) from None
    return Line(checked_words(reader.words), dict(reader.plain), list(reader.secret), reader.properties, reader.notes,
                list(reader.starts), reader.heres)


def split_words(line: str, env: Mapping[str, str], cwd: Path | None = None) -> list[str]:
    """The words bash would pass to the command (secret variables as markers), or ShellError saying why not."""
    return read_line(line, env, cwd).words
