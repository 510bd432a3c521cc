"""A ``%%bash`` cell's magic line (``%%bash -s "$PROJECT" {REGION}``, ``%%sh``, ``%%script bash``), read as IPython
and bash run it (IPython 8's core/magics/script.py; tests/gcloud/test_notebook_magic.py holds it against IPython).

IPython expands the line after the magic's name as it expands a ``!`` line (var_expand, the notebook's Python
values: provider.gcloud.notebook_expand), splits it as a POSIX shell would (shlex), and takes its own options
wherever they are, as argparse's parse_known_args takes them (a long option may be shortened, ``--o`` for
``--out``): ``--out VAR`` and ``--err VAR`` keep the cell's output in a Python variable, ``--bg`` runs it in the
background (``--proc VAR`` keeps the process), ``--no-raise-error`` lets it fail without an error. None changes
the job: each is noted. The other words go to the program, which reads the cell on its standard input: for
``%%bash`` (``%%sh``) ``bash WORDS``, for ``%%script`` ``WORDS`` (the first of them the program: bash or sh only).

bash's own options: ``-s`` (read the commands from standard input; the words after the options are the
positional parameters ``$1``, ``$2``...), ``-e``, ``-x``, ``-v`` and ``-o pipefail|errexit|xtrace|verbose`` (they
change nothing in the job: noted). A word without ``-s`` is a file bash would run instead of the cell: refused;
any other option is refused by name. ``$1``..``$9``, ``${N}``, ``$#``, ``"$@"`` and ``"$*"`` in the cell are then
written as bash would expand them (quoted, so that the gcloud reader reads each as one word); a value bash would
split or glob, an unset parameter, ``$0`` and ``${N<op>...}`` are refused. The cell so written keeps where each of
its characters was written in the cell (provider.gcloud.spliced): a message about a word after a ``$1`` names its
column in the cell as written.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from provider.core.errors import UserError
from provider.gcloud.spliced import Spliced, Splicer

_LINE = re.compile(r"[ \t]*%%(bash|sh|script)(?=[ \t\n]|\Z)([^\n]*)")
_IPYTHON = ("--out", "--err", "--bg", "--proc", "--no-raise-error")
_VALUED = ("--out", "--err", "--proc")
_SAID = {"--out": "keeps the cell's output in the Python variable {} instead of printing it",
         "--err": "keeps the cell's error output in the Python variable {} instead of printing it",
         "--bg": "runs the cell in the background: the notebook goes on while it runs",
         "--proc": "keeps the background process in the Python variable {}",
         "--no-raise-error": "lets the cell fail without raising an error in the notebook"}
_PROGRAMS = ("bash", "sh", "/bin/bash", "/bin/sh", "/usr/bin/bash", "/usr/bin/sh")
_QUIET = {"e": "errexit", "x": "xtrace", "v": "verbose"}
_PARAMETER = re.compile(r"\$(?:([0-9])|\{([0-9]+)\}|([@*#])|\{([@*#])\}|\{(#?[0-9@*#]+[^}]*)\})")


def read(text: str, expand: Callable[[str, int], str], cell: str) -> tuple[Spliced, list[str]]:
    """The cell as bash reads it (the magic line kept: provider.gcloud.notebook blanks it; each positional
    parameter written as its value, each character's place in ``text`` kept) and the notes; UserError for what
    IPython or bash would not run as the cell.
    ``expand(line, at)``: the magic's words as IPython expands them (``at``: where they begin in the cell);
    ``cell``: the cell, for messages ("nb.ipynb cell 3")."""
    start = len(text) - len(text.lstrip("\n \t"))
    start = text.rfind("\n", 0, start) + 1
    magic = _LINE.match(text, start)
    if magic is None:
        return Spliced(text), []
    where = f"{cell}, line {text.count(chr(10), 0, start) + 1}"
    name, written = magic.group(1), magic.group(2)
    if not written.strip():
        return Spliced(text), []
    expanded = expand(written, magic.start(2))
    try:
        words = shlex.split(expanded)
    except ValueError as exc:
        raise UserError(f"{where}: the %%{name} line {expanded.strip()!r} does not split as IPython splits it "
                        f"({exc}): IPython stops before it runs the cell; allowed: close the quote", exit_code=1) from None
    rest, notes = _ipython_options(words, name, where)
    if name == "script":
        if not rest or rest[0] not in _PROGRAMS:
            program = rest[0] if rest else "nothing"
            raise UserError(f"{where}: %%script {program} runs the cell with {program}, not bash; allowed: %%bash, "
                            f"%%sh, %%script bash or %%script sh", exit_code=1)
        name, rest = rest[0].rsplit("/", 1)[-1], rest[1:]
    parameters, said = _bash_arguments(rest, name, where)
    notes += said
    body = text[magic.end():]
    if parameters is None:
        return Spliced(text), notes
    if parameters:
        notes.append(f"%%{name} -s: " + ", ".join(f"${k} = {v!r}" for k, v in enumerate(parameters, 1))
                     + " (bash's positional parameters, from the magic's words as IPython expanded them)")
    made = positional(body, parameters, cell, text.count("\n", 0, magic.end()))
    return made.after(magic.end(), text[:magic.end()]), notes


def _ipython_options(words: list[str], name: str, where: str) -> tuple[list[str], list[str]]:
    """The words IPython's options leave for the program, and a note for each option (argparse's reading)."""
    rest: list[str] = []
    notes: list[str] = []
    k = 0
    while k < len(words):
        word = words[k]
        if word == "--":  # argparse takes no option after it, and keeps it: bash's end of options
            return rest + words[k:], notes
        option, eq, value = word.partition("=")
        found = [o for o in _IPYTHON if o.startswith(option)] if option.startswith("--") and len(option) > 2 else []
        if option in _IPYTHON:
            found = [option]
        if not found:
            rest.append(word)
            k += 1
            continue
        if len(found) > 1:
            raise UserError(f"{where}: %%{name} {word}: IPython's options {', '.join(found)} all begin so, and IPython "
                            "stops (ambiguous option); allowed: the whole option", exit_code=1)
        full = found[0]
        if full in _VALUED and not eq:
            if k + 1 >= len(words) or words[k + 1].startswith("-"):
                raise UserError(f"{where}: %%{name} {full} takes a Python variable's name after it; IPython stops "
                                "before it runs the cell", exit_code=1)
            value, k = words[k + 1], k + 1
        elif full not in _VALUED and eq:
            raise UserError(f"{where}: %%{name} {word}: {full} takes no value; IPython stops before it runs the cell",
                            exit_code=1)
        notes.append(f"%%{name} {full}{' ' + value if full in _VALUED else ''} {_SAID[full].format(value)}: "
                     "nothing of the job")
        k += 1
    return rest, notes


def _bash_arguments(words: list[str], name: str, where: str) -> tuple[list[str] | None, list[str]]:
    """bash's positional parameters (None: no ``-s``, the cell is read as it is) and the notes of its options."""
    notes: list[str] = []
    stdin, k = False, 0
    while k < len(words) and words[k].startswith(("-", "+")) and words[k] not in ("-", "+"):
        word = words[k]
        if word == "--":
            k += 1
            break
        if word.startswith("--") or (word[0] == "+" and "s" in word):
            raise UserError(f"{where}: %%{name} {word}: bash's option {word} is not read; allowed: -s, -e, -x, -v and "
                            "-o pipefail", exit_code=1)
        for letter in word[1:]:
            if letter == "s":
                stdin = True
            elif letter == "o":
                k += 1
                option = words[k] if k < len(words) else ""
                if option not in ("pipefail", *_QUIET.values()):
                    raise UserError(f"{where}: %%{name} {word} {option}: bash's option {option or '-o alone'} is not "
                                    "read; allowed: -o pipefail, errexit, xtrace, verbose", exit_code=1)
                notes.append(f"%%{name} {word[0]}o {option} changes nothing in the job")
            elif letter in _QUIET:
                notes.append(f"%%{name} {word[0]}{letter} ({_QUIET[letter]}) changes nothing in the job")
            else:
                raise UserError(f"{where}: %%{name} {word}: bash's option -{letter} is not read; allowed: -s (the "
                                "words after it are $1, $2...), -e, -x, -v and -o pipefail", exit_code=1)
        k += 1
    rest = words[k:]
    if rest and not stdin:
        raise UserError(f"{where}: %%{name} {rest[0]}: without -s, {name} runs the file {rest[0]!r} instead of the "
                        f"cell (IPython gives the cell on its standard input, which {name} then does not read); "
                        f"allowed: %%{name} -s {' '.join(rest)} (the words are $1, $2...)", exit_code=1)
    return (rest if stdin else None), notes


def positional(body: str, parameters: list[str], cell: str, first: int) -> Spliced:
    """``body`` with each positional parameter written as bash expands it (``first``: the lines before it;
    ``cell``: the cell, for messages)."""
    out = Splicer()
    k, quoted = 0, False
    while k < len(body):
        c = body[k]
        if c == "\\":
            out.copy(body[k:k + 2], k)
            k += 2
        elif c == "'" and not quoted:
            end = body.find("'", k + 1)
            end = len(body) - 1 if end < 0 else end
            out.copy(body[k:end + 1], k)
            k = end + 1
        elif c == "#" and not quoted and (k == 0 or body[k - 1] in " \t\n;&|()"):
            end = body.find("\n", k)
            end = len(body) if end < 0 else end
            out.copy(body[k:end], k)
            k = end
        elif c == '"':
            quoted = not quoted
            out.copy(c, k)
            k += 1
        elif c == "$" and (m := _PARAMETER.match(body, k)) is not None:
            line, column = first + body.count("\n", 0, k) + 1, k - body.rfind("\n", 0, k)
            out.put(_value(m, parameters, quoted, f"{cell}, line {line}, column {column}"), k)
            k = m.end()
        elif c == "$" and body[k + 1: k + 2] == "'" and not quoted:
            end = k + 2
            while end < len(body) and body[end] != "'":
                end += 2 if body[end] == "\\" else 1
            out.copy(body[k:end + 1], k)
            k = end + 1
        else:
            out.copy(c, k)
            k += 1
    return out.made()


def _value(m: re.Match[str], parameters: list[str], quoted: bool, where: str) -> str:
    """What bash writes for the parameter ``m``, quoted for the gcloud reader."""
    token = m.group()
    if m.group(5) is not None:
        raise UserError(f"{where}: {token} is not read (of the positional parameters, $1.., ${{N}}, $#, \"$@\" and "
                        "\"$*\" are); allowed: write the value", exit_code=1)
    special = m.group(3) or m.group(4)
    if special == "#":
        return str(len(parameters))
    if special is not None:
        if not parameters and special == "@":
            raise UserError(f"{where}: \"$@\" with no arguments after -s is no word at all; allowed: write the "
                            "words", exit_code=1)
        if special == "*" and quoted:
            return _quoted(" ".join(parameters), quoted)
        if not quoted and any(_split(p) for p in parameters):
            raise UserError(f"{where}: {token} unquoted: bash splits and globs each argument; allowed: \"{token}\"",
                            exit_code=1)
        return ('" "' if quoted else " ").join(_quoted(p, quoted) for p in parameters)
    number = int(m.group(1) or m.group(2))
    if number == 0:
        raise UserError(f"{where}: $0 is the shell's name, not read; allowed: write the value", exit_code=1)
    if number > len(parameters):
        raise UserError(f"{where}: {token} is not given: the magic passes {len(parameters)} argument(s) after -s "
                        "(bash would write nothing); allowed: pass it, or write the value", exit_code=1)
    value = parameters[number - 1]
    if not quoted and (_split(value) or not value):
        raise UserError(f"{where}: {token} unquoted is {value!r}, which bash splits, globs or drops; allowed: "
                        f"\"{token}\"", exit_code=1)
    return _quoted(value, quoted)


def _split(value: str) -> bool:
    return any(c in value for c in " \t\n*?[")


def _quoted(value: str, quoted: bool) -> str:
    if quoted:
        return re.sub(r'([\\"$`])', r"\\\1", value)
    return "'" + value.replace("'", "'\\''") + "'"
