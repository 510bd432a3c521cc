"""The here-documents of a script and what envsubst writes: the reading of provider.gcloud.sequence (a mixin of
its reader) that keeps the files a here-document (provider.gcloud.heredoc) or ``envsubst < TEMPLATE``
(provider.gcloud.envsubst) writes before the training command, or gives it as its standard input.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from provider.gcloud import envsubst, heredoc, prelude, script, substitution
from provider.gcloud.word_checks import ShellError, Word


class Documents:
    """The part of provider.gcloud.sequence's reader that reads here-documents and envsubst."""

    line: str
    i: int
    env: Mapping[str, str]
    cwd: Path
    words: list[str]
    starts: list[int]
    pending: dict[str, str]
    shell: dict[str, str]
    plain: dict[str, str]
    secret: list[str]
    properties: dict[str, str]
    notes: list[str]
    assigned: int
    builtin: str
    nounset: bool
    single: bool
    word: Word
    command: tuple[list[str], list[int]] | None
    redirected: tuple[tuple[str, str, int], ...] = ()
    here: tuple[str, int, int] | None = None  # this command's here-document: its text, first line, where its << is
    heres: tuple[heredoc.Here, ...] = ()  # the files here-documents wrote before the training command
    fed: tuple[str, int] | None = None  # this command's < FILE (the file, where): envsubst's template (fed_by)
    fed_from = ""  # the template whose envsubst output self.here holds, piped into the next command
    exported: frozenset[str] = frozenset()  # the variables the script exported (export NAME[=value])

    def fresh(self, text: str) -> Documents:
        raise NotImplementedError

    def end_word(self) -> None:
        raise NotImplementedError

    def add(self, text: str, quoted: bool, from_variable: bool = False) -> None:
        raise NotImplementedError

    def quoted_char(self, in_braces: bool = False) -> None:
        raise NotImplementedError

    def fail(self, message: str, at: int | None = None) -> ShellError:
        raise NotImplementedError

    def here_document(self) -> None:
        """A here-document at self.i (``<<`` or ``<<-``): its text as bash writes it, kept for the end of its
        command (written_here), and its lines blanked: bash does not read them as commands (provider.gcloud.heredoc)."""
        at = self.i
        self.end_word()
        strip = self.line.startswith("<<-", at)
        try:
            if self.here is not None:
                raise heredoc.Refused("a second here-document in one command is not read")
            word, literal, after = heredoc.delimiter(self.line, at + 2 + strip)
            start, end, text = heredoc.body(self.line, after, word, strip)
        except heredoc.Refused as exc:
            raise self.fail(f"{exc}; {heredoc.ONLY}", at) from None
        self.here = (text if literal else self.here_expanded(text, start), script.position(self.line, start)[0], at)
        self.line, self.i = heredoc.blanked(self.line, start, end), after

    def here_expanded(self, text: str, start: int) -> str:
        """The lines of a here-document whose delimiter is not quoted (they begin at ``start``), as bash writes them:
        read as between double quotes, where a ``"`` is itself and a backslash escapes only $, `, \\ and a newline."""
        inner = self.fresh(text)
        inner.shell, inner.properties, inner.nounset, inner.single = self.shell, self.properties, self.nounset, True
        try:
            while inner.i < len(text):
                c = text[inner.i]
                if c == '"' or (c == "\\" and text[inner.i + 1: inner.i + 2] not in ("$", "`", "\\", "\n")):
                    inner.add(c, quoted=True)
                    inner.i += 1
                else:
                    inner.quoted_char()
        except ShellError as exc:
            raise self.fail(exc.message, start + exc.column - 1) from None
        if inner.secret:
            raise self.fail(f"the here-document uses ${inner.secret[0]}, whose name looks secret: the file it writes "
                            "would go into the committed spec; give the value to the job another way (Secret Manager, "
                            "the environment of the container), or write the file without it", start)
        self.plain.update(inner.plain)
        self.notes += inner.notes
        return inner.word.text

    def stdin_here(self) -> bool:
        """Whether the here-document is the training command's standard input, which its --config reads
        (heredoc.stdin_config): kept (self.heres) as the file --config names, the command then read as any."""
        assert self.here is not None
        named = self.words[self.assigned:]
        target = heredoc.stdin_config(named) if substitution.creates(named) else None
        if target is None:
            return False
        text, first, _ = self.here
        self.here, source, self.fed_from = None, self.fed_from, ""
        here = heredoc.Here(os.path.normpath(self.cwd / target), target, text, first, source=source, shown=source)
        self.heres += (here,)
        if not source:  # envsubst's is named in its own note
            self.notes.append(heredoc.stdin_note(here, script.position(self.line, self.starts[self.assigned])[0]))
        return True

    def written_here(self, op: str) -> bool:
        """The end of the command of a here-document: ``cat > FILE``, whose FILE is kept (self.heres) for the
        --config that reads it; any other command is refused."""
        assert self.here is not None
        text, first, at = self.here
        self.here = None
        named = self.words[self.assigned:]
        outputs = [(what, target) for what, target, _ in self.redirected]
        if self.fed_from:
            raise self.fail(f"{envsubst.piped(named)}; {envsubst.READ}", self.starts[self.assigned] if named else at)
        if (named != ["cat"] or op not in prelude.THEN or self.command is not None or len(outputs) != 1
                or not outputs[0][1] or not outputs[0][0].startswith("stdout is written to")):
            raise self.fail(f"{heredoc.refused(named, [what for what, _ in outputs])}; {heredoc.ONLY}", at)
        line = script.position(self.line, self.starts[self.assigned])[0]
        here = heredoc.Here(os.path.normpath(self.cwd / outputs[0][1]), outputs[0][1], text, first)
        self.heres += (here,)
        self.notes.append(heredoc.note(here, line))
        self.words, self.starts, self.pending, self.assigned, self.builtin, self.redirected = [], [], {}, 0, "", ()
        return True

    def feeds(self, op: str, target: str | None, at: int) -> bool:
        """Whether the redirection ``op target`` (at ``at``) is a ``< FILE`` before the training command: kept as
        self.fed, for fed_by at the command's end."""
        if op != "<" or not target or self.command is not None or self.fed is not None:
            return False
        self.fed = (target, at)
        return True

    def fed_by(self, op: str) -> bool:
        """The end of a command given a file as its standard input (self.fed), read by provider.gcloud.envsubst: its
        output kept as a file a here-document writes (or the next command's standard input, self.here): True; the
        training command's own < FILE, for its --config -: False (the command read on)."""
        assert self.fed is not None
        (source, at), self.fed = self.fed, None
        named = self.words[self.assigned:]
        line = script.position(self.line, self.starts[0] if self.starts else at)[0]
        try:
            into, text, note = envsubst.fed(named, source, op, [(w, t) for w, t, _ in self.redirected], self.cwd, line,
                                            {**self.env, **self.shell, **self.pending},
                                            {*self.env, *self.exported, *self.pending}, self.plain, self.env)
            if self.command is not None or (self.here is not None and into != "<"):
                raise envsubst.Refused("a second command's standard input is not read here")
        except envsubst.Refused as exc:
            where = self.starts[self.assigned + exc.word] if named and exc.word >= 0 else at
            raise self.fail(f"{exc}; {envsubst.READ}", where) from None
        self.notes.append(note)
        target = heredoc.stdin_config(named) if into == "<" else into
        if into != "-":
            assert target is not None
            path = os.path.normpath(self.cwd / target)
            self.heres += (heredoc.Here(path, target, text, 1, source=source, shown=source),)
        if into == "<":
            return False
        self.here, self.fed_from = ((text, 1, at), source) if into == "-" else (self.here, "")
        self.words, self.starts, self.pending, self.assigned, self.builtin, self.redirected = [], [], {}, 0, "", ()
        return True
