"""What may come before the gcloud command of a pasted line or script, read as bash runs it (nothing is run).

A command alone before ``&&``, ``;`` or a newline (tests/gcloud/test_words_prelude.py holds each
against a real bash) may be:

* ``NAME=value`` assignments alone: shell variables, set in order (provider.gcloud.words);
* ``export`` or ``declare`` of ``NAME=value`` and ``NAME`` words: for the words of the gcloud
  command, bash sets the variables exactly as plain assignments do, except that every word is
  expanded before any is assigned (``export A=1 B=$A`` gives B the earlier A), and a word is
  brace-expanded, yet neither split nor globbed; a bare ``NAME`` changes no value; an exported
  ``CLOUDSDK_*`` variable (a gcloud property that gcloud reads from its environment) is refused;
* ``set`` of the options that change nothing bash reads in the gcloud line (``set -e``, ``set
  -euo pipefail``, ``-x``...); with ``-u`` (nounset) bash stops at an unset ``$VAR``, so its own
  message ("unbound variable") is given.

``gcloud config set PROPERTY VALUE`` and ``gcloud auth login`` are read by provider.gcloud.properties.
``#`` lines (``#!/bin/bash``) are comments to bash, and so here. Anything else before the gcloud
command (``cd``, ``readonly``, an option of export, ``set -f``...) is refused with its name.
"""

from __future__ import annotations

import re
from pathlib import Path

from provider.gcloud.word_checks import Word, expansion, shown

# What a command line may hold, said after any refusal (provider.cli.convert_gcloud).
ALLOWED = ("quotes, \\-newline, $'...', $VAR, ${VAR} and ${VAR:-word} (also -, :+, +, :=, =, :?, ?) from the "
           "environment, $(date +FORMAT), $(gcloud config get-value PROPERTY), NAME=value assignments, export/declare "
           "NAME=value, set -euo pipefail and gcloud config set PROPERTY VALUE alone before &&, ; or a newline (bash "
           "runs them before the gcloud command), cat > FILE <<EOF (a here-document) before it for the file its "
           "--config names, and echo, printf, :, true, sleep N or date before or after it (they change nothing in the "
           "job)")
# Control operators and redirections, longest first: a message names the one the user wrote.
OPERATORS = sorted(((op, what) for what, ops in (("a second command", "&& || ; &"), ("a pipe", "|& |"),
                                                 ("a redirection", "&>> &> >> >& >| <<< << <& <> < >"),
                                                 ("a case clause", ";;"), ("a subshell or group ( ... )", "( )"))
                    for op in ops.split()), key=lambda pair: -len(pair[0]))
# What may end a command before the gcloud one: bash then runs the next (NAME=v && gcloud ...).
THEN = ("&&", ";", "\n")
BEFORE = " (only NAME=value assignments, export NAME=value, set options and gcloud config set PROPERTY VALUE may " \
         "come before it: bash runs them before the gcloud command)"
DECLARING = ("export", "declare")  # bash's declaration builtins that only set variables, written without options
BUILTINS = (*DECLARING, "set")

# bash's reserved words that begin a compound command, as the first word of a command (unquoted): named as such.
RESERVED = {"if": "an if block (if ...; then ...; fi)", "for": "a for loop (for ...; do ...; done)",
            "select": "a select loop (select ...; do ...; done)", "while": "a while loop (while ...; do ...; done)",
            "until": "an until loop (until ...; do ...; done)", "case": "a case block (case ... in ... esac)",
            "function": "a function definition (function NAME { ... })", "[[": "a [[ ... ]] test",
            "{": "a group ({ ...; })"}
RESERVED.update(dict.fromkeys(("then", "elif", "else", "fi"), RESERVED["if"]))
RESERVED.update(dict.fromkeys(("do", "done"), "a loop (for, while or until ...; do ...; done)"))
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def reserved(word: str) -> str:
    """Why the reserved word ``word`` (a key of RESERVED), beginning a command, is not read."""
    return (f"'{word}' begins {RESERVED[word]}: trainjobs reads a script's commands one after the other, not bash's "
            "compound commands, whose branches and passes depend on what runs; give the gcloud command at the top "
            "level of the script, after the variables it uses (the values of one branch or one pass written out)")
# set's options that change nothing in how bash reads the gcloud line (nounset only its message), by letter.
# Not allexport (-a): it would export every later assignment, CLOUDSDK_* ones too, to gcloud's environment.
_LETTERS = {"e": "errexit", "u": "nounset", "x": "xtrace", "v": "verbose", "E": "errtrace",
            "T": "functrace", "P": "physical", "h": "hashall", "b": "notify"}
_OPTIONS = (*_LETTERS.values(), "pipefail")
_SET_ALLOWED = ("allowed: set -e, -u, -x, -v, -E, -T, -P, -h, -b and -o with " + ", ".join(_OPTIONS) +
                " (each also with +)")


class Refused(ValueError):
    """A command before the gcloud one that is not read; ``word`` is the index of the word to blame."""

    def __init__(self, message: str, word: int) -> None:
        super().__init__(message)
        self.word = word


def undefined(name: str, nounset: bool) -> str:
    """What is said of ``$NAME`` when NAME is not set: bash's own message after ``set -u``."""
    if nounset:
        return (f"bash would stop here with '{name}: unbound variable' (set -u is on); export {name}=... first, "
                f"or write ${{{name}:-default}}")
    return (f"${name} is not defined in the environment (bash would silently drop it); export {name}=... first, "
            f"or write ${{{name}:-default}}")


def problem(builtin: str, word: Word, cwd: Path, assignment: bool) -> str | None:
    """Why a finished word of the command whose first word is ``builtin`` ("" if none) is not read, or None."""
    declaring = builtin in DECLARING
    found = expansion(word, cwd, assignment, braced=declaring)
    return declared(builtin, word.text, assignment) if found is None and declaring else found


def declared(builtin: str, text: str, assignment: bool) -> str | None:
    """Why a word after ``export``/``declare`` is not read (None: a NAME=value assignment or a NAME)."""
    name = text.partition("=")[0]
    if builtin == "export" and name.startswith("CLOUDSDK_") and (assignment or _NAME.fullmatch(text)):
        return (f"export {name} sets a gcloud property for the gcloud command (gcloud reads CLOUDSDK_* from its "
                "environment), which is not read here; give it as the command's flag (--region, --project...)")
    if assignment or _NAME.fullmatch(text):
        return None
    if re.fullmatch(r"[-+][A-Za-z]+", text):
        return (f"{builtin} {shown(text)}: the options of {builtin} are not read; write {builtin} NAME=value, "
                f"or the assignment NAME=value alone")
    return (f"{builtin} takes NAME=value (the name and = unquoted) or NAME, and {shown(text)} is neither; end the "
            f"{builtin} with &&, ; or a newline before the gcloud command")


def ran(words: list[str], nounset: bool) -> bool:
    """Check a command of BUILTINS before the gcloud one; return whether ``set -u`` is on after it, or Refused."""
    builtin, args = words[0], words[1:]
    if not args:
        raise Refused(f"{builtin} alone prints the shell's variables or options, not part of one gcloud command; "
                      "give the gcloud command alone", 0)
    if builtin in DECLARING:
        return nounset  # its words were checked as they were read (declared)
    k = 0
    while k < len(args):
        arg, k = args[k], k + 1
        if arg[:1] not in "-+" or arg in ("-", "--", "+", "+-", "-+"):
            raise Refused(f"set {shown(arg)} would set the positional parameters ($1, $2...), which are not read; "
                          f"{_SET_ALLOWED}", k)
        for letter in arg[1:]:
            name = _LETTERS.get(letter)
            if letter == "o":
                if k == len(args):
                    raise Refused(f"set {arg} without an option's name prints the options; {_SET_ALLOWED}", k)
                name, k = args[k], k + 1
            if name not in _OPTIONS:
                said = f"-o {shown(args[k - 1])}" if letter == "o" else f"{arg[0]}{letter}"
                raise Refused(f"set {said} is not read: it changes how bash reads or runs what follows; "
                              f"{_SET_ALLOWED}", k)
            if name == "nounset":
                nounset = arg[0] == "-"
    return nounset
