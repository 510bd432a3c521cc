"""What a notebook's ``x = !cmd`` (and ``x = %sx cmd``) binds, read without running the command: IPython binds x to
the command's output, a list of its lines (an SList).

One command's output is known without running anything: a property of gcloud's configuration that a training
command reads (provider.core.gcloud_config), as Google's notebooks read their project::

    shell_output = ! gcloud config list --format 'value(core.project)' 2>/dev/null
    PROJECT_ID = shell_output[0]

It is read as a script's ``$(gcloud config get-value project)`` is (provider.gcloud.substitution): gcloud reads the
property from its variable of the environment first (``CLOUDSDK_CORE_PROJECT``), as the notebook's environment has
it (its ``%env`` and ``os.environ[...] =``, else the environment of convert); a note names it where the spec holds
it (provider.document.python_taken). Without the variable, it is the configuration of the machine that runs the
notebook, which is not known here: an Unknown that says how to give it. Any other command's output, and one whose
line IPython would expand (``$name``, ``{expr}``) or the shell would (``|``, ``;``, ``$(...)``), is an Unknown.
"""

from __future__ import annotations

import ast
import re
import shlex
from typing import TYPE_CHECKING

from provider.core.gcloud_config import ENVIRONMENT, printed_property
from provider.document import python_taken
from provider.document.python_cells import MAGIC, SHELL
from provider.document.python_unknown import Unknown

if TYPE_CHECKING:
    from provider.document.python_values import Scope

PLACEHOLDERS = (SHELL, MAGIC)  # the calls python_cells makes of ``!cmd`` and ``%magic``
_EXPANDED = re.compile(r"[$`{}]")  # what IPython (var_expand) or the shell would replace before gcloud runs
_COMMENT = re.compile(r"[ \t]+#[^'\"]*\Z")  # the shell's comment that ends the line
_STDERR = re.compile(r"[ \t]+2>[ \t]*/dev/null[ \t]*\Z")


def output(scope: Scope, node: ast.Call) -> object:
    """The value ``x = !cmd`` binds (``node``: the placeholder call python_cells makes of the line), or an Unknown."""
    func = node.func
    line = str(node.args[0].value) if node.args and isinstance(node.args[0], ast.Constant) else ""
    where = scope.where_of(node)
    if isinstance(func, ast.Name) and func.id == SHELL:
        command = line.lstrip("!")
    elif line.startswith(("%sx", "%system")):
        command = line.split(None, 1)[1] if len(line.split(None, 1)) > 1 else ""
    else:
        return Unknown(f"the output of {line}", where)
    command = _STDERR.sub("", _COMMENT.sub("", command.strip()))
    words = _words(command)
    name = printed_property(words[2:]) if words is not None and words[:2] == ["gcloud", "config"] else None
    if name is None:
        return Unknown("a shell command's output", where)
    variable = ENVIRONMENT[name]
    value = scope.environ(variable, node)
    if isinstance(value, Unknown):
        return value
    if value == "":
        return Unknown(f"a shell command's output: {command} fails, as ${variable} is empty (gcloud: the property is set "
                       "to the empty string, which is invalid)", where)
    if not isinstance(value, str):
        return Unknown(f"a shell command's output: {command} prints the {name} property of the gcloud configuration of "
                       f"the machine that runs the notebook, which is not known here; give it: {variable}=VALUE in the "
                       "environment of trainjobs convert (gcloud reads the property from it first)", where)
    scope.taken().append(python_taken.taken(where, line.strip(), value, f"the {name} property of gcloud's "
                                            f"configuration, written as {value!r}, from ${variable} (gcloud reads it "
                                            "first)"))
    return value.splitlines() or [""]


def _words(command: str) -> list[str] | None:
    """The words of ``command`` as one simple command of the shell, or None (an expansion, a pipe, a list, a
    redirection, a quote never closed)."""
    if _EXPANDED.search(command):
        return None
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:
        return None
    return None if any(w and set(w) <= set("();<>|&") for w in words) else words
