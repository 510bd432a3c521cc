"""The target of a Makefile whose recipe submits the training job, and that recipe as the shell script make runs.

The target is the one given (``--target NAME``), else the one target whose recipe holds a training command (``gcloud
ai-platform jobs submit training``, ``gcloud ai custom-jobs create``, ``gcloud ai hp-tuning-jobs create``, written or
coming from a variable); several, or none, are refused naming each (none: the targets that run other gcloud commands,
such as ``gcloud ai-platform local train``, are named). A prerequisite's recipe runs first: one that submits a training
job too is refused (make would submit both), any other is named in a note (``submit: build`` builds an image first:
nothing of the job).

The recipe's lines are expanded as make expands them (provider.gcloud.makefile), their ``@``, ``-`` and ``+`` taken off,
exactly what ``make -n TARGET`` prints; the text they make is the shell script that provider.gcloud.words reads, as
``convert train.sh`` reads one. Each line placed at its line of the Makefile, so a note's ``line N`` is the
Makefile's. make runs each line in a shell of its own: a line before the training command's that sets what a later
line would read (``X=1``, ``export``, ``cd``, ``set``) is refused by name, since the training command's shell never
sees it. The make variables the shell reads as ``$NAME`` (exported ones: from the environment, the command line, or
``export``) are its environment.
"""

from __future__ import annotations

import re

from provider.core.errors import UserError
from provider.core.record import Record, field
from provider.core.secret_names import looks_secret
from provider.gcloud.cloud_build import TRAINING
from provider.gcloud.make_expand import Refused, Text, where
from provider.gcloud.makefile import Makefile, Rule

_GCLOUD = re.compile(r"(?:^|[\s;&|(`@+-])gcloud\s+([^\n;&|]*)")
_STATE = re.compile(r"[ \t]*(?:(export|declare|typeset|readonly|set|unset|cd|pushd|source|\.|alias)(?:[ \t]|$)|"
                    r"([A-Za-z_][A-Za-z0-9_]*)=)")
_SHELL_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
MAX_DEPTH = 200


def _trains_text(s: str) -> bool:
    s = s.replace("\\\n", " ")
    return TRAINING.search(s) is not None and re.search(r"(?:^|[^A-Za-z0-9_/.-])gcloud\s", s) is not None


class Recipe(Record, frozen=False):
    """The recipe converted: its target, the shell script it is, where each line of it was written, its shell's
    environment, and the notes on what was read."""

    target: str
    script: str
    pieces: list[tuple[int, Text]] = field(default_factory=list)  # where each line begins in the script
    env: dict[str, str | None] = field(default_factory=dict)  # what the shell's environment holds otherwise (None: not)
    notes: list[str] = field(default_factory=list)

    def pos(self, offset: int) -> str:
        """The Makefile's file:line:column of the index ``offset`` of the script."""
        start, text = next(((s, t) for s, t in reversed(self.pieces) if s <= offset), self.pieces[0])
        return where(text.pos(max(0, min(offset - start, len(text.s) - 1))))


class Chooser:
    def __init__(self, mk: Makefile, shown: str) -> None:
        self.mk, self.shown = mk, shown

    def trains(self, rule: Rule) -> bool:
        """Whether the recipe holds a training command, as written or once expanded (if it can be)."""
        if _trains_text("\n".join(t.s for t in rule.recipe)):
            return True
        mk, kept = self.mk, len(self.mk.notes)
        mk.expander.strict = False
        try:
            return _trains_text("\n".join(mk.expander.expand(t).s for t in rule.recipe))
        except Refused:
            return False
        finally:
            del mk.notes[kept:]

    def choose(self, target: str | None) -> Rule:
        mk = self.mk
        found = [mk.rules[t] for t in mk.order if mk.rules[t].recipe and self.trains(mk.rules[t])]
        named = ", ".join(f"{r.target} ({where(r.pos)})" for r in found) or "none"
        if target is not None:
            rule = mk.rules.get(target)
            if rule is None:
                known = ", ".join(t for t in mk.order if not t.startswith(".")) or "none"
                raise UserError(f"{self.shown}: --target {target}: no rule for target {target!r}; its targets: {known}",
                                exit_code=1)
            if rule not in found:
                raise UserError(f"{where(rule.pos)}: the recipe of target {target} runs no training command; targets "
                                f"whose recipe runs one: {named}", exit_code=1)
            return rule
        if len(found) > 1:
            raise UserError(f"{self.shown}: {len(found)} targets run a training command: {named}; give the one to "
                            "convert with --target NAME", exit_code=1)
        if not found:
            others = [f"{r.target} ({where(t.pos(m.start()))}: gcloud {m.group(1).split('$')[0].strip()[:40]})"
                      for r in (mk.rules[t] for t in mk.order) for t in r.recipe for m in _GCLOUD.finditer(t.s)]
            runs = f"; these recipes run other gcloud commands: {', '.join(others[:5])}" if others else ""
            raise UserError(f"{self.shown}: no target's recipe runs a training command (gcloud ai-platform jobs submit "
                            f"training, gcloud ai custom-jobs create or gcloud ai hp-tuning-jobs create){runs}",
                            exit_code=1)
        return found[0]

    def prerequisites(self, rule: Rule) -> list[str]:
        """Notes on the recipes that run before ``rule``'s; UserError for one that submits a training job too."""
        notes: list[str] = []
        seen = {rule.target}
        pending = [(rule, 0)]
        while pending:
            current, depth = pending.pop()
            if depth > MAX_DEPTH:
                raise UserError(f"{where(current.pos)}: prerequisites nest more than {MAX_DEPTH} levels deep; "
                                "allowed: a Makefile as people write it", exit_code=1)
            if current.unknown is not None:
                raise current.unknown
            for name in current.prerequisites:
                sub = self.mk.rules.get(name)
                if name in seen or sub is None:
                    continue
                seen.add(name)
                pending.append((sub, depth + 1))
                if not sub.recipe:
                    continue
                if self.trains(sub):
                    raise UserError(f"{where(sub.pos)}: target {name}, a prerequisite of {rule.target}, runs a training "
                                    f"command too: make would submit both; convert one target whose prerequisites "
                                    "submit nothing (--target NAME)", exit_code=1)
                first = sub.recipe[0].s.split("\n")[0].strip()
                notes.append(f"{where(sub.pos)}: prerequisite {name} of {rule.target} runs first ({first[:60]}"
                             f"{'...' if len(first) > 60 or len(sub.recipe) > 1 else ''}): not part of the job, not read")
        return notes


_SHELLS = ("/bin/sh", "/bin/bash", "/usr/bin/bash", "/usr/bin/env bash", "bash", "sh")


def _check_environment(mk: Makefile) -> None:
    """Refused: a gcloud property the Makefile gives gcloud through its environment (export CLOUDSDK_...), and a
    recipe shell other than sh or bash."""
    for name, var in mk.vars.items():
        if name.startswith("CLOUDSDK_") and var.origin in ("file", "override") and var.exports(mk.export_all):
            raise Refused(f"export {name} sets a gcloud property for the gcloud command (gcloud reads CLOUDSDK_* from "
                          "its environment), which is not read here; give it as the command's flag (--region, "
                          "--project...)", var.value.pos(0) if var.value.anchors else ("Makefile", 0, 0))
    shell = mk.vars["SHELL"]
    mk.expander.strict = False
    if mk.expander.expand(shell.value).s.strip() not in _SHELLS or ".SHELLFLAGS" in mk.vars:
        said = "SHELL" if ".SHELLFLAGS" not in mk.vars else ".SHELLFLAGS"
        var = mk.vars[said]
        raise Refused(f"{said} = {var.value.s.strip()}: the recipe runs in another shell, or with other options, "
                      f"than sh or bash -c; allowed: SHELL = one of {', '.join(_SHELLS)}",
                      var.value.pos(0) if var.value.anchors else ("Makefile", 0, 0))


def expanded(mk: Makefile, rule: Rule) -> list[tuple[Text, Text]]:
    """The recipe's lines (as written, as make runs them): expanded, ``@-+`` taken off, as ``make -n`` prints them."""
    mk.expander.strict = True
    out = []
    for line in rule.recipe:
        text = mk.expander.expand(line)
        k = 0
        while k < len(text.s) and text.s[k] in "@-+ \t":
            k += 1
        if text.s[k:].strip():
            out.append((line, text.piece(k, len(text.s))))
    return out


def _own_shells(lines: list[tuple[Text, Text]]) -> None:
    """Refused: a line before the training command's that sets what only its own shell sees."""
    for _, text in lines:
        state = _STATE.match(text.s)
        if state is not None:
            what = state.group(1) or f"{state.group(2)}=..."
            raise Refused(f"{what} on a recipe line of its own: make runs each recipe line in a shell of its own, so "
                          "what it sets is gone when the training command's line runs; write it on that line (NAME="
                          "value && gcloud ...), or as a make variable", text.pos(state.start(1) if state.group(1)
                                                                                  else state.start(2)))


def _shell_environment(mk: Makefile, script: str) -> dict[str, str | None]:
    """What the shell's environment holds of the names the script reads, and of the make variables exported (a
    template envsubst reads sees them too: provider.gcloud.envsubst), where it differs from convert's own (None: make
    takes it out)."""
    out: dict[str, str | None] = {}
    mk.expander.strict = False
    exports = [name for name, var in mk.vars.items() if var.origin != "default" and var.exports(mk.export_all)]
    for name in dict.fromkeys([*_SHELL_VARIABLE.findall(script), *exports]):
        var = mk.vars.get(name)
        if var is None or var.origin == "default":
            continue
        exported = var.exports(mk.export_all)
        if var.origin == "environment" and exported:
            continue  # as the environment has it
        out[name] = mk.expander.expand(var.value).s if exported else None
    return out


def recipe(mk: Makefile, shown: str, target: str | None) -> Recipe:
    chooser = Chooser(mk, shown)
    rule = chooser.choose(target)
    notes = chooser.prerequisites(rule)
    mk.expander.used.clear()
    lines = expanded(mk, rule)
    first = next((k for k, (_, t) in enumerate(lines) if _trains_text(t.s)), None)
    if first is None:
        raise UserError(f"{where(rule.pos)}: the recipe of target {rule.target}, as make expands it, runs no training "
                        "command", exit_code=1)
    _own_shells(lines[:first])
    _check_environment(mk)
    out = Recipe(rule.target, "")
    for source, text in lines:
        file, line = source.pos(0)[:2]
        have = out.script.count("\n") + 1
        if file == shown and line > have:
            out.script += "\n" * (line - have)
        out.pieces.append((len(out.script), text))
        out.script += text.s + "\n"
    for name, origin in mk.expander.used.items():
        if looks_secret(name):
            whose = "the environment's" if origin == "environment" else f"make variable ({origin})"
            raise UserError(f"{shown}: $({name}) puts {whose} {name}, named like a secret, into the recipe: a secret's "
                            "value is never written into a spec; give it to the job from the stack (secretEnv) and "
                            "read it in the trainer instead", exit_code=1)
        if origin == "environment":
            out.notes.append(f"make variable {name} is {mk.vars[name].value.s!r}, from the environment")
    out.env = _shell_environment(mk, out.script)
    out.notes = notes + mk.notes + out.notes
    return out
