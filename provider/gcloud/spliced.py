"""A text made from a written one by putting values in place of some of its pieces (IPython's ``{expr}`` and ``$name``
in a notebook's ``!`` line, bash's ``$1`` in a ``%%bash -s`` cell), with where each of its characters was written:
a message about the made text (the gcloud reader's) names the column in the text as written, not in the made one.
"""

from __future__ import annotations

from collections.abc import Iterable

from provider.core.record import Record


class Spliced(Record):
    """``text``, made from a written text: ``pieces`` (start in ``text``, start in the written text, literal): from
    there on, ``text`` is the written text character by character when ``literal``, else a value put in place of the
    written piece that begins there (a character of it is at that piece)."""

    text: str
    pieces: tuple[tuple[int, int, bool], ...] = ()

    def written(self, offset: int) -> int:
        """Where character ``offset`` of ``text`` was written (its value's piece, for a character of a value)."""
        start, at, literal = next((p for p in reversed(self.pieces) if p[0] <= offset), (0, 0, True))
        return at + offset - start if literal else at

    def after(self, written: int, text: str) -> Spliced:
        """This text put after ``written`` characters of the written text (the same text: ``text``)."""
        head = len(text)
        return Spliced(text + self.text, ((0, 0, True), *((s + head, a + written, lit) for s, a, lit in self.pieces)))


class Splicer:
    """A Spliced made piece by piece: ``copy`` what is written as it is, ``put`` a value in place of a written piece."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pieces: list[tuple[int, int, bool]] = []
        self.size = 0

    def _add(self, text: str, at: int, literal: bool) -> None:
        if text:
            last = self.pieces[-1] if self.pieces else None
            if not (literal and last and last[2] and last[1] + self.size - last[0] == at):
                self.pieces.append((self.size, at, literal))
            self.parts.append(text)
            self.size += len(text)

    def copy(self, text: str, at: int) -> None:
        """``text``, written at ``at``, as it is."""
        self._add(text, at, True)

    def put(self, value: str, at: int) -> None:
        """``value`` in place of the written piece at ``at``."""
        self._add(value, at, False)

    def made(self) -> Spliced:
        return Spliced("".join(self.parts), tuple(self.pieces))


def spliced(written: str, made: str, values: Iterable[tuple[int, int, str]]) -> Spliced:
    """``made``, which is ``written`` with each ``values`` (start, end, value: in order) put in place of the written
    text from start to end, and between them the written text with characters left out (IPython's ``$$name`` is
    ``$name``, its ``{{`` is ``{``): each character left there matched to the next written one like it."""
    out = Splicer()
    i = o = 0  # in written, in made

    def literal(end: int) -> None:
        nonlocal i, o
        while i < end:
            if o < len(made) and made[o] == written[i]:
                out.copy(made[o], i)
                o += 1
            i += 1

    for start, end, value in values:
        literal(start)
        out.put(value, start)
        i, o = end, o + len(value)
    literal(len(written))
    return out.made()
