"""Where a command of a script ends, and what of the commands around the gcloud one is read: the reading of
provider.gcloud.words (a mixin of its reader) that goes from one command to the next.

At ``&&``, ``;`` or a newline, the command that ends is read as bash would run it before the gcloud command
(provider.gcloud.prelude: assignments, export, set; provider.gcloud.properties: gcloud config set; provider.gcloud.
script: a command that prints only), or is the gcloud command itself, whose words are kept; what follows it is
read as provider.gcloud.script allows after it. A ``$(...)`` or backticks is read as one simple command, whose
output provider.gcloud.substitution knows or refuses. An output redirection among a command's words (``> FILE``,
``2>&1``...) and a pipe into ``tee FILE`` are read and noted, any other refused (provider.gcloud.redirection). A
here-document of ``cat > FILE`` before the gcloud command is read as the file it writes (provider.gcloud.heredoc).
"""

from __future__ import annotations

from provider.gcloud import (
    heredoc,
    other_shells,
    parameters,
    prelude,
    properties,
    redirection,
    script,
    secrets,
    substitution,
)
from provider.gcloud.here_reading import Documents
from provider.gcloud.word_checks import ASSIGNMENT, ShellError, Word, shown


class Commands(Documents):
    """The part of provider.gcloud.words' reader that reads a script's commands one after the other (the attributes
    it shares with the here-documents' part are declared there)."""

    anchor: int
    command: tuple[list[str], list[int]] | None  # the gcloud command's words and starts, once it has ended
    single: bool  # only one simple command (that of a substitution)
    captured: bool  # the training command was read inside this command's NAME=$(...) (captures)
    trailing: bool  # commands may follow the gcloud one (not in a notebook's ! line: Python follows it)
    word: Word
    whole: int
    dry: int  # > 0 while reading a ${...} word bash would not expand
    # this command's output redirections (what, target, where), the files written before the training command's
    # end (target, line, column), and the | (or |&) whose right side is being read (where it was)
    redirected: tuple[tuple[str, str, int], ...] = ()
    written: tuple[tuple[str, int], ...] = ()
    piped: int | None = None
    local: tuple[tuple[list[str], int], ...] = ()  # gcloud ai-platform local train ... before it (words, where)

    def fresh(self, text: str) -> Commands:
        raise NotImplementedError

    def end_word(self) -> None:
        raise NotImplementedError

    def assigning(self) -> bool:
        raise NotImplementedError

    def step(self) -> None:
        raise NotImplementedError

    def put(self, value: str, quoted: bool) -> None:
        raise NotImplementedError

    def cut(self, head: parameters.Head, value: str, at: int) -> str:
        """The part of ``value`` a ``${NAME:offset:length}`` stands for (provider.gcloud.parameters.sliced)."""
        if head.cut is not None and value == secrets.marker(head.name):
            raise self.fail(f"${{{head.name}:...}} cuts a value whose name looks secret, which is never read here; "
                            "write the value out", at)
        try:
            return parameters.sliced(head, value)
        except parameters.Refused as exc:
            raise self.fail(str(exc), at) from None

    def substitute(self, quoted: bool) -> None:
        """The ``$(...)`` or backticks at self.i, put as what its command prints (provider.gcloud.substitution)."""
        start = self.i
        if other_shells.make_variable(self.line, start):
            raise self.fail(other_shells.substitution(self.line, start))
        try:
            if self.dry:  # in a ${VAR:-word} whose VAR is set: bash never runs it (TAG=${TAG:-$(git rev-parse HEAD)})
                self.i = substitution.dollar(self.line, start)[2]
                return
            text, at, end = (substitution.dollar if self.line[start] == "$" else substitution.backticked)(self.line, start)
            inner = self.fresh(text)
            inner.shell, inner.properties, inner.single = self.shell, self.properties, True
            try:
                inner.read()
            except ShellError as exc:
                raise ShellError(exc.message, exc.column + at) from None
            if self.captures(inner, at, end, quoted):
                return
            printed, variable = substitution.value(inner.words, self.line[start:end], self.properties, self.env,
                                                     self.notes, self.cwd)
        except substitution.Refused as exc:
            raise self.fail(str(exc), start + exc.at) from None
        self.plain.update(inner.plain)
        self.secret += [name for name in inner.secret if name not in self.secret]
        if variable is not None:
            self.plain[variable] = printed
        outer, self.anchor = self.anchor < 0, start if self.anchor < 0 else self.anchor
        self.put(printed, quoted)
        self.i, self.anchor = end, -1 if outer else self.anchor

    def captures(self, inner: Commands, at: int, end: int, quoted: bool) -> bool:
        """Whether the substitution read as ``inner`` (its text at ``at``, ending before ``end``) is the training
        command, its output captured: ``JOB=$(gcloud ai custom-jobs create ...)`` or ``JOB="$(...)"``, the whole value
        of the command's one assignment. bash runs it as it would alone; the variable gets what gcloud prints,
        which is not known here (empty). Then it is the command (its words where they are in the line)."""
        named = inner.words[inner.assigned:]
        follows = self.line[end + 1: end + 2] if quoted and self.line[end: end + 1] == '"' else self.line[end: end + 1]
        if (self.command is not None or self.single or not named or not substitution.creates(named)
                or self.words[self.assigned:] or not self.assigning() or ASSIGNMENT.fullmatch(self.word.text) is None
                or self.word.text != self.word.shape or follows not in ("", " ", "\t", "\n", ";")):
            return False
        name = self.word.text.rstrip("=")
        self.command = (named, [at + start for start in inner.starts[inner.assigned:]])
        self.notes += inner.notes
        self.notes.append(f"line {script.position(self.line, self.word.start)[0]}: {name}=$(...) keeps what the "
                          f"training command prints (the job's name) in ${name}; the command is the job, as bash runs "
                          "it")
        self.captured = True
        self.put("", quoted)
        self.i = end
        return True

    def then(self, op: str) -> bool:
        """Whether the ``op`` here ends a command bash runs before the gcloud one (provider.gcloud.prelude) or, once
        the gcloud one has ended (kept as self.command), after it (provider.gcloud.script)."""
        self.end_word()
        words, starts, assigned = self.words, self.starts, self.assigned
        if self.fed is not None and not self.single and self.fed_by(op):
            return True
        if self.here is not None and not self.single and not self.stdin_here():
            return self.written_here(op)
        if not words and self.redirected and op in prelude.THEN and not self.single:  # > FILE alone on its line
            self.redirections(script.position(self.line, self.redirected[0][2])[0])
        if not words or op not in (*prelude.THEN, *redirection.PIPES) or self.single:
            return False
        line = script.position(self.line, starts[0])[0]
        self.redirections(line)
        try:
            if not self.ran(op, words, starts, line):
                return False
        except (prelude.Refused, script.Refused, redirection.Refused) as exc:
            raise self.fail(str(exc), starts[exc.word]) from None
        if self.builtin or len(words) == assigned:
            self.shell.update(self.pending)
        if self.builtin == "export":
            self.exported |= {w.partition("=")[0] for w in words[1:]}
        self.words, self.starts, self.pending, self.assigned, self.builtin = [], [], {}, 0, ""
        return True

    def ran(self, op: str, words: list[str], starts: list[int], line: int) -> bool:
        """Whether the command ``words`` (of line ``line``), ended by ``op``, is read: a builtin (export, set...),
        gcloud config set / gcloud auth, a command that prints only, the gcloud one, tee after a pipe."""
        assigned = self.assigned
        if self.captured:  # NAME=$(the training command): the command was read inside it (captures)
            return self.capture_ended(words, starts)
        if self.piped is not None:
            at = self.line[self.piped: self.piped + 2]
            teed, files = redirection.tee(words, line, "|&" if at == "|&" else "|")
            self.notes.append(teed)
            self.written += tuple((f, starts[0]) for f in files if self.command is None)
            self.piped = None
        elif self.command is not None:
            self.notes.append(script.after(words, line))
        elif self.builtin:
            self.nounset = prelude.ran(words, self.nounset)
        elif words[:2] in (["gcloud", "config"], ["gcloud", "auth"]):  # gcloud config set ai/region x
            properties.ran(words, self.properties, self.notes)
        elif len(words) > assigned and (note := script.quiet(words[assigned:], line)) is not None:
            self.notes.append(note)
        elif len(words) > assigned and (note := script.local_run(words[assigned:], line)) is not None:
            self.notes.append(note)  # gcloud ai-platform local train before the job is submitted
            self.local += ((words[assigned:], starts[assigned]),)
        elif len(words) > assigned and words[assigned] == "gcloud" and (self.trailing or op in redirection.PIPES):
            if op == "\n" and script.continued(self.line, self.i - 1):
                return False  # a continuation of another shell, or a flag on the next line: refused as such
            self.command = (words, starts)
        elif len(words) > assigned:
            return False
        return True

    def newline(self) -> None:
        self.i += 1
        if self.then("\n"):
            return
        rest = self.line[self.i:]
        if self.words and rest.strip() and not rest.lstrip().startswith("#"):
            first = self.words[self.assigned:][:1]
            if first and first[0] != "gcloud" and self.command is None and not script.continued(self.line, self.i - 1):
                raise self.fail(script.before(self.words[self.assigned:]), self.starts[self.assigned])
            raise self.fail(other_shells.unended(self.line, self.i - 1), self.i - 1)

    def operator(self) -> None:
        op, what = next((op, what) for op, what in prelude.OPERATORS if self.line.startswith(op, self.i))
        if what == "a redirection" and not self.single and not self.dry:
            self.redirect(op)
            return
        if op in redirection.PIPES and not self.single and self.piped is None:
            at = self.i
            self.end_word()
            named = self.words[self.assigned:]
            if self.words and (not named or self.builtin or named[:2] in (["gcloud", "config"], ["gcloud", "auth"])):
                raise self.fail(redirection.subshell(self.words, op))
            if self.then(op):  # envsubst's output (self.here) is the next command's standard input
                self.i, self.piped = at + len(op), None if self.fed_from else at
                return
            if self.words and self.line[at + len(op):].lstrip(" \t").startswith("gcloud"):
                raise self.fail(redirection.into_gcloud(named[0] if named else None, op))
        self.no_definition(op)
        if self.then(op):
            self.i += len(op)
            return
        before = prelude.BEFORE if op in prelude.THEN else ""
        raise self.fail(f"{what} ({op}) is not part of one gcloud command{before}; give the gcloud command alone")

    def capture_ended(self, words: list[str], starts: list[int]) -> bool:
        """The end of the command NAME=$(the training command): read (True) when the assignment is all of it."""
        self.captured = False
        if len(words) == self.assigned == 1:
            return True
        raise self.fail(f"{shown(words[self.assigned] if len(words) > self.assigned else words[1])}: the training "
                        "command's output is kept in a variable, and more comes in the same command; give "
                        "NAME=$(gcloud ...) alone on its line", starts[min(self.assigned, len(starts) - 1)])

    def no_definition(self, op: str) -> None:
        """ShellError where the ``(`` at self.i begins ``()`` of a function definition (defined)."""
        if op == "(" and self.line.startswith("()", self.i) and (name := self.defined()) is not None:
            raise self.fail(f"a function definition ({name}() {{ ... }}) is not part of one gcloud command: bash runs "
                            f"its body only where the script calls {name}, with that call's arguments and the "
                            "variables set by then; give the gcloud command at the top level of the script, after the "
                            "variables it uses", self.word.start if self.word.start >= 0 else self.starts[-1])

    def defined(self) -> str | None:
        """The name a ``()`` at self.i defines as a function (``main()`` or ``main ()``: the command's only word,
        unquoted), else None (``function main()`` is named at its first word: prelude.RESERVED)."""
        if self.word.start >= 0:
            name, shape, alone = self.word.text, self.word.shape, not self.words[self.assigned:]
        else:
            named = self.words[self.assigned:]
            name, shape, alone = (named[0], named[0], True) if len(named) == 1 else ("", "", False)
        return name if alone and shape == name and name.isidentifier() else None

    def redirect(self, op: str) -> None:
        """An output redirection (``> FILE``, ``2>&1``, ``&>> FILE``...) at self.i, anywhere among a command's words
        as bash allows it: its target read as a word and kept out of the command's words, for a note
        (provider.gcloud.redirection); ShellError for one that is refused."""
        if op == "<<" and not self.single and self.command is None:
            self.here_document()
            return
        digits = self.line[self.word.start: self.i] if self.word.start >= 0 else ""
        number = digits if digits.isdigit() and self.word.text == digits == self.word.shape else ""
        start = self.word.start if number else self.i
        if number:  # bash's IO number: the digits right before the operator are its file descriptor
            self.word = Word()
        else:
            self.end_word()
        self.i += len(op)
        while self.i < len(self.line) and self.line[self.i] in " \t":
            self.i += 1
        count, target_at = len(self.words), self.i
        self.whole += 1  # bash neither splits nor globs it here (it would call a split one ambiguous)
        try:
            while self.i < len(self.line) and self.line[self.i] not in " \t\n;&|<>()":
                self.step()
        finally:
            self.whole -= 1
        target = self.word.text if self.word.start >= 0 else None
        self.word = Word()
        if self.feeds(op, target, start):  # < FILE: read at the command's end (here_reading.fed_by)
            return
        try:
            what, written = redirection.output(number, op, target)
        except redirection.Refused as exc:
            raise self.fail(str(exc), start) from None
        assert len(self.words) == count
        self.redirected += ((what, written or "", target_at),)

    def redirections(self, line: int) -> None:
        """The notes of the command that ends here (its first word ``line``) for its redirections, and the files it
        writes, kept while the training command has not ended (the command may read one)."""
        for what, target, at in self.redirected:
            self.notes.append(redirection.note(self.words[self.assigned:] or self.words, what, line))
            if self.command is None and target:
                self.written += ((target, at),)
        self.redirected = ()

    def read(self) -> None:
        """Read the whole text; self.words are then the gcloud command's (the last one's if none ended before)."""
        while self.i < len(self.line):
            self.step()
        self.end_word()
        if (self.here is not None or self.fed is not None) and self.command is None and not self.single:
            self.then("\n")  # the last command given a standard input (a ! line, or a text without a last newline)
        if self.command is not None or self.piped is not None:
            self.then("\n")  # what follows the training command, checked
            if self.command is not None:
                self.words, self.starts = self.command
        elif self.words or self.redirected:
            self.redirections(script.position(self.line, (self.starts or [self.redirected[0][2]])[0])[0])
        if self.command is None and not self.words and self.local:  # only a local run: no job to convert
            raise self.fail(script.only_local(self.local[0][0]), self.local[0][1])
        try:
            heredoc.check(self.heres, self.words, self.cwd, substitution.TEMP)
        except heredoc.Misread as exc:
            raise self.fail(str(exc), self.starts[exc.word] if self.starts else 0) from None
        for target, at in self.written:
            read = redirection.read_by(target, self.words, self.cwd)
            if read is not None:
                raise self.fail(f"{target} is written here, before the training command reads it ({read}): trainjobs "
                                "reads the file as it is now and never runs the script, so the job would not be what "
                                "the script submits: write the file before converting, and leave out what "
                                "writes it", at)
