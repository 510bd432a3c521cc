"""``envsubst < TEMPLATE > FILE`` before the training command, and ``envsubst < TEMPLATE | gcloud ...
--config=-``: the file (or standard input) its --config reads, read as GNU gettext's envsubst writes it.

envsubst copies its standard input to its standard output, each ``$NAME`` and ``${NAME}`` (NAME: a letter or ``_``,
then letters, digits, ``_``) replaced by the value of the environment variable NAME, and by nothing when it is not
set; nothing else is read (no ``\\$``, no ``${NAME:-word}``: they stay as written). With a SHELL-FORMAT argument
(``envsubst '$A ${B}'``), only the variables that it names are replaced, the others stay as written
(tests/gcloud/test_envsubst.py holds each form against the real envsubst).

envsubst sees the environment of the script's process: what the script exported (``export NAME=value``, ``export
NAME``), the variables it was started with, and ``NAME=value envsubst ...``'s own. So each variable replaced is read
from there (provider.gcloud.sequence keeps what the script exported), named in a note; one that the script sets
without exporting it (envsubst replaces it by nothing, where the script meant its value) or that is not known here
(the environment of the machine that runs the script) is refused by name, at the template's line; so is one whose
name looks secret (the file goes into the committed spec). The text is then read as a here-document's is
(provider.gcloud.heredoc): the file the --config names, its problems at the template's own lines.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from pathlib import Path

from provider.core.secret_names import looks_secret
from provider.gcloud import heredoc, prelude, redirection, substitution
from provider.gcloud.word_checks import shown

_REFERENCE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_GIVES = "an input redirection (<) gives the command a file as its standard input"
READ = ("of commands that give a command its standard input, only envsubst [SHELL-FORMAT] < TEMPLATE > FILE before "
        "the training command (for the file its --config names) and envsubst [SHELL-FORMAT] < TEMPLATE | gcloud ai "
        "custom-jobs create ... --config=- are read")


class Refused(ValueError):
    """An envsubst (or another command given a file as its standard input) that is not read; ``word``: the index of
    the command's word to blame (-1: the < itself)."""

    def __init__(self, message: str, word: int = 0) -> None:
        super().__init__(message)
        self.word = word


def names(fmt: str) -> set[str]:
    """The variables a SHELL-FORMAT argument names (``'$A ${B}'``)."""
    return {m.group(1) or m.group(2) for m in _REFERENCE.finditer(fmt)}


def substitute(text: str, only: Collection[str] | None, value: Mapping[str, str | None]) -> tuple[str, list[str]]:
    """``text`` as envsubst writes it (``only``: the SHELL-FORMAT's names, None: every variable), with ``value``'s
    values (None or missing: unset, replaced by nothing), and the names replaced, in order."""
    used: list[str] = []

    def one(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        if only is not None and name not in only:
            return m.group(0)
        if name not in used:
            used.append(name)
        return value.get(name) or ""

    return _REFERENCE.sub(one, text), used


def read(source: str, cwd: Path, who: str = "envsubst") -> str:
    """The text of the file ``source`` (read from ``cwd``) a command reads as its standard input; Refused."""
    try:
        return (cwd / source).read_bytes().decode("utf-8")
    except OSError as exc:
        raise Refused(f"{who} reads {source} (< {source}), which cannot be read here ({exc.strerror}): run trainjobs "
                      "convert from the folder the script runs in, with the file beside it") from None
    except UnicodeDecodeError:
        raise Refused(f"{who} reads {source} (< {source}), which is not UTF-8 text") from None


def template(words: list[str], source: str, cwd: Path) -> tuple[str, set[str] | None]:
    """The text of the template ``source`` the command ``words`` (envsubst [SHELL-FORMAT]) reads, and the names of
    its SHELL-FORMAT (None: none given); Refused."""
    if words[:1] != ["envsubst"]:
        who = shown(words[0]) if words else "no command"
        raise Refused(f"{_GIVES}: {who} would run with it, and trainjobs never runs a command", -1)
    if len(words) > 2 or any(w.startswith("-") for w in words[1:]):
        bad = next((k for k, w in enumerate(words) if k and (w.startswith("-") or k > 1)), 1)
        raise Refused(f"envsubst {shown(words[bad])} is not read: envsubst writes a template with the environment's "
                      "values (envsubst < TEMPLATE, envsubst 'SHELL-FORMAT' < TEMPLATE)", bad)
    return read(source, cwd), names(words[1]) if len(words) == 2 else None


def fed(words: list[str], source: str, op: str, outputs: list[tuple[str, str]], cwd: Path, line: int,
        known: Mapping[str, str], exported: Collection[str], plain: dict[str, str],
        env: Mapping[str, str]) -> tuple[str, str, str]:
    """The command ``words`` (of line ``line``, ended by ``op``, its output redirections ``outputs``) given the file
    ``source`` as its standard input: where what it writes goes (a file; ``-``: the next command's standard input;
    ``<``: it is the training command, with --config -), the text, and a note; Refused."""
    if substitution.creates(words) and (target := heredoc.stdin_config(words)) is not None:
        return "<", read(source, cwd, "the training command"), (
            f"line {line}: < {source} is the training command's standard input, which its --config {target} reads: "
            "read as that file")
    if words[:1] == ["gcloud"]:
        raise Refused(f"{_GIVES}: gcloud may read its standard input (a prompt's answer, a flag's value given as -), "
                      "which is not read here; as its config only for --config - of gcloud ai custom-jobs create (or "
                      f"--config /dev/stdin of a training command): write --config={source}", -1)
    text, only = template(words, source, cwd)
    written_to = [t for what, t in outputs if what.startswith("stdout is written to") and t]
    if op in redirection.PIPES and not outputs:
        into = "-"
    elif op in prelude.THEN and len(outputs) == len(written_to) == 1:
        into = written_to[0]
    else:
        raise Refused("envsubst is read where it writes one file (envsubst < TEMPLATE > FILE, before the training "
                      "command) or into the training command (envsubst < TEMPLATE | gcloud ... --config=-): "
                      f"{'; '.join(what for what, _ in outputs) or 'stdout is printed'} here")
    text, said = written(text, only, source, known, exported, plain, env)
    return into, text, note(line, source, into, said)


def piped(words: list[str]) -> str:
    """Why envsubst's output piped into the command ``words`` is not read."""
    who = shown(" ".join(words[:4])) if words else "no command"
    return (f"envsubst's output is piped into {who}: only a training command whose --config reads its standard input "
            "(gcloud ai custom-jobs create --config=-, --config=/dev/stdin) is read after it")


def written(text: str, only: set[str] | None, source: str, known: Mapping[str, str], exported: Collection[str],
            plain: dict[str, str], env: Mapping[str, str]) -> tuple[str, str]:
    """The template ``text`` (of ``source``) as envsubst writes it, with the values of the variables ``known`` to
    the script (``exported``: those envsubst sees), and what a note says of them; ``plain`` gets those read from the
    environment ``env``; Refused for a variable that is not known, not exported, or secret."""
    _, used = substitute(text, only, {})
    said = []
    for name in used:
        at = next(k for k, line in enumerate(text.split("\n"), 1) if re.search(
            rf"\$(\{{{name}\}}|{name}(?![A-Za-z0-9_]))", line))
        where = f"{source}:{at}: ${name}"
        if looks_secret(name):
            raise Refused(f"{where}: envsubst writes its value, whose name looks secret, into the file, which would go "
                          "into the committed spec; give it to the job another way (Secret Manager, the environment "
                          "of the container), or leave it out of the template")
        if name not in known:
            raise Refused(f"{where} is not set in the script nor in the environment: envsubst would write the value of "
                          f"the environment of the machine that runs the script (nothing where unset), not known here; "
                          f"export {name}=VALUE before envsubst")
        if name not in exported:
            raise Refused(f"{where} is set in the script but not exported: envsubst sees only the environment, so it "
                          f"writes nothing there; write export {name} (or export {name}=VALUE) before envsubst")
        if name in env and known[name] == env[name]:
            plain[name] = env[name]
        said.append(f"${name}={known[name]!r}")
    out, _ = substitute(text, only, known)
    return out, ", ".join(said) or "no variable"


def note(line: int, source: str, target: str, said: str) -> str:
    """The note for ``envsubst < SOURCE`` (line ``line``) written to ``target``: a file, or ``-`` (piped)."""
    into = "into gcloud's standard input, which its --config - reads" if target in ("-", "/dev/stdin") else (
        f"into {target}, for the --config that names it")
    return f"line {line}: envsubst writes {source} {into}, with {said} replaced: read as envsubst writes it"
