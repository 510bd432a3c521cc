"""The list filter of TensorBoard's and the metadata service's collections (an AIP-160 subset).

The grammar is the job filter's (filters.py: AND, OR, NOT, ``-``, parentheses; OR binds
tighter), over these restrictions, as Vertex AI documents them for ListArtifacts, ListContexts,
ListExecutions and ListTensorboards*:

* a field of the resource, snake_case or camelCase: ``display_name``, ``schema_title``, ``uri``,
  ``state``, ``is_default``, ``value_type``, ... with ``=``, ``!=`` and ``:`` (``*`` wildcards, with
  ``=`` too as AIP-160 has them: the SDK's sample lists ``display_name="my_model_*"``);
* ``create_time`` and ``update_time`` with ``=``, ``!=``, ``<``, ``<=``, ``>``, ``>=`` and an RFC 3339 time
  (or a full date, ``"2022-06-11"``: that day's start in UTC);
* ``labels.KEY`` and ``metadata.KEY`` (``metadata.KEY.number_value``, ``.string_value``,
  ``.bool_value`` as the reference writes them) with the same operators, numbers compared as numbers;
* ``in_context("CONTEXT")``: an artifact or execution attributed or associated to that context;
* ``parent_contexts:"CONTEXT"[,"CONTEXT"...]``: a context that is a child of one of those.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from provider.emulator import filters
from provider.emulator.errors import ApiError, invalid
from provider.emulator.resource_store import ResourceStore

Json = dict[str, Any]
Predicate = Callable[[Json], bool]
_TYPED = (".number_value", ".string_value", ".bool_value")
_SUPPORTED = ("display_name, schema_title, uri, state and other fields, create_time, update_time, labels.KEY, "
              "metadata.KEY, in_context(\"CONTEXT\") and parent_contexts:\"CONTEXT\"")
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "=": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def _error(text: str, why: str) -> ApiError:
    return invalid(f"Invalid filter {text!r}: {why}. Supported: {_SUPPORTED}; operators AND, OR, NOT and "
                   "parentheses (Vertex AI's list filter).")


def _camel(path: str) -> str:
    head, *rest = path.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _scalar(value: object) -> object:
    """A JSON value as a filter compares it: numbers as floats, booleans as true/false words."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return float(value)
    return value


def _literal(value: str) -> object:
    try:
        return float(value)
    except ValueError:
        return value


class _Parser(filters._Parser):
    def __init__(self, text: str, records: ResourceStore) -> None:
        super().__init__(text)
        self.records = records

    def restriction(self) -> Predicate:
        token = self.peek()
        if token is not None and token.kind == "word" and token.text == "in_context":
            self.take()
            parts = [self.take(), self.take(), self.take()]
            if [p.kind for p in parts] != ["lp", "str", "rp"]:
                raise _error(self.text, 'in_context takes one quoted context name: in_context("projects/...")')
            return self.in_context(json.loads(parts[1].text))
        if token is not None and token.kind == "word" and _camel(token.text) == "parentContexts":
            self.take()
            if self.take().text != ":":
                raise _error(self.text, "parent_contexts takes ':' and quoted context names")
            names = [json.loads(self.take().text)]
            while (nxt := self.peek()) is not None and nxt.kind == "word" and nxt.text == ",":
                self.take()
                names.append(json.loads(self.take().text))
            return lambda view: bool(set(view.get("parentContexts") or ()) & set(names))
        return super().restriction()

    def in_context(self, context: str) -> Predicate:
        def member(view: Json) -> bool:
            record = self.records.get(context)
            links = (record or {}).get("links") or {}
            return view.get("name") in set(links.get("artifacts", ())) | set(links.get("executions", ()))
        return member

    def compare(self, field: str, op: str, value: str) -> Predicate:
        if op not in _COMPARE and op != ":":
            raise _error(self.text, f"unknown operator {op!r}")
        getter = _getter(self.text, field)
        if _camel(field) in ("createTime", "updateTime"):
            when = filters._time(self.text, value)
            if op == ":":
                raise _error(self.text, f"{field} does not support ':'")
            at = _COMPARE[op]
            return lambda view: bool(getter(view)) and at(filters._time(self.text, str(getter(view))), when)
        if op == ":":
            return lambda view: getter(view) is not None and (value == "*" or
                                                              filters._glob(value, str(_scalar(getter(view)))))
        if op in ("=", "!=") and "*" in value:  # AIP-160: '=' with a '*' in a string is a wildcard match
            return lambda view: (getter(view) is not None and filters._glob(value, str(_scalar(getter(view))))) \
                == (op == "=")
        wanted = _literal(value)
        compare = _COMPARE[op]

        def test(view: Json) -> bool:
            got = _scalar(getter(view))
            if got is None:
                return op == "!="
            if isinstance(got, float) != isinstance(wanted, float):
                return compare(str(got), value) if not isinstance(got, float) else False
            try:
                return compare(got, wanted)
            except TypeError:
                return False
        return test


def _getter(text: str, field: str) -> Callable[[Json], object]:
    """What a restriction's field reads from a resource's JSON."""
    path = field.split(".")
    if path[0] in ("metadata", "labels"):
        key = ".".join(path[1:])
        for suffix in _TYPED:
            key = key.removesuffix(suffix)
        key = key.strip('"')
        return lambda view: (view.get(path[0]) or {}).get(key)
    if len(path) == 1:
        name = _camel(field)
        return lambda view: view.get(name)
    raise _error(text, f"unknown field {field!r}")


def compile_filter(text: str, records: ResourceStore) -> Predicate:
    """A predicate over a resource's REST JSON; ApiError INVALID_ARGUMENT when malformed."""
    return _Parser(text or "", records).parse()
