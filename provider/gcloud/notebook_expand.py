"""A notebook's ``!`` line as IPython expands it with the notebook's Python values, judged for a spec.

provider.document.ipython_expand expands it as IPython's var_expand does; here is what is refused:
a value that cannot be known without running the notebook (named, with where and why); a ``{expr}``
that would reach the shell with its braces because IPython leaves the whole line as written (a
``$NAME`` in it that is no Python variable); ``${name}`` (IPython keeps the ``$``, so the shell reads
the value as a variable's name); and a Python variable whose name looks secret (its value would be
written into the spec: provider.gcloud.secrets). When IPython leaves the line as written, the shell
reads each ``$NAME`` from its environment, as the gcloud reader does.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from provider.core.errors import UserError
from provider.document.ipython_expand import Field, var_expand
from provider.document.python_values import Scope, Unknown
from provider.gcloud.spliced import Spliced, spliced


def expand(line: str, scope: Scope, place: Callable[[int], str]) -> tuple[str, list[str]]:
    """The line IPython hands the shell, and what it replaced (``{REGION} = 'us-central1'``); UserError for a value that cannot be
    known here. ``place(i)`` names where character ``i`` of the line is ("NB.ipynb cell 7, line 2, column 15")."""
    made, shown = expand_placed(line, scope, place)
    return made.text, shown


def expand_placed(line: str, scope: Scope, place: Callable[[int], str]) -> tuple[Spliced, list[str]]:
    """``expand``, the line with where each of its characters is in ``line`` (provider.gcloud.spliced)."""
    expanded = var_expand(line, scope)
    if expanded.failed is not None:
        if expanded.meant:
            meant, (failed, why) = expanded.meant[0], expanded.failed
            raise UserError(
                f"{place(meant.start)}: {meant.token} would reach the shell as written, braces and all: "
                "IPython replaces the {expr} and $name of a ! line only when it can replace every one of them, and "
                f"{failed.token} ({place(failed.start)}) {why}; allowed: assign it in the notebook before this line, "
                "or write $$NAME for the shell's own variable (IPython hands the shell $NAME)", exit_code=1)
        return Spliced(line), []
    if expanded.unknown is not None:
        field, unknown = expanded.unknown
        name = unknown.name or field.expression
        raise UserError(
            f"{place(field.start)}: {field.token} is IPython's substitution of the notebook's Python value of "
            f"{name}, which cannot be known without running the notebook: {unknown.why}; allowed: assign {name} a "
            "literal value in the notebook before this line (trainjobs reads the notebook, never runs it), or "
            "convert the command with the value written in it (trainjobs convert --gcloud)", exit_code=1)
    shown = _checked(expanded.replaced, place)
    values = [(field.start, field.start + len(field.token), value) for field, value in expanded.replaced]
    return spliced(line, expanded.text, values), shown


def _checked(replaced: tuple[tuple[Field, str], ...], place: Callable[[int], str]) -> list[str]:
    """What was replaced, once no replaced field is refused."""
    from provider.core.secret_names import looks_secret
    from provider.gcloud.secrets import stack_setting

    shown = []
    for field, value in replaced:
        name = field.expression.strip()
        tree = ast.parse(name, mode="eval")
        if any(looks_secret(n.id) for n in ast.walk(tree) if isinstance(n, ast.Name)):
            raise UserError(f"{place(field.start)}: {field.token} is a Python variable whose name looks secret: its "
                            "value would be written into the spec, which is committed; allowed: give the job the "
                            f"value in its environment ({stack_setting(name)})", exit_code=1)
        if field.kind == "${}":
            raise UserError(
                f"{place(field.start - 1)}: ${field.token} in a ! line is a $ followed by IPython's {field.token}: "
                f"IPython keeps the $, and the shell reads ${value} as a variable; allowed: ${name} or "
                f"{field.token} for the notebook's value, $${name} for the shell's", exit_code=1)
        shown.append(f"{field.token} = {value!r}")
    return shown


_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))")


def notebook_environment(line: str, scope: Scope, origin: str) -> dict[str, str]:
    """The environment variables the notebook sets (``%env``, ``os.environ[...] =``) that the shell line reads
    as ``$NAME``; UserError for one whose value cannot be known."""
    found: dict[str, str] = {}
    set_here = scope.environ_set()
    for name in dict.fromkeys(m.group(1) or m.group(2) for m in _VARIABLE.finditer(line + _templates(line))):
        value = scope.environ(name)
        if isinstance(value, Unknown):
            raise UserError(f"{origin}: ${name} is read from the environment the notebook sets, and its value cannot "
                            f"be known without running the notebook: {value.why}; allowed: set it to a literal value "
                            f"in the notebook (%env {name}=VALUE)", exit_code=1)
        if name in set_here and value is not None:
            found[name] = str(value)
    return found


def _templates(line: str) -> str:
    """The text of the files the line gives a command as its standard input (``envsubst < job.tpl``), whose
    ``$NAME``s envsubst reads from the same environment (provider.gcloud.envsubst)."""
    from pathlib import Path

    texts = []
    for m in re.finditer(r"<[ \t]*['\"]?([^\s;|&<>'\"]+)", line):
        try:
            texts.append(Path(m.group(1)).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue  # refused by name where it is read
    return "\n".join(texts)


def keep_secrets_out(line: str, scope: Scope, origin: str) -> None:
    """UserError where the expanded line holds the value of a secret-looking variable of this process's environment
    that the notebook read (``T = os.environ["WANDB_API_KEY"]``, then ``{T}``): it would be written into the spec."""
    from provider.core.secret_names import looks_secret
    from provider.gcloud.secrets import stack_setting

    for name, value in scope.environ_read().items():
        if looks_secret(name) and len(value) >= 4 and value in line:  # (a shorter one would match by chance)
            raise UserError(f"{origin}: the line holds the value of ${name}, which the notebook reads from the "
                            "environment and whose name looks secret: it would be written into the spec, which is "
                            f"committed; allowed: give the job the value in its environment ({stack_setting(name)})",
                            exit_code=1)

