"""A gcloud command as a Jupyter (IPython) notebook cell holds it, read as the shell IPython hands it to.

* ``!gcloud ...`` and ``! gcloud ...`` (``!!`` too): IPython runs the rest of the line in a shell,
  after two steps of its own (IPython's inputtransformer2 and utils/text.py):

  - a line that ends in a backslash right before its newline goes on, the next line joined with one
    space (``assemble_continued_line``); only the lines so continued are the command;
  - ``var_expand`` formats the line with ``DollarFormatter`` against the notebook's Python variables:
    ``{expr}`` is a Python expression's value, ``$name`` (outside single quotes) and ``${name}`` a
    Python variable's; when any of them is not a Python name, nothing at all is replaced and the
    shell gets the line as written. A ``$NAME`` is read from the environment, as the shell reads it
    when the notebook has no Python variable of that name (``%env``, ``os.environ``); a ``{expr}``
    (not after ``$``) is always the notebook's, never the shell's, so it is refused by name: its value
    cannot be known here, and bash would keep the braces. ``{{`` and ``}}`` (one brace each, only
    when IPython's formatting succeeds) are refused as well. A line that Python's formatter cannot
    parse (a lone ``{`` or ``}``) is handed to the shell as written, and so read here.

* ``%%bash`` (``%%sh``, ``%%script bash``) on a cell's first line: the rest of the cell is a bash script,
  given to bash as written; the magic's own words (``-s ARGS``, ``--out VAR``...) are read by
  provider.gcloud.notebook_magic, which writes ``$1``... as bash expands them.

Anything else is a shell line, read as it is. Columns in messages count in the line the shell gets. (IPython
hands a ``!`` line to ``sh -c``; what a gcloud line holds reads the same in sh and bash.)
"""

from __future__ import annotations

import re
from string import Formatter

from provider.gcloud.word_checks import ShellError

_MAGIC = re.compile(r"[ \t]*%%(?:bash|sh|script)(?:[ \t][^\n]*)?\n")  # its words: provider.gcloud.notebook_magic
_BANG = re.compile(r"[ \t]*!!?")
_BRACES = re.compile(r"\{\{|\}\}|\{[^{}]*\}")
_PLACEHOLDER = re.compile(r"(?<!\$)\{[A-Za-z_][A-Za-z0-9_]*\}")


def _start(text: str) -> int:
    """Where the first line that is neither blank nor a ``#`` comment begins."""
    at = 0
    for line in text.splitlines(keepends=True):
        if line.strip() and not line.lstrip().startswith("#"):
            return at
        at += len(line)
    return at


def _joined(body: str) -> tuple[str, str]:
    """The ``!`` line and the lines its trailing backslashes continue, joined as IPython joins them
    (each ``\\`` + newline becomes one space), and the lines after them, unchanged."""
    lines = body.splitlines(keepends=True) or [""]
    end = 0
    while end < len(lines) - 1 and lines[end].endswith("\\\n"):
        end += 1
    return " ".join([p[:-2] for p in lines[:end]] + [lines[end]]), "".join(lines[end + 1:])


def _substituted(line: str, at: int) -> None:
    """ShellError for what IPython's var_expand replaces from the notebook's Python values, not the shell's."""
    try:
        list(Formatter().parse(line))
    except ValueError:  # IPython's formatting fails: the shell gets the line as written
        return
    for m in _BRACES.finditer(line):
        token = m.group()
        if token in ("{{", "}}"):
            raise ShellError(f"{token} in a notebook's ! line is read by IPython as {token[0]} only when it can "
                             "replace every $name and {expr} of the line from the notebook's Python variables, "
                             f"which cannot be known here; write {token[0]} in a %%bash cell, or leave the ! out",
                             at + m.start() + 1)
        if line[m.start() - 1: m.start()] != "$":  # ${NAME}: the shell's, where the notebook has no NAME
            name = token[1:-1]
            raise ShellError(f"{token} in a notebook's ! line is IPython's substitution of the notebook's Python "
                             f"value of {name}, which trainjobs cannot know (bash would keep the braces as written); "
                             f"write the value, or export {name} and write ${name} (read from the environment)",
                             at + m.start() + 1)


def bash_cell(text: str) -> bool:
    """Whether ``text`` is a notebook cell that a ``%%bash`` (``%%sh``, ``%%script bash``) line hands to bash."""
    return _MAGIC.match(text, _start(text)) is not None


def shell_line(text: str) -> str:
    """The text the shell runs: a notebook's ``!`` line or ``%%bash`` cell unwrapped, or ``text`` itself."""
    start = _start(text)
    magic = _MAGIC.match(text, start)
    if magic is not None:
        return text[:start] + " " * (magic.end() - start - 1) + text[magic.end() - 1:]
    bang = _BANG.match(text, start)
    if bang is None:
        return text
    command, rest = _joined(text[bang.end():])
    _substituted(command, bang.end())
    return text[:start] + " " * (bang.end() - start) + command + rest


def placeholders(words: list[str]) -> list[str]:
    """A note for each word with a ``{NAME}`` that bash passes as written, as a notebook's ``{NAME}`` would not be."""
    return [f"{m.group()} in {word!r} is passed to gcloud as written, as bash passes it; in a notebook's ! line it "
            f"would be the Python value of {m.group()[1:-1]}: write the value if that is what it stands for"
            for word in words for m in _PLACEHOLDER.finditer(word)][:3]
