"""What the code takes from outside itself that the reading gives it, named in a note wherever the spec holds it:
the clock (provider.document.python_clock: the time of the conversion) and gcloud's configuration
(provider.document.python_shell: ``!gcloud config get-value project``, from ``$CLOUDSDK_CORE_PROJECT``).

Each value is recorded once it is text (``Taken``: where, the expression, the text, what it is), in one list for
the whole conversion: every snapshot of a scope and every module of the code's own shares it
(python_modules.Modules), and ``taking()`` collects it across every reading of the code one command makes. A
value the spec does not hold gets no note (``notes``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from provider.core.record import Record
from provider.document.python_unknown import Where

_TAKEN: ContextVar[list[Taken] | None] = ContextVar("python_taken", default=None)


class Taken(Record):
    """One value the code takes from outside: where, the expression, the text it is written as, and what it is
    (said with the text: "the time the code runs, written as '2026...', the time of the conversion")."""

    where: Where
    expression: str
    text: str
    said: str


def taken(where: Where, node: ast.AST | str, text: str, said: str) -> Taken:
    """What ``node`` (an expression of the code, or its text) at ``where`` gives: ``text``, which is ``said``."""
    shown = node if isinstance(node, str) else ast.unparse(node)
    return Taken(where, shown if len(shown) <= 80 else shown[:77] + "...", text, said)


@contextmanager
def taking() -> Iterator[list[Taken]]:
    """Collects what every reading of code within takes from outside, in one list (the conversion's)."""
    found: list[Taken] = []
    token = _TAKEN.set(found)
    try:
        yield found
    finally:
        _TAKEN.reset(token)


def collected() -> list[Taken]:
    """The list a new reading of code records what it takes in: taking()'s, else one of its own."""
    found = _TAKEN.get()
    return [] if found is None else found


def notes(found: list[Taken], written: str, place: Callable[[Where], str]) -> list[str]:
    """A note for each value taken that ``written`` (what the conversion writes) holds, naming each place (``place``
    says how) that gives it."""
    places: dict[str, dict[str, None]] = {}
    for one in found:
        if len(one.text) >= 2 and one.text in written:  # a 1-character one would match by chance
            places.setdefault(one.said, {})[f"{one.expression} at {place(one.where)}"] = None
    return [f"{'; '.join(list(said)[:3])}{' (and more)' if len(said) > 3 else ''}: {what}"
            for what, said in places.items()]
