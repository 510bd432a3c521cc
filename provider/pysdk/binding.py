"""An SDK call's ``ast.Call`` bound to the SDK's parameters, each argument's value read statically.

A value is what the document layer's evaluator knows (provider/document/python_values.py), plus the
SDK's own forms inside it: ``hpt.DoubleParameterSpec(min=..., max=..., scale=...)`` is read as
``{"DoubleParameterSpec": {"min": ..., ...}}`` (the vertex tuning format's form), and an enum member
such as ``Scheduling.Strategy.SPOT`` as its dotted name. A name assigned such a form earlier is read
from its assignment. ``**kwargs`` of a known dict is spread as Python spreads it. An Unknown value is
refused naming the argument, its place and why it cannot be known.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from provider.core.record import Record, field
from provider.document.python_enum import EnumMember, named
from provider.pysdk.arguments import Call, SdkError, Unread
from provider.pysdk.signatures import KEYWORD_ONLY, NOT_READ, NOTED, REQUIRED, SIGNATURES, parameter_class

if TYPE_CHECKING:
    from provider.document.python_values import Scope

NOT_READ_VALUE = "<not read>"
_NO_FORM = object()  # Reader._form: not one of the SDK's forms


class Assigned(Record):
    """A top-level ``name = value``: the value's expression, the scope it was evaluated in and where it is (the
    file, or a notebook's cell, as messages name it)."""

    value: ast.expr
    scope: Scope
    shown: str = ""
    order: int = 1 << 30  # the statement that assigned it, counted as the walk reads them
    changes: list[Change] = field(default_factory=list)  # the fields set on it after (spec.scheduling = ...)


class Change(Record):
    """``root.a.b[0].c = value`` (or ``root["a"] = value``) after ``root`` is assigned: a field of the message (or an
    item of the dict) it holds, set, read where the value is (message_changes.py)."""

    target: ast.expr
    value: ast.expr | None  # None: a change the walk does not read (+=, del, through another name)
    reader: Reader
    order: int  # the statement, counted as Assigned.order is
    before: object  # the evaluator's value of root just before it (an Unknown that says where root was last set)


# A parameter whose value, known only when the code runs, convert's own flag gives instead: the way forward said.
_FLAGGED = {"display_name": "name the job with convert --name NAME",
            "staging_bucket": "give the bucket with convert --staging-bucket gs://BUCKET"}


class Reader:
    """Reads arguments in ``scope``; ``assigned``: the script's top-level assignments so far (name -> Assigned).
    ``shown`` names the file (``train.py:12:5``), or a notebook's cell when ``cell`` (``NB.ipynb cell 6, line 3,
    column 9``)."""

    def __init__(self, shown: str, scope: Scope, assigned: Mapping[str, Assigned], cell: bool = False,
                 named: bool = False, bucket: str | None = None, order: int = 1 << 30) -> None:
        self.shown, self.scope, self.assigned, self.cell = shown, scope, assigned, cell
        self.order = order  # the statement read (Assigned.order): a name's changes before it are its value's
        self.noun = "notebook" if cell else "script"
        self.named = named  # convert --name names the job: a display_name known only when the code runs is noted
        self.bucket = bucket  # convert --staging-bucket: a staging_bucket known only when the code runs is it

    def at(self, node: ast.AST) -> str:
        line = getattr(node, "lineno", 0)
        column = getattr(node, "col_offset", 0) + 1
        return f"{self.shown}, line {line}, column {column}" if self.cell else f"{self.shown}:{line}:{column}"

    def inner(self, assigned: Assigned, names: Mapping[str, Assigned]) -> Reader:
        """A reader of an earlier assignment's value, in its own scope and place."""
        return Reader(assigned.shown or self.shown, assigned.scope, names, self.cell, self.named, self.bucket,
                      assigned.order)

    def qualified(self, node: ast.expr) -> str | None:
        """The dotted import path of a Name/Attribute chain, through the script's aliases (``Scheduling =
        custom_job.Scheduling`` makes ``Scheduling.Strategy.SPOT`` the import's own)."""
        known = self.scope.qualified(node)
        if known is not None:
            return known
        if isinstance(node, ast.Attribute):
            base = self.qualified(node.value)
            return None if base is None else f"{base}.{node.attr}"
        if isinstance(node, ast.Name) and node.id in self.assigned:
            inner = self.assigned[node.id]
            if isinstance(inner.value, (ast.Name, ast.Attribute)) and inner.value is not node:
                return self.inner(inner, {}).qualified(inner.value)
        return None

    def has_form(self, node: ast.expr) -> bool:
        """Whether ``node`` holds one of the SDK's forms (an hpt class, an enum member) the evaluator cannot read."""
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) and parameter_class(self.qualified(sub.func)):
                return True
            if isinstance(sub, ast.Attribute) and ".Strategy." in (self.qualified(sub) or ""):
                return True
            if isinstance(sub, ast.Name) and sub.id in self.assigned and sub is not node:
                inner = self.assigned[sub.id]
                if self.inner(inner, {}).has_form(inner.value):
                    return True
        return False

    def value(self, node: ast.expr, what: str) -> object:
        """``node``'s value; SdkError naming ``what`` (the argument) when it cannot be known."""
        from provider.document.python_values import Unknown

        form = self._form(node, what)
        if form is not _NO_FORM:
            return form
        value = self.scope.evaluate(node)
        if isinstance(value, (list, tuple, dict)):
            return named(value)  # a member inside is given for an enum field: the SDK's proto-plus reads its name
        if isinstance(value, Unknown):
            elsewhere = (value.where is not None and str(value.where) not in value.why
                         and (value.where.line != getattr(node, "lineno", 0)
                              or not self.shown.endswith(value.where.label)))  # another line, or another cell
            where = f" ({value.where})" if elsewhere else ""  # set on an earlier line: say where
            raise SdkError(self.at(node), f"{what} cannot be known without running the {self.noun}: {value.why}"
                           f"{where}", f"a value the {self.noun} gives before the call: a literal, or names, f-strings, "
                           "+ and % of literals")
        return value

    def _form(self, node: ast.expr, what: str) -> object:
        """The value of an SDK form (an hpt class, an enum member) or of a display, name or choice holding one;
        _NO_FORM for anything the evaluator reads alone."""

        name = parameter_class(self.qualified(node.func)) if isinstance(node, ast.Call) else None
        if isinstance(node, ast.Call) and name is not None:
            return {name: dict(self.bind(node, name, f"hpt.{name}").args)}
        if isinstance(node, ast.Attribute) and ".Strategy." in (self.qualified(node) or ""):
            return self._strategy(node, what)
        if isinstance(node, ast.Name) and node.id in self.assigned:
            inner = self.assigned[node.id]
            reader = self.inner(inner, self.assigned)
            if not reader.has_form(inner.value):
                return _NO_FORM
            self._unchanged(node, inner, what)
            return reader.value(inner.value, what)
        return self._holding_form(node, what) if self.has_form(node) else _NO_FORM

    def _strategy(self, node: ast.Attribute, what: str) -> str:
        """``Scheduling.Strategy.SPOT`` as its member's name, where the path names it through a module of the installed
        client (the API's table); a path through the client that names no such member is refused, as Python raises
        AttributeError there (``aiplatform.compat.types.Scheduling``: compat.types holds modules, not messages)."""
        dotted = self.qualified(node) or ""
        found = self.scope.enum(dotted)
        if isinstance(found, EnumMember):
            return found.name
        if found is None and not dotted.startswith("google.cloud.aiplatform"):
            return dotted.rsplit(".", 1)[-1]  # not the client's: read by its name, checked as a Strategy's name
        why = found if isinstance(found, str) else (
            f"{dotted} names no enum of the installed client: Python raises AttributeError before the job is built")
        raise SdkError(self.at(node), f"{what}: {why}", "aiplatform.compat.types.custom_job.Scheduling.Strategy.SPOT "
                       "(or aiplatform.gapic.Scheduling.Strategy.SPOT; or the name itself, 'SPOT')")

    def _unchanged(self, node: ast.Name, inner: Assigned, what: str) -> None:
        """Refuse a name holding SDK forms that the code changed after its assignment (``params["b"] = hpt...``,
        ``params.update(...)``): its value is read from that one assignment's code."""
        from provider.document.python_values import Unknown

        now = self.scope.get(node.id)
        if isinstance(now, Unknown) and now.where is not None and now.where != inner.scope.where_of(inner.value):
            raise SdkError(self.at(node), f"{what}: {node.id} holds the SDK's forms (hpt parameter specs, enum "
                           f"members) and is changed after its assignment at {self.inner(inner, {}).at(inner.value)}:"
                           f" {now.why}; trainjobs reads such a value from its one assignment",
                           f"the whole value in one assignment ({node.id} = {{...}}), or a new name for the changed one")

    def _holding_form(self, node: ast.expr, what: str) -> object:
        """A choice, dict, list or tuple that holds an SDK form, read part by part."""
        from provider.document.python_values import Unknown

        if isinstance(node, ast.IfExp):  # SPOT if use_spot else None
            test = self.scope.evaluate(node.test)
            return _NO_FORM if isinstance(test, Unknown) else self.value(node.body if test else node.orelse, what)
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                raise SdkError(self.at(node), f"{what}: a ** inside a dict of hpt parameters is not read",
                               "each parameter written out: {'lr': hpt.DoubleParameterSpec(...)}")
            return {self.value(k, what): self.value(v, what) for k, v in zip(node.keys, node.values) if k is not None}
        if isinstance(node, (ast.List, ast.Tuple)):
            return [self.value(v, what) for v in node.elts]
        return _NO_FORM

    def _given(self, node: ast.Call, signature: str, what: str) -> tuple[dict[str, ast.expr], dict[str, object]]:
        """The arguments written (parameter -> expression) and those spread from a known dict by ``**``."""
        params = SIGNATURES[signature]
        given: dict[str, ast.expr] = {}
        if node.args and signature in KEYWORD_ONLY:
            raise SdkError(self.at(node.args[0]), f"{what}() takes its arguments by keyword only (the SDK raises "
                           "TypeError)", ", ".join(params))
        for index, arg in enumerate(node.args):
            if isinstance(arg, ast.Starred):
                raise SdkError(self.at(arg), f"{what}(*...): arguments spread from a sequence are not read",
                               "each argument by keyword")
            if index >= len(params):
                raise SdkError(self.at(arg), f"{what}() takes {len(params)} positional arguments, this is "
                               f"argument {index + 1} (the SDK raises TypeError)", ", ".join(params))
            given[params[index]] = arg
        spread: dict[str, object] = {}
        for kw in node.keywords:
            if kw.arg is None:
                known = self.value(kw.value, f"{what}(**...)")
                if not isinstance(known, dict) or not all(isinstance(k, str) for k in known):
                    raise SdkError(self.at(kw.value), f"{what}(**...) does not spread a dict of str keys",
                                   "a dict of the call's argument names")
                spread.update(known)
            elif kw.arg in given:
                raise SdkError(self.at(kw), f"{what}() gets {kw.arg} twice (the SDK raises TypeError)", "once")
            else:
                given[kw.arg] = kw.value
        return given, spread

    def bind(self, node: ast.Call, signature: str, what: str,
             keep: Callable[[str], bool] = lambda name: False) -> Call:
        """``node``'s arguments by parameter name (SIGNATURES[signature]); ``keep``: parameters left as ast nodes
        (a CustomJob object, a dataset: read by program.py and pipelines.py)."""
        params = SIGNATURES[signature]
        given, spread = self._given(node, signature, what)
        args: dict[str, object] = dict(spread)
        at: dict[str, str] = {name: self.at(node) for name in spread}
        for name, expr in given.items():
            at[name] = self.at(expr)
            if name in NOT_READ:
                args[name] = NOT_READ_VALUE
            elif keep(name):
                args[name] = expr
            elif name in NOTED.get(signature, ("project",)) or name in _FLAGGED:
                try:
                    args[name] = self.value(expr, f"{what}({name}=...)")
                except SdkError as exc:  # only named in a note (where convert's own flag gives the value)
                    if name in _FLAGGED and not (self.named if name == "display_name" else self.bucket):
                        raise SdkError(exc.where, exc.what, f"{exc.allowed}; or {_FLAGGED[name]}") from None
                    args[name] = Unread(ast.unparse(expr), exc.what.split(": ", 1)[-1], self.noun,
                                        self.bucket if name == "staging_bucket" else None)
            else:
                args[name] = self.value(expr, f"{what}({name}=...)")
        unknown = [name for name in args if name not in params]
        if unknown:
            raise SdkError(at[unknown[0]], f"{what}() takes no argument {unknown[0]!r} (the SDK raises TypeError)",
                           ", ".join(params))
        missing = [name for name in REQUIRED.get(signature, ()) if name not in args]
        if missing:
            raise SdkError(self.at(node), f"{what}() lacks {', '.join(missing)} (the SDK raises TypeError)",
                           ", ".join(params))
        return Call(what, self.at(node), args, at, self.noun)
