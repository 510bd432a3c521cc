"""make's expansion of a Makefile's text (GNU make 4.3), without running anything: the part of provider.gcloud.makefile
that turns ``$(VAR)`` into values.

``$$`` is a ``$``; ``$(NAME)``, ``${NAME}`` and ``$N`` (one character) are the variable's value, a recursive one's
(``=``) expanded where it is used, a simple one's (``:=``) as it was expanded when set; ``$(NAME:a=b)`` replaces the
suffix ``a`` (or the pattern ``%a``) of each word. Of make's functions, those that only compute text are read:
``subst``, ``patsubst``, ``strip``, ``firstword``, ``lastword``, ``words``, ``word``, ``if``, ``info`` and ``warning``
(print only), ``error`` (make stops: refused with its text); ``$(shell ...)`` only for what
provider.gcloud.substitution knows a script's ``$(...)`` prints (``date +FORMAT``: the conversion's time; ``gcloud
config get-value PROPERTY``); any other function is refused by name at its line and column. A variable that refers to
itself (``A = $(B)``, ``B = $(A)``) is refused with make's own words, as is one that nests or grows past what a
Makefile holds.

Every piece of the expanded text keeps where it was written (``Text``), so that what the shell reader refuses later
is named at the Makefile's line and column.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from provider.core.record import Record, field

Pos = tuple[str, int, int]  # file (as shown), line, column (line 0: no line, e.g. the environment)
MAX_DEPTH = 100
MAX_SIZE = 1 << 20
MAX_REFERENCES = 100_000
_FUNCTIONS = frozenset(("abspath", "addprefix", "addsuffix", "and", "basename", "call", "dir", "error", "eval", "file",
                        "filter", "filter-out", "findstring", "firstword", "flavor", "foreach", "guile", "if", "info",
                        "join", "lastword", "notdir", "or", "origin", "patsubst", "realpath", "shell", "sort", "strip",
                        "subst", "suffix", "value", "warning", "wildcard", "word", "wordlist", "words"))
READ = ("read of make's functions: subst, patsubst, strip, firstword, lastword, words, word, if, info, warning, and "
        "$(shell date [-u] +FORMAT), $(shell gcloud config get-value PROPERTY) and $(shell pwd)")


def where(pos: Pos) -> str:
    return f"{pos[0]}:{pos[1]}:{pos[2]}" if pos[1] else pos[0]


class Refused(ValueError):
    """What make's reading of the file cannot give here, at ``pos``."""

    def __init__(self, message: str, pos: Pos) -> None:
        super().__init__(f"{where(pos)}: {message}")
        self.message, self.pos = message, pos


class Text(Record, frozen=False):
    """Text and where each piece of it was written: ``anchors`` (offset, position, literal): from ``offset`` on, the
    text was written at ``position``, character by character when ``literal``, else as a whole (a value)."""

    s: str = ""
    anchors: list[tuple[int, Pos, bool]] = field(default_factory=list)

    @classmethod
    def at(cls, s: str, pos: Pos, literal: bool = True) -> Text:
        return cls(s, [(0, pos, literal)])

    def pos(self, offset: int) -> Pos:
        found: tuple[int, Pos, bool] = (0, ("?", 0, 0), False)
        for anchor in self.anchors:
            if anchor[0] > offset:
                break
            found = anchor
        start, (file, line, column), literal = found
        return (file, line, column + offset - start) if literal and line else (file, line, column)

    def add(self, other: Text) -> None:
        base = len(self.s)
        self.anchors += [(base + o, p, lit) for o, p, lit in other.anchors]
        self.s += other.s

    def piece(self, start: int, end: int) -> Text:
        """The text from ``start`` to ``end``, with its anchors."""
        before = [a for a in self.anchors if a[0] <= start]
        out = Text(self.s[start:end], [(0, self.pos(start), before[-1][2])] if before else [])
        out.anchors += [(o - start, p, lit) for o, p, lit in self.anchors if start < o < end]
        return out


class Var(Record, frozen=False):
    """A make variable: its value (as written, or expanded once for a simple one), flavor, origin and export."""

    value: Text
    recursive: bool
    origin: str  # default, environment, file, command line, override
    exported: bool | None = None  # export (True), unexport (False), or neither said
    inherited: bool = False  # from the environment or the command line: exported unless unexport says otherwise
    refused: Refused | None = None  # a := whose value cannot be known here: refused only where it is used

    def exports(self, export_all: bool) -> bool:
        """Whether make puts the variable in the environment of a recipe's shell."""
        return self.exported if self.exported is not None else (export_all or self.inherited)


def closing(s: str, at: int) -> int:
    """The index of the ``)`` or ``}`` that closes the ``$(`` or ``${`` at ``at`` (make counts that kind alone), or -1."""
    opener = s[at + 1]
    closer = ")" if opener == "(" else "}"
    depth, k = 1, at + 2
    while k < len(s):
        if s[k] == opener:
            depth += 1
        elif s[k] == closer:
            depth -= 1
            if depth == 0:
                return k
        k += 1
    return -1


def split_args(s: str, count: int) -> list[tuple[int, int]]:
    """The (start, end) of the comma-separated arguments of a function, at most ``count`` (the last takes the rest)."""
    out: list[tuple[int, int]] = []
    depth, start = 0, 0
    for k, c in enumerate(s):
        if c in "({":
            depth += 1
        elif c in ")}":
            depth -= 1
        elif c == "," and depth == 0 and len(out) < count - 1:
            out.append((start, k))
            start = k + 1
    out.append((start, len(s)))
    return out


def _pattern(pattern: str, replacement: str, words: list[str]) -> str:
    """patsubst's replacement of each word (``%`` the stem; without ``%``, the whole word)."""
    if "%" not in pattern:
        return " ".join(replacement if w == pattern else w for w in words)
    head, _, tail = pattern.partition("%")
    out = []
    for w in words:
        if w.startswith(head) and w.endswith(tail) and len(w) >= len(head) + len(tail):
            stem = w[len(head): len(w) - len(tail)]
            out.append(replacement.replace("%", stem, 1) if "%" in replacement else replacement)
        else:
            out.append(w)
    return " ".join(out)


class Expander:
    """Expansion over a Makefile's variables; ``strict``: a variable that is not defined is refused (make would put
    nothing), else nothing, as make gives; ``used``: the variables read, with their origin."""

    def __init__(self, variables: Mapping[str, Var], env: Mapping[str, str], notes: list[str],
                 shell: Callable[[str, str, Mapping[str, str], list[str]], str]) -> None:
        self.variables, self.env, self.notes, self.shell = variables, env, notes, shell
        self.strict = False
        self.used: dict[str, str] = {}
        self._active: list[str] = []
        self._references = 0

    def expand(self, text: Text, depth: int = 0) -> Text:
        if depth > MAX_DEPTH:
            raise Refused(f"the expansion nests more than {MAX_DEPTH} levels deep; allowed: a Makefile as people "
                          "write it, a few levels deep", text.pos(0))
        s, out, k, start = text.s, Text(), 0, 0
        while (j := s.find("$", k)) >= 0:
            out.add(text.piece(start, j))
            c = s[j + 1: j + 2]
            if c == "$":
                out.add(text.piece(j, j + 1))
                k = j + 2
            elif c in ("(", "{"):
                end = closing(s, j)
                if end < 0:
                    raise Refused("unterminated variable reference (make stops here: no closing "
                                  f"{')' if c == '(' else '}'})", text.pos(j))
                out.add(self.reference(text.piece(j + 2, end), text.pos(j), s[j: end + 1], depth))
                k = end + 1
            elif c:
                out.add(self.variable(c, text.pos(j), f"${c}", depth))
                k = j + 2
            else:
                k = j + 1
            start = k
            if len(out.s) > MAX_SIZE:
                raise Refused(f"the expansion grows past {MAX_SIZE:,} characters; allowed: a Makefile as people write "
                              "it", text.pos(j))
        out.add(text.piece(start, len(s)))
        return out

    def reference(self, inner: Text, pos: Pos, written: str, depth: int) -> Text:
        self._references += 1
        if self._references > MAX_REFERENCES:
            raise Refused(f"reading the Makefile takes more than {MAX_REFERENCES:,} variable references (values "
                          "that refer to others over and over); allowed: a Makefile as people write it", pos)
        name = re.match(r"[a-z-]+(?=[ \t])", inner.s)
        if name is not None and name.group() in _FUNCTIONS:
            return self.function(name.group(), inner.piece(name.end() + 1, len(inner.s)), pos, written, depth)
        key = self.expand(inner, depth + 1).s
        ref = re.fullmatch(r"([^:]*):([^=]*)=(.*)", key, re.DOTALL)
        if ref is not None:  # $(VAR:a=b), $(VAR:%.o=%.c)
            words = self.variable(ref.group(1), pos, written, depth).s.split()
            a, b = ref.group(2), ref.group(3)
            return Text.at(_pattern(a if "%" in a else f"%{a}", b if "%" in a else f"%{b}", words), pos, False)
        return self.variable(key, pos, written, depth)

    def variable(self, name: str, pos: Pos, written: str, depth: int) -> Text:
        var = self.variables.get(name)
        if var is None:
            if self.strict:
                raise Refused(f"{written}: make variable {name} is not defined, so make would put nothing here; give "
                              f"it: {name}=VALUE in the Makefile, --var {name}=VALUE, or export {name}=VALUE",
                              pos)
            return Text()
        self.used.setdefault(name, var.origin)
        if var.refused is not None:
            raise var.refused
        if not var.recursive:
            return var.value
        if name in self._active:
            raise Refused(f"Recursive variable '{name}' references itself (eventually): make stops here, and so "
                          "does trainjobs", var.value.pos(0) if var.value.anchors else pos)
        self._active.append(name)
        try:
            return self.expand(var.value, depth + 1)
        finally:
            self._active.pop()

    def shell_env(self) -> Mapping[str, str]:
        """The environment of $(shell ...): make runs it in its folder (CURDIR), where the shell's pwd is."""
        curdir = self.variables.get("CURDIR")
        return {**self.env, "PWD": curdir.value.s} if curdir is not None and not curdir.recursive else self.env

    def function(self, name: str, args: Text, pos: Pos, written: str, depth: int) -> Text:
        def arg(k: int, count: int) -> Text:
            start, end = split_args(args.s, count)[k] if k < len(split_args(args.s, count)) else (0, 0)
            return self.expand(args.piece(start, end), depth + 1)

        def value(s: str) -> Text:
            return Text.at(s, pos, False)

        if name == "if":  # only the branch taken is expanded
            taken = 1 if arg(0, 3).s.strip() else 2
            return arg(taken, 3) if taken < len(split_args(args.s, 3)) else Text()
        if name in ("info", "warning"):
            self.notes.append(f"{where(pos)}: $({name} ...) prints {arg(0, 1).s!r} when make reads it: nothing of "
                              "the job, ignored")
            return Text()
        if name == "error":
            raise Refused(f"$(error ...): make stops here with {arg(0, 1).s!r}", pos)
        if name == "shell":
            try:
                return value(self.shell(arg(0, 1).s, written, self.shell_env(), self.notes))
            except ValueError as exc:
                raise Refused(str(exc), pos) from None
        if name in ("strip", "firstword", "lastword", "words"):
            words = arg(0, 1).s.split()
            return value({"strip": " ".join(words), "firstword": (words or [""])[0],
                          "lastword": (words or [""])[-1], "words": str(len(words))}[name])
        if name == "word":
            n = arg(0, 2).s.strip()
            if not n.isdigit() or int(n) == 0:
                raise Refused(f"$(word {n},...): the first argument must be a number above 0 (make stops here)", pos)
            words = arg(1, 2).s.split()
            return value(words[int(n) - 1] if int(n) <= len(words) else "")
        if name == "subst":
            return value(arg(2, 3).s.replace(arg(0, 3).s, arg(1, 3).s) if arg(0, 3).s else arg(2, 3).s)
        if name == "patsubst":
            return value(_pattern(arg(0, 3).s, arg(1, 3).s, arg(2, 3).s.split()))
        short = written if len(written) <= 60 else f"$({name} ...)"
        raise Refused(f"{short}: make's function {name} is not read here (trainjobs runs nothing and reads no "
                      f"folder); {READ}; write the value instead, or give it with --var NAME=VALUE", pos)
