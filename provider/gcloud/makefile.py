"""A Makefile read as GNU make 4.3 reads it, statically: its variables, conditionals, includes and rules, and the
recipe of a target expanded as ``make -n TARGET`` prints it (tests/gcloud/test_makefile.py holds each against the
real make). Nothing is run.

* Lines: ``#`` comments (``\\#`` a ``#``), backslash-newline outside a recipe is one space (the whitespace around it
  too); a recipe line begins with a tab (or ``.RECIPEPREFIX``'s character) after a rule, keeps its backslash-newlines
  and loses the tab that begins the next line, as make hands it to the shell.
* Variables (provider.gcloud.make_expand expands them): ``=`` (recursive), ``:=`` and ``::=`` (simple), ``?=`` (only
  if not defined: the environment defines it), ``+=``, with ``override``, ``export`` and ``unexport``; ``export`` and
  ``unexport`` of names; the environment's variables, below the file's; the command line's (``--var NAME=VALUE``),
  above the file's unless ``override``. A variable's value keeps its trailing spaces, as make keeps them.
* ``ifeq``/``ifneq`` (both of make's spellings), ``ifdef``/``ifndef``, ``else``, ``endif``: evaluated (their text
  expanded; what cannot be known there is refused by name); ``include``/``-include``/``sinclude`` FILE: read from the
  Makefile's folder with the read checks of a spec (provider.document.files: size, a symlink only inside the
  repository), ``-include`` of a missing file being nothing.
* Rules: ``TARGETS: PREREQUISITES [; RECIPE]``, their targets and prerequisites expanded when read; a later recipe
  for the same target replaces the earlier one (make warns, a note says so).
* Refused by name, at its line and column: ``define``, ``!=``, a target's own variables (``t: VAR = x``),
  ``.ONESHELL``, ``load``, and any line make itself would stop at ("missing separator").
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path

from provider.core.record import Record, field
from provider.gcloud.make_expand import Expander, Pos, Refused, Text, Var, closing

_NAME = re.compile(r"[^\s:#=$]+")
_ASSIGN = re.compile(r"(?P<name>[^\s:#=?+!]+)\s*(?P<op>:::=|::=|:=|\?=|\+=|!=|=)")
_MODIFIERS = ("override", "export", "unexport", "private")
_CONDITIONALS = ("ifeq", "ifneq", "ifdef", "ifndef", "else", "endif")
MAX_LINES = 20000
MAX_INCLUDES = 20
Reader = Callable[[Path, str], str]  # a file's text, or Refused


class Rule(Record, frozen=False):
    """A target's rule: where it was first written, its prerequisites and its recipe's lines as written."""

    target: str
    pos: Pos
    prerequisites: list[str] = field(default_factory=list)
    recipe: list[Text] = field(default_factory=list)
    fresh: bool = False  # a rule line was read again: its next recipe line replaces the recipe
    unknown: Refused | None = None  # why its prerequisites cannot be known here

    def extend(self, line: Text, notes: list[str]) -> None:
        if self.fresh and self.recipe:
            pos = line.pos(0)
            notes.append(f"{pos[0]}:{pos[1]}: a second recipe for {self.target}: make runs this one, not the one "
                         f"at line {self.recipe[0].pos(0)[1]} (make warns: overriding recipe)")
            self.recipe = []
        self.fresh = False
        self.recipe.append(line)


def _strip_comment(line: str) -> str:
    """The line without its ``#`` comment (``\\#`` stays, as a ``#``)."""
    k = 0
    while (k := line.find("#", k)) >= 0:
        slashes = len(line[:k]) - len(line[:k].rstrip("\\"))
        if slashes % 2 == 0:
            return line[:k].replace("\\#", "#")
        k += 1
    return line.replace("\\#", "#")


def _continues(line: str) -> bool:
    return (len(line) - len(line.rstrip("\\"))) % 2 == 1


def _colon(s: str) -> int:
    """The index of a rule line's first ``:`` outside ``$(...)``, or -1."""
    k = 0
    while k < len(s):
        if s[k] == "$" and s[k + 1: k + 2] in ("(", "{"):
            end = closing(s, k)
            k = end + 1 if end > 0 else len(s)
            continue
        if s[k] == ":":
            return k
        k += 1
    return -1


def _assignable(name: str, op: str, pos: Pos, op_pos: Pos) -> None:
    """Refused: an assignment this reading does not take."""
    if "$" in name:
        raise Refused(f"{name}: a variable whose name is computed is not read here; name it as written", pos)
    if op == "!=":
        raise Refused(f"{name} != ... runs its value as a shell command when make reads it: trainjobs never runs "
                      "commands; write the value", op_pos)
    if op == ":::=":
        raise Refused(f"{name} :::= ... (POSIX's immediate-with-escape assignment) is not read; write := or =", op_pos)


class Makefile:
    """A Makefile's variables and rules as make has them once the file is read."""

    def __init__(self, env: Mapping[str, str], command_line: Mapping[str, str], cwd: Path,
                 shell: Callable[[str, str, Mapping[str, str], list[str]], str], read: Reader) -> None:
        self.notes: list[str] = []
        self.vars: dict[str, Var] = {}
        for name, value in env.items():
            if _NAME.fullmatch(name) and name not in ("SHELL", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
                self.vars[name] = Var(Text.at(value, (f"the environment's ${name}", 0, 0)), True, "environment",
                                     inherited=True)
        defaults = {"MAKE": "make", "SHELL": "/bin/sh", "CURDIR": str(cwd), "RM": "rm -f", ".RECIPEPREFIX": "",
                    "MAKEFLAGS": "", "MAKEFILE_LIST": "", "MAKECMDGOALS": ""}
        for name, value in defaults.items():
            self.vars[name] = Var(Text.at(value, ("make's default", 0, 0)), False, "default")
        for name, value in command_line.items():
            self.vars[name] = Var(Text.at(value, (f"--var {name}", 0, 0)), True, "command line", inherited=True)
        self.rules: dict[str, Rule] = {}
        self.order: list[str] = []
        self.export_all = False
        self.expander = Expander(self.vars, env, self.notes, shell)
        self.read = read
        self._includes = 0

    # -- reading -------------------------------------------------------------------------------------------------

    def load(self, text: str, shown: str, folder: Path) -> None:
        lines = text.replace("\r\n", "\n").split("\n")  # make reads a CR before LF as nothing
        if len(lines) > MAX_LINES:
            raise Refused(f"the Makefile has {len(lines):,} lines; allowed: up to {MAX_LINES:,}", (shown, 1, 1))
        self.vars["MAKEFILE_LIST"].value.s += f" {shown}"
        stack: list[list[bool]] = []  # per open conditional: [active now, a branch was taken, parent active]
        rule: list[Rule] = []  # the rules whose recipe the next recipe lines extend
        i = 0
        while i < len(lines):
            raw, number = lines[i], i + 1
            active = all(level[0] for level in stack)
            prefix = self.vars[".RECIPEPREFIX"].value.s[:1] or "\t"
            if rule and raw.startswith(prefix):
                parts, anchors = [raw[1:]], [(0, (shown, number, 2), True)]
                while _continues(parts[-1]) and i + 1 < len(lines):
                    i += 1
                    nxt = lines[i]
                    cut = 1 if nxt.startswith(prefix) else 0
                    anchors.append((sum(len(p) + 1 for p in parts), (shown, i + 1, 1 + cut), True))
                    parts.append(nxt[cut:])
                i += 1
                if active:
                    for r in rule:
                        r.extend(Text("\n".join(parts), list(anchors)), self.notes)
                continue
            acc, anchors = raw, [(0, (shown, number, 1), True)]
            while _continues(acc) and i + 1 < len(lines):
                i += 1
                nxt = lines[i].lstrip()
                acc = acc[:-1].rstrip() + " "
                anchors.append((len(acc), (shown, i + 1, len(lines[i]) - len(nxt) + 1), True))
                acc += nxt
            i += 1
            line = Text(_strip_comment(acc), anchors)
            body = line.s.strip()
            if not body:
                continue
            indent = len(line.s) - len(line.s.lstrip())
            word = body.split(None, 1)[0]
            if word in _CONDITIONALS:
                self._conditional(word, line.piece(indent + len(word), len(line.s)), stack, line.pos(indent))
                continue
            if not active:
                continue
            rule = self._line(line.piece(indent, len(line.s)), folder, raw.startswith(prefix))
        if stack:
            raise Refused("missing 'endif' (make stops here: an ifeq, ifneq, ifdef or ifndef is never closed)",
                          (shown, len(lines), 1))

    def _conditional(self, word: str, rest: Text, stack: list[list[bool]], pos: Pos) -> None:
        if word == "endif":
            if not stack:
                raise Refused("extraneous 'endif' (make stops here)", pos)
            stack.pop()
            return
        if word == "else":
            if not stack or stack[-1][2]:
                raise Refused("extraneous 'else' (make stops here)", pos)
            level = stack.pop()
            inner = rest.s.strip()
            if inner.split(None, 1)[:1] and inner.split(None, 1)[0] in ("ifeq", "ifneq", "ifdef", "ifndef"):
                head = inner.split(None, 1)[0]
                at = rest.s.index(head) + len(head)
                taken = level[1]
                stack.append([False, taken, False])
                if not taken and all(s[0] for s in stack[:-1]):
                    stack[-1][0] = stack[-1][1] = self._test(head, rest.piece(at, len(rest.s)), pos)
                return
            stack.append([not level[1], True, True])
            return
        if not all(s[0] for s in stack):
            stack.append([False, True, False])  # inside a branch not taken: not evaluated
            return
        result = self._test(word, rest, pos)
        stack.append([result, result, False])

    def _test(self, word: str, rest: Text, pos: Pos) -> bool:
        ex = self.expander
        ex.strict = False
        if word in ("ifdef", "ifndef"):
            name = ex.expand(rest).s.strip()
            var = self.vars.get(name)
            defined = var is not None and var.value.s != ""
            return defined if word == "ifdef" else not defined
        s = rest.s.strip()
        at = rest.s.index(s[0]) if s else 0
        pair: tuple[tuple[int, int], tuple[int, int]] | None = None
        if s.startswith("(") and s.endswith(")"):
            depth, comma = 0, -1
            for k, c in enumerate(s[1:-1], 1):
                depth += c in "({"
                depth -= c in ")}"
                if c == "," and depth == 0:
                    comma = k
                    break
            if comma > 0:
                pair = ((at + 1, at + comma), (at + comma + 1, at + len(s) - 1))
        else:
            quoted = re.fullmatch(r"""(["'])(.*?)\1\s+(["'])(.*)\3""", s, re.DOTALL)
            if quoted is not None:
                pair = ((at + quoted.start(2), at + quoted.end(2)), (at + quoted.start(4), at + quoted.end(4)))
        if pair is None:
            raise Refused(f"invalid syntax in conditional: {word} takes (A,B), \"A\" \"B\" or 'A' 'B' (make stops "
                          "here)", pos)
        (start1, end1), (start2, end2) = pair
        if s.startswith("("):  # make strips the blanks after the first argument and before the second
            end1 = start1 + len(rest.s[start1:end1].rstrip())
            start2 = end2 - len(rest.s[start2:end2].lstrip())
        return (ex.expand(rest.piece(start1, end1)).s == ex.expand(rest.piece(start2, end2)).s) == (word == "ifeq")

    def _line(self, line: Text, folder: Path, tabbed: bool) -> list[Rule]:
        """Read one logical line that is not a recipe line nor a conditional; the rules a recipe line would extend."""
        s = line.s
        word = s.split(None, 1)[0]
        if word in ("include", "-include", "sinclude"):
            self._include(word, line.piece(len(word), len(s)), folder, line.pos(0))
            return []
        if word == "vpath":
            return []  # where make looks for prerequisites: nothing of a recipe
        if word in ("define", "load"):
            raise Refused(f"{word} is not read here; write the variable on one line (NAME = value)" if word == "define"
                          else f"{word} is not read here", line.pos(0))
        mods, k = [], 0
        while (m := re.match(r"(override|export|unexport|private)(\s+|$)", s[k:])) is not None:
            mods.append(m.group(1))
            k += m.end()
        assign = _ASSIGN.match(s, k)
        if assign is not None and ":" not in s[k: assign.start("op")]:
            self._assign(assign.group("name"), assign.group("op"), line.piece(assign.end(), len(s)), mods,
                         line.pos(k), line.pos(assign.start("op")))
            return []
        if mods:
            names = self.expander.expand(line.piece(k, len(s))).s.split()
            if not names and mods == ["export"]:
                self.export_all = True
            for name in names:
                if name in self.vars:
                    self.vars[name].exported = mods[-1] == "export"
                elif mods[-1] == "export":
                    self.vars[name] = Var(Text(), True, "file", True)  # its value comes later
            return []
        if tabbed:  # a recipe line where no rule's recipe goes on (make reads it only as NAME = value or a directive)
            raise Refused("recipe commences before first target (make stops here: a line that begins with a tab "
                          "belongs to a rule's recipe, and no rule's recipe goes on here)", line.pos(0))
        return self._rule(line.piece(k, len(s)))

    def _assign(self, name: str, op: str, value: Text, mods: list[str], pos: Pos, op_pos: Pos) -> None:
        _assignable(name, op, pos, op_pos)
        start = len(value.s) - len(value.s.lstrip())
        value = value.piece(start, len(value.s))
        old = self.vars.get(name)
        if old is not None and old.origin in ("command line", "override") and "override" not in mods:
            return  # the command line's value (or an override's) wins over the file's
        exported = True if "export" in mods else False if "unexport" in mods else old.exported if old else None
        inherited = old is not None and old.inherited
        origin = "override" if "override" in mods else "file"
        ex = self.expander
        ex.strict = False
        if op == "?=":
            if old is None:
                self.vars[name] = Var(value, True, origin, exported, inherited)
            return
        if op == "+=" and old is not None and old.value.s:
            added = value if old.recursive else ex.expand(value)
            joined = Text(old.value.s, list(old.value.anchors))
            joined.add(Text.at(" ", pos))
            joined.add(added)
            self.vars[name] = Var(joined, old.recursive, origin, exported, inherited)
            return
        recursive = op in ("=", "?=") or (op == "+=" and (old is None or old.recursive))
        self.vars[name] = Var(value, True, origin, exported, inherited) if recursive else \
            self._simple(value, origin, exported, inherited)

    def _simple(self, value: Text, origin: str, exported: bool | None, inherited: bool) -> Var:
        """A := variable, its value expanded now (one make computes by running something: refused where used)."""
        try:
            return Var(self.expander.expand(value), False, origin, exported, inherited)
        except Refused as exc:
            return Var(value, False, origin, exported, inherited, exc)

    def _rule(self, line: Text) -> list[Rule]:
        s = line.s
        colon = _colon(s)
        self.expander.strict = False
        if colon < 0 and not self.expander.expand(line).s.strip():
            return []  # a line that expands to nothing ($(info ...), $(if ...)): make reads on
        if colon < 0:
            raise Refused("missing separator (make stops here: this line is no rule, no NAME = value and no "
                          "directive make knows)", line.pos(0))
        after = colon + (2 if s[colon + 1: colon + 2] == ":" else 1)
        recipe: Text | None = None
        semi = s.find(";", after)
        head = line.piece(after, semi if semi >= 0 else len(s))
        if semi >= 0:
            recipe = line.piece(semi + 1, len(s))
        if _ASSIGN.search(head.s) and re.search(r"(?:^|\s)[^\s=]+\s*(?::{0,3}=|\?=|\+=|!=)", head.s):
            raise Refused("a target's own variable (TARGET: NAME = value) is not read here; set the variable for the "
                          "whole Makefile", head.pos(0))
        self.expander.strict = False
        targets = self.expander.expand(line.piece(0, colon)).s.split()
        unknown: Refused | None = None
        try:
            prerequisites = [p for p in self.expander.expand(head).s.split() if p != "|"]
        except Refused as exc:  # matters only if the target converted depends on it
            prerequisites, unknown = [], exc
        rules = [self._target(target, line.pos(0), prerequisites, unknown) for target in targets]
        if recipe is not None and recipe.s.strip():
            for rule in rules:
                rule.extend(recipe, self.notes)
        return rules

    def _target(self, target: str, pos: Pos, prerequisites: list[str], unknown: Refused | None) -> Rule:
        """The rule of ``target``, its rule line read once more."""
        if target == ".ONESHELL":
            raise Refused(".ONESHELL (the whole recipe run as one script) is not read here; end each line of the "
                          "recipe that goes on in the next with \\", pos)
        if target == ".EXPORT_ALL_VARIABLES":
            self.export_all = True
        rule = self.rules.get(target)
        if rule is None:
            rule = self.rules[target] = Rule(target, pos)
            self.order.append(target)
        rule.fresh = True
        rule.prerequisites += prerequisites
        rule.unknown = rule.unknown or unknown
        return rule

    def _include(self, word: str, names: Text, folder: Path, pos: Pos) -> None:
        self.expander.strict = False
        for name in self.expander.expand(names).s.split():
            self._includes += 1
            if self._includes > MAX_INCLUDES:
                raise Refused(f"more than {MAX_INCLUDES} includes (one file including itself?); allowed: a few",
                              pos)
            path = folder / name
            if not path.exists() and not path.is_symlink():
                if word != "include":
                    continue  # -include: a missing file is nothing
                raise Refused(f"include {name}: no such file in {folder or '.'} (make stops here; -include would go "
                              "on without it)", pos)
            try:
                text = self.read(path, name)
            except ValueError as exc:
                raise Refused(str(exc), pos) from None
            self.load(text, os.path.normpath(str(Path(pos[0]).parent / name)), path.parent)
