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
SUBPROCESS = ("subprocess.check_output", "subprocess.getoutput")  # the calls subprocess_output reads
_PASSED = ("text", "universal_newlines", "encoding", "errors", "stderr", "timeout", "check", "shell")
_EXPANDED = re.compile(r"[$`{}]")  # what IPython (var_expand) or the shell would replace before gcloud runs
_COMMENT = re.compile(r"[ \t]+#[^'\"]*\Z")  # the shell's comment that ends the line
_STDERR = re.compile(r"[ \t]+2>[ \t]*/dev/null[ \t]*\Z")


def output(scope: Scope, node: ast.Call) -> object:
    """The value ``x = !cmd`` binds (``node``: the placeholder call python_cells makes of the line), or an Unknown."""
    func = node.func
    line = str(node.args[0].value) if node.args and isinstance(node.args[0], ast.Constant) else ""
    if isinstance(func, ast.Name) and func.id == SHELL:
        command = line.lstrip("!")
    elif line.startswith(("%sx", "%system")):
        command = line.split(None, 1)[1] if len(line.split(None, 1)) > 1 else ""
    else:
        return Unknown(f"the output of {line}", scope.where_of(node))
    command = _STDERR.sub("", _COMMENT.sub("", command.strip()))
    value = _printed(scope, node, _words(command), command, line.strip(), "the notebook")
    return value if isinstance(value, Unknown) else value.splitlines() or [""]


def subprocess_output(scope: Scope, node: ast.Call, dotted: str) -> object:
    """What ``subprocess.check_output(ARGS, ...)`` or ``subprocess.getoutput(CMD)`` returns, or an Unknown: a
    command given as a list of known words (or a str with ``shell=True``, or getoutput's), whose other arguments are
    ``text``/``universal_newlines``/``encoding``/``errors``, ``stderr``, ``timeout`` and ``check``."""
    given = {k.arg: k.value for k in node.keywords if k.arg is not None}
    words = _subprocess_words(scope, node, dotted, given)
    if isinstance(words, Unknown):
        return words
    value = _printed(scope, node, words, shlex.join(words), node)
    if isinstance(value, Unknown) or dotted.endswith("getoutput"):  # getoutput: stdout and stderr, less a last \n
        return value
    text = any(k in given and scope.evaluate(given[k]) not in (None, False)
               for k in ("text", "universal_newlines", "encoding", "errors"))
    return value + "\n" if text else (value + "\n").encode()


def _subprocess_words(scope: Scope, node: ast.Call, dotted: str, given: dict[str, ast.expr]) -> list[str] | Unknown:
    """The words of the command a subprocess call runs, or an Unknown (another argument that bears on it, a command
    not known, a str without ``shell=True``: one program's name)."""
    where = scope.where_of(node)
    first = node.args[0] if node.args else given.get("args", given.get("cmd"))
    other = [k for k in given if k not in (*_PASSED, "args", "cmd")] + (["*args"] if len(node.args) > 1 else []) + (
        ["**kwargs"] if any(k.arg is None for k in node.keywords) else [])
    if first is None or other:
        return Unknown(f"a command's output ({dotted}() with {', '.join(other) or 'no command'})", where)
    command = scope.evaluate(first)
    shell = dotted.endswith("getoutput") or ("shell" in given and scope.evaluate(given["shell"]) is True)
    if isinstance(command, (list, tuple)) and all(isinstance(w, str) for w in command) and not shell:
        return list(command)
    words = _words(_STDERR.sub("", command.strip())) if isinstance(command, str) and shell else None
    return Unknown("a command's output", where) if words is None else words


def _printed(scope: Scope, node: ast.Call, words: list[str] | None, command: str, shown: ast.AST | str,
             runs: str = "the code") -> str | Unknown:
    """What the command ``words`` prints, where it is ``gcloud config`` printing a property a training command reads
    (its value, from its variable of the environment), recorded as taken by ``shown``; else an Unknown."""
    where = scope.where_of(node)
    name = printed_property(words[2:]) if words is not None and words[:2] == ["gcloud", "config"] else None
    if name is None:
        return Unknown("a shell command's output" if isinstance(node.func, ast.Name) else "a command's output", where)
    variable = ENVIRONMENT[name]
    value = scope.environ(variable, node)
    if isinstance(value, Unknown):
        return value
    if value == "":
        return Unknown(f"a shell command's output: {command} fails, as ${variable} is empty (gcloud: the property is set "
                       "to the empty string, which is invalid)", where)
    if not isinstance(value, str):
        return Unknown(f"a shell command's output: {command} prints the {name} property of the gcloud configuration of "
                       f"the machine that runs {runs}, which is not known here; give it: {variable}=VALUE in the "
                       "environment of trainjobs convert (gcloud reads the property from it first)", where)
    scope.taken().append(python_taken.taken(where, shown, value, f"the {name} property of gcloud's configuration, "
                                            f"written as {value!r}, from ${variable} (gcloud reads it first)"))
    return value


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
