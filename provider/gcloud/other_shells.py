"""A command line written for another shell than bash, named as such where bash's reading refuses it.

Google's guides give each gcloud command three times: for bash, for Windows PowerShell and for
Windows cmd.exe, and scripts for all three are pasted. trainjobs reads a line as bash reads it
(provider.gcloud.words); where that reading stops at what another shell means otherwise, the message
says which shell the line is written for and what bash takes instead:

* PowerShell continues a line with a backtick that ends it (to bash, a backtick begins a command
  substitution);
* cmd.exe continues a line with a ``^`` that ends it (to bash, ``^`` is a word, and the newline
  ends the command); ``%NAME%`` is a cmd.exe variable, passed by bash as written (a note says so);
* a Makefile's recipe line holds ``$(NAME)``, make's variable (named in capitals), replaced before
  the shell runs (to bash, a command substitution).
"""

from __future__ import annotations

import re

_UNENDED = ("a newline without a backslash ends the command, and more follows: bash would run that as a second "
            "command (end each continued line with \\)")
_SUBSTITUTION = "backticks are command substitution: trainjobs never runs commands"
_CMD_VARIABLE = re.compile(r"%[A-Za-z_][A-Za-z0-9_]*%")


# make's variables as Makefiles name them, in capitals: $(date) or $(pwd) is a command bash would run
_MAKE_VARIABLE = re.compile(r"\$\(([A-Z_][A-Z0-9_]*)\)")


def make_variable(line: str, at: int) -> bool:
    """Whether the ``$(`` at ``at`` is ``$(NAME)``, make's variable in a Makefile's recipe."""
    return _MAKE_VARIABLE.match(line, at) is not None


def substitution(line: str, at: int) -> str:
    """What the ``$(`` or ``$[`` at ``at`` is refused as: a Makefile's variable when it is ``$(NAME)``."""
    make = _MAKE_VARIABLE.match(line, at)
    if make is not None:
        return (f"{make.group()} is command substitution to bash (trainjobs never runs commands); in a Makefile it is "
                f"make's variable {make.group(1)}, replaced before the shell runs: write its value, or "
                f"${make.group(1)} from the environment")
    shown = "$(...)" if line[at + 1: at + 2] == "(" else "$[...]"
    return (f"{shown} is command substitution or arithmetic: trainjobs never runs commands; put the value in a "
            "variable of the environment instead")


def _ends_line(line: str, at: int) -> bool:
    """Whether only spaces and tabs follow ``at`` up to the line's end."""
    end = line.find("\n", at)
    return not line[at: len(line) if end < 0 else end].strip(" \t")


def continues(line: str, at: int) -> bool:
    """Whether the backtick at ``at`` ends its line: PowerShell's continuation, no command substitution."""
    return _ends_line(line, at + 1)


def backtick(line: str, at: int) -> str:
    """What the backtick at ``at`` is refused as: PowerShell's continuation when it ends its line."""
    if _ends_line(line, at + 1):
        return ("a ` that ends a line is PowerShell's line continuation: this line is written for PowerShell, and "
                "trainjobs reads a command as bash reads it (to bash, ` begins a command substitution); end each "
                "continued line with \\ instead, and give PowerShell's $NAME variables from the environment")
    return _SUBSTITUTION


def unended(line: str, newline: int) -> str:
    """What a newline at ``newline`` that ends the command while more follows is refused as."""
    if line[:newline].rstrip(" \t").endswith("^"):
        return ("a ^ that ends a line is cmd.exe's line continuation: this line is written for Windows cmd.exe, and "
                "trainjobs reads a command as bash reads it (to bash, ^ is a word and the newline ends the command); "
                "end each continued line with \\ instead, and write cmd.exe's %NAME% variables as $NAME")
    return _UNENDED


def variables(words: list[str]) -> list[str]:
    """A note for each word with a cmd.exe ``%NAME%`` variable, which bash passes to gcloud as written."""
    return [f"{m.group()} in {word!r} is passed to gcloud as written, as bash passes it; in Windows cmd.exe it is "
            f"the variable {m.group()[1:-1]}: write $NAME (from the environment) or the value"
            for word in words for m in _CMD_VARIABLE.finditer(word)][:3]
