"""The list filter of customJobs.list and hyperparameterTuningJobs.list (an AIP-160 subset).

Fields, as Vertex AI documents them (snake_case or camelCase):

* ``display_name``: ``=``, ``!=``, and ``:`` with ``*`` wildcards (``display_name:"my_job_*"``)
* ``state``: ``=``, ``!=`` (``state="JOB_STATE_SUCCEEDED"``)
* ``create_time``, ``update_time``: ``=``, ``!=``, ``<``, ``<=``, ``>``, ``>=`` with an RFC 3339 time
  (or a full date, ``"2022-06-11"``: that day's start in UTC)
* ``labels.KEY``: ``=``, ``!=``, and ``:`` (``labels.key:*`` means the key is set)

Terms combine with ``AND``, ``OR``, ``NOT`` (or a leading ``-``) and parentheses. As in AIP-160,
``OR`` binds tighter than ``AND``: ``a AND b OR c`` is ``a AND (b OR c)``. Terms side by side
mean AND. Values are quoted ("...") or bare words; a time must be quoted. ``:`` without a ``*``
matches the whole value.

``compile`` also says which fields a filter reads: one that reads neither ``state`` nor
``update_time`` can be checked on a job's stored request alone, before its state is looked up.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import json
import re
from collections.abc import Callable
from typing import Any

from provider.backends.vertex.states import PIPELINE_STATE_NAMES, VERTEX_STATE_NAMES
from provider.core.record import Record
from provider.emulator.errors import ApiError, invalid

Json = dict[str, Any]
Predicate = Callable[[Json], bool]

_TOKEN = re.compile(r'\s*(?:(?P<lp>\()|(?P<rp>\))|(?P<op><=|>=|!=|=|<|>|:)|(?P<str>"(?:[^"\\]|\\.)*")'
                    r'|(?P<word>[^\s()=!<>:"]+))')
_FIELDS = {"display_name": "displayName", "displayName": "displayName", "state": "state",
           "create_time": "createTime", "createTime": "createTime", "update_time": "updateTime",
           "updateTime": "updateTime"}
_OPS = {"displayName": ("=", "!=", ":"), "state": ("=", "!="), "labels": ("=", "!=", ":"),
        "createTime": ("=", "!=", "<", "<=", ">", ">="), "updateTime": ("=", "!=", "<", "<=", ">", ">=")}
_STATES = VERTEX_STATE_NAMES + PIPELINE_STATE_NAMES  # a job's, and a training pipeline's
_SUPPORTED = "display_name, state, create_time, update_time and labels.KEY"


class Token(Record):
    """One token of a list filter: its kind, its text, and where it starts in the filter."""

    kind: str  # lp | rp | op | str | word
    text: str
    at: int


def _error(text: str, why: str) -> ApiError:
    return invalid(f"Invalid filter {text!r}: {why}. Supported fields: {_SUPPORTED}; operators AND, OR, NOT "
                   "and parentheses (Vertex AI's list filter).")


def tokenize(text: str) -> list[Token]:
    out, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise _error(text, f"unexpected character at {pos + 1}")
        kind = m.lastgroup or "word"
        out.append(Token(kind, m.group(kind), m.start(kind)))
        pos = m.end()
    return out


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _time(text: str, value: str) -> dt.datetime:
    if _DATE.fullmatch(value):  # RFC 3339's full-date, as Google's samples write it: that day's start, UTC
        value += "T00:00:00Z"
    try:
        parsed = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise _error(text, f"{value!r} is not an RFC 3339 time such as \"2021-05-18T00:00:00Z\"") from None
    if parsed.tzinfo is None:
        raise _error(text, f"{value!r} has no time zone (end it with Z)")
    return parsed


def _glob(pattern: str, value: str) -> bool:
    if "*" not in pattern:
        return value == pattern
    return fnmatch.fnmatchcase(value, pattern.replace("[", "[[]").replace("?", "[?]"))


class JobFilter(Record):
    """A compiled filter: the predicate, and the REST fields it reads."""

    predicate: Predicate
    fields: frozenset[str]  # displayName, labels, state, createTime, updateTime

    @property
    def needs_status(self) -> bool:
        """Whether the job's state must be looked up to decide (``state`` or ``update_time``)."""
        return bool(self.fields & {"state", "updateTime"})


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.pos = 0
        self.fields: set[str] = set()

    def peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> Token:
        token = self.peek()
        if token is None:
            raise _error(self.text, "it ends too early")
        self.pos += 1
        return token

    def keyword(self, word: str) -> bool:
        token = self.peek()
        if token is not None and token.kind == "word" and token.text == word:
            self.pos += 1
            return True
        return False

    def parse(self) -> Predicate:
        if not self.tokens:
            return lambda job: True
        predicate = self.expression()
        if self.peek() is not None:
            raise _error(self.text, f"unexpected {self.peek().text!r}")  # type: ignore[union-attr]
        return predicate

    def expression(self) -> Predicate:  # AND (or side by side), the loosest
        parts = [self.factor()]
        while True:
            token = self.peek()
            if token is None or token.kind == "rp":
                break
            self.keyword("AND")
            parts.append(self.factor())
        return parts[0] if len(parts) == 1 else (lambda job: all(p(job) for p in parts))

    def factor(self) -> Predicate:  # OR binds tighter than AND (AIP-160)
        parts = [self.term()]
        while self.keyword("OR"):
            parts.append(self.term())
        return parts[0] if len(parts) == 1 else (lambda job: any(p(job) for p in parts))

    def term(self) -> Predicate:
        if self.keyword("NOT"):
            inner = self.term()
            return lambda job: not inner(job)
        token = self.peek()
        if token is not None and token.kind == "word" and token.text.startswith("-") and len(token.text) > 1:
            self.tokens[self.pos] = Token("word", token.text[1:], token.at + 1)
            inner = self.term()
            return lambda job: not inner(job)
        if token is not None and token.kind == "lp":
            self.take()
            inner = self.expression()
            closing = self.take()
            if closing.kind != "rp":
                raise _error(self.text, f"expected ')' at {closing.at + 1}")
            return inner
        return self.restriction()

    def restriction(self) -> Predicate:
        name = self.take()
        if name.kind != "word" or name.text in ("AND", "OR", "NOT"):
            raise _error(self.text, f"expected a field name at {name.at + 1}, found {name.text!r}")
        op = self.take()
        if op.kind != "op":
            raise _error(self.text, f"expected an operator after {name.text!r}")
        value_token = self.take()
        if value_token.kind not in ("str", "word"):
            raise _error(self.text, f"expected a value after {name.text}{op.text}")
        value = json.loads(value_token.text) if value_token.kind == "str" else value_token.text
        return self.compare(name.text, op.text, value)

    def compare(self, field: str, op: str, value: str) -> Predicate:
        if field.startswith("labels."):
            key = field[len("labels."):].strip('"')
            self.check_op("labels", field, op)
            self.fields.add("labels")
            if op == ":":
                return (lambda job: key in (job.get("labels") or {})) if value == "*" else \
                    (lambda job: _glob(value, (job.get("labels") or {}).get(key, "\0")))
            equal = op == "="
            return lambda job: ((job.get("labels") or {}).get(key) == value) == equal
        target = _FIELDS.get(field)
        if target is None:
            raise _error(self.text, f"unknown field {field!r}")
        self.check_op(target, field, op)
        self.fields.add(target)
        if target == "state":
            if value not in _STATES:
                raise _error(self.text, f"{value!r} is not a job state (JOB_STATE_SUCCEEDED, JOB_STATE_FAILED ...)")
            return lambda job: (job.get("state", "JOB_STATE_UNSPECIFIED") == value) == (op == "=")
        if target == "displayName":
            if op == ":":
                return lambda job: _glob(value, job.get("displayName", ""))
            return lambda job: (job.get("displayName", "") == value) == (op == "=")
        when = _time(self.text, value)
        compare: Callable[[Any], bool] = {"=": lambda a: a == when, "!=": lambda a: a != when, "<": lambda a: a < when,
                   "<=": lambda a: a <= when, ">": lambda a: a > when, ">=": lambda a: a >= when}[op]
        return lambda job: bool(job.get(target)) and compare(_time(self.text, job[target]))

    def check_op(self, target: str, field: str, op: str) -> None:
        if op not in _OPS[target]:
            raise _error(self.text, f"{field} does not support {op!r} (only {', '.join(_OPS[target])})")


def parse(text: str) -> Predicate:
    """A predicate over a job's REST JSON (enum names); ApiError INVALID_ARGUMENT when malformed."""
    return compile_filter(text).predicate


def compile_filter(text: str) -> JobFilter:
    """The predicate and the fields it reads; ApiError INVALID_ARGUMENT when malformed."""
    parser = _Parser(text or "")
    predicate = parser.parse()
    return JobFilter(predicate, frozenset(parser.fields))
