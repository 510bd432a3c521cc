"""IPython's ``var_expand``: a ``!`` line or a line magic's arguments formatted with the notebook's Python values.

IPython (core/interactiveshell.py ``var_expand``, utils/text.py ``DollarFormatter``) formats the text
with ``str.format``'s parser against the notebook's variables:

* ``{expr}``: any Python expression, evaluated; a ``:spec`` after it is part of the expression (so
  ``{x[1:3]}`` slices), ``!r``/``!s``/``!a`` convert it, and the value is written as ``format(value, "")``;
  ``{{`` and ``}}`` are one brace;
* ``$name`` (and ``$name.attr``), outside single quotes counted within the text around it: the
  variable's value; ``$$name`` is ``$name``;
* ``${name}`` is ``$`` followed by ``{name}``: IPython keeps the ``$``;
* when anything fails (a name the notebook never assigns, a syntax error, a lone brace), nothing at
  all is replaced: the text is used as written.

Values come from a provider.document.python_values Scope (never run): ``var_expand`` says what was
replaced, what failed, and which value could not be known, for its caller to judge.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from provider.core.record import Record
from provider.document.python_unknown import Unknown, Where

if TYPE_CHECKING:
    from provider.document.python_values import Scope

_DOLLAR = re.compile(r"(.*?)\$(\$?[\w\.]+)(?=([^']*'[^']*')*[^']*$)")  # IPython's, outside single quotes


class Field(Record):
    """One replacement: ``token`` as written at ``start`` of the line, the expression it evaluates, and how
    it is written (``kind``: "$" for $name, "{}" for {expr}, "${}" for {expr} right after a $)."""

    start: int
    token: str
    expression: str
    conversion: str | None
    kind: str


def format_parse(line: str) -> list[tuple[int, str, tuple[int, int, str, str, str | None] | None]]:
    """``string.Formatter().parse(line)`` with positions: (where the literal text begins, the literal text,
    and the field: its start, its end, name, spec, conversion; or None). ValueError as Formatter.parse."""
    out: list[tuple[int, str, tuple[int, int, str, str, str | None] | None]] = []
    i, n = 0, len(line)
    while i < n:
        start = i
        while i < n and line[i] not in "{}":
            i += 1
        if i >= n:
            out.append((start, line[start:], None))
            break
        brace = line[i]
        if i + 1 < n and line[i + 1] == brace:  # {{ or }}: the literal ends with one brace
            out.append((start, line[start:i + 1], None))
            i += 2
            continue
        if brace == "}":
            raise ValueError("Single '}' encountered in format string")
        if i + 1 >= n:
            raise ValueError("Single '{' encountered in format string")
        end, depth, naming = i + 1, 1, True
        while end < n and depth:
            c = line[end]
            if naming and c == "[":  # a field name's [key] may hold braces
                end = line.find("]", end)
                if end < 0:
                    break
            elif naming and c in ":!":
                naming = False
                end += c == "!"  # the conversion's character, whatever it is
                if end >= n:
                    break
            depth += {"{": 1, "}": -1}.get(c, 0)
            end += 1
        if end < 0:
            raise ValueError("expected '}' before end of string")
        if depth:
            raise ValueError("expected '}' before end of string")
        out.append((start, line[start:i], (i, end, *_field(line[i + 1:end - 1]))))
        i = end
    return out


def _field(inner: str) -> tuple[str, str, str | None]:
    """A field's name, spec and conversion, as the C parser of str.format splits ``inner``."""
    at = 0
    while at < len(inner) and inner[at] not in ":!":
        if inner[at] == "{":
            raise ValueError("unexpected '{' in field name")
        if inner[at] == "[":
            closing = inner.find("]", at)
            at = len(inner) if closing < 0 else closing
        at += 1
    name, rest = inner[:at], inner[at:]
    if rest.startswith("!"):
        if len(rest) < 2:
            raise ValueError("end of string while looking for conversion specifier")
        if len(rest) > 2 and rest[2] != ":":
            raise ValueError("expected ':' after conversion specifier")
        return name, rest[3:], rest[1]
    return name, rest[1:], None


def fields(line: str) -> list[str | Field] | None:
    """The line as DollarFormatter reads it: its literal text and its fields, in order; None where
    str.format's parser fails (IPython then leaves the line as written)."""
    try:
        chunks = format_parse(line)
    except ValueError:
        return None
    pieces: list[str | Field] = []
    for at, literal, field in chunks:
        done = 0
        for m in _DOLLAR.finditer(literal):
            pieces.append(m.group(1))
            if m.group(2).startswith("$"):  # $$name: $name, as written
                pieces.append(m.group(2))
            else:
                pieces.append(Field(at + m.start(2) - 1, "$" + m.group(2), m.group(2), None, "$"))
            done = m.end()
        pieces.append(literal[done:])
        if field is not None:
            start, end, name, spec, conversion = field
            expression = f"{name}:{spec}" if spec else name
            after_dollar = next((p for p in reversed(pieces) if p != ""), "")
            kind = "${}" if isinstance(after_dollar, str) and after_dollar.endswith("$") else "{}"
            pieces.append(Field(start, line[start:end], expression, conversion, kind))
    return pieces


class Fails(Record):
    """Why IPython's formatting fails on a field; ``python``: the field is a Python expression (awk's
    ``{print $1}`` is not)."""

    why: str
    python: bool


CONVERT: dict[str | None, Callable[[object], object]] = {None: lambda v: v, "r": repr, "s": str, "a": ascii}


class Expanded(Record):
    """What ``var_expand`` made of a text: ``text``, the text as IPython hands it on (as written when
    ``failed``), each field replaced (``replaced``: the field and its text), the first field that makes
    IPython leave the text as written (``failed``: the field and why), the first field whose value
    cannot be known (``unknown``), and the ``{expr}`` fields that are Python (``meant``: written to be
    replaced, where awk's ``{print $1}`` is not)."""

    text: str
    replaced: tuple[tuple[Field, str], ...]
    failed: tuple[Field, str] | None
    unknown: tuple[Field, Unknown] | None
    meant: tuple[Field, ...]


def var_expand(text: str, scope: Scope) -> Expanded:
    """``text`` as IPython's var_expand formats it with ``scope``'s values (see the module docstring)."""
    pieces = fields(text)
    if pieces is None:
        return Expanded(text, (), None, None, ())
    replaced: list[tuple[Field, str]] = []
    failed: tuple[Field, str] | None = None
    unknown: tuple[Field, Unknown] | None = None
    meant: list[Field] = []
    out: list[str] = []
    for piece in pieces:
        if isinstance(piece, str):
            out.append(piece)
            continue
        value = _value(piece, scope)
        if not (isinstance(value, Fails) and not value.python) and piece.kind != "$":
            meant.append(piece)
        if isinstance(value, Fails):
            failed = failed or (piece, value.why)
        elif isinstance(value, Unknown):
            unknown = unknown or (piece, value)
        else:
            out.append(format(CONVERT[piece.conversion](value), ""))
            replaced.append((piece, out[-1]))
    if failed is not None:
        return Expanded(text, (), failed, unknown, tuple(meant))
    return Expanded("".join(out), tuple(replaced), None, unknown, tuple(meant))


def _value(field: Field, scope: Scope) -> object:
    """The field's value, an Unknown, or why IPython's formatting fails on it."""
    try:
        node = ast.parse(field.expression.lstrip(" \t"), mode="eval").body
    except SyntaxError:
        return Fails(f"is not a Python expression ({field.expression!r})", False)
    if field.conversion not in CONVERT:
        return Fails(f"has the conversion !{field.conversion}, which Python does not know", False)
    value = scope.evaluate(node)
    if isinstance(value, Unknown) and value.name and value.why.startswith(f"{value.name} is not assigned before"):
        return Fails(f"names {value.name}, which the notebook does not assign before this line (NameError)", True)
    if isinstance(value, Unknown) and value.name is None and " raises " in value.why:
        return Fails(f"raises an error in Python: {value.why}", True)
    return value


def env_magic(line: str, scope: Scope, where: Where) -> tuple[str, object] | None:
    """What ``%env NAME=VALUE`` (``%env NAME VALUE``, ``%set_env``) sets: its arguments expanded as IPython
    expands a line magic's, then split as its env magic splits them; (name, value or Unknown), or None when
    the line sets nothing (``%env`` alone lists the environment, ``%env NAME`` reads one variable)."""
    words = line.split(None, 1)
    if words[0] not in ("%env", "%set_env") or len(words) < 2:
        return None
    split = "=" if "=" in words[1] else " "
    if len(words[1].split(split, 1)) < 2:
        return None
    expanded = var_expand(words[1], scope)
    name, value = (part.strip() for part in expanded.text.split(split, 1))
    if expanded.failed is None and expanded.unknown is not None:
        name = words[1].split(split, 1)[0].strip()
        unknown = expanded.unknown[1]
        source = f"{unknown.name}; {unknown.why}" if unknown.name else unknown.why
        return name, Unknown(f"the environment variable {name}, set by {line.strip()!r} at {where} from {source}",
                             where, None)
    if name and not any(c.isspace() for c in name):
        return name, value
    return None
