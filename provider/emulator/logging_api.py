"""Cloud Logging's ``entries.list`` for the emulator's jobs, so ``gcloud ai custom-jobs stream-logs`` works.

Vertex AI writes a custom job's replica output to Cloud Logging with the resource type
``ml_job`` and the labels ``job_id`` (the job's numeric id) and ``task_name`` (the replica,
``workerpool0-0``); ``gcloud ai custom-jobs stream-logs`` asks ``POST /v2/entries:list`` with
``resource.type="ml_job" AND resource.labels.job_id="ID"`` and a moving timestamp window
(command_lib/ai/log_util.py and command_lib/logs/stream.py in the Cloud SDK).

Here each line of the job's logs is one entry: a replica's under its task name, the environment
build's (pip) under the task name ``setup``. Its ``timestamp`` and ``receiveTimestamp`` are the time
the local backend recorded the line was written (provider.backends.local.log_times), so entries
come in the order they were written, across replicas; while the job runs only the lines stamped so
far are served, so a later call never brings a line older than one already served. The filter language understood is
the subset gcloud writes: ``AND``, ``OR``, parentheses, and comparisons (``=``, ``>``, ``>=``,
``<``, ``<=``) of ``resource.type``, ``resource.labels.*``, ``timestamp``, ``insertId`` and
``severity`` with quoted values; anything else is INVALID_ARGUMENT naming it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from provider.core.record import Record
from provider.emulator import paging
from provider.emulator.errors import FieldViolation, invalid
from provider.emulator.storage import Answer
from provider.emulator.wire import loads

if TYPE_CHECKING:
    from provider.emulator.routes import Request
    from provider.emulator.server import Emulator

Json = dict[str, Any]
Entry = dict[str, Any]
Test = Callable[[Entry], bool]

_TOKEN = re.compile(r'\s*(?:(\()|(\))|(AND\b|OR\b)|([A-Za-z_][\w.]*)\s*(>=|<=|=|>|<|:)\s*"((?:[^"\\]|\\.)*)")')
_MAX_PAGE = 1000


class _Cmp(Record):
    """One comparison of a Cloud Logging filter: ``field OP "value"``."""

    field: str
    op: str
    value: str


def _tokens(text: str) -> list[object]:
    out: list[object] = []
    pos = 0
    while pos < len(text.rstrip()):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise invalid(f"Unparseable filter: the emulator understands field OP \"value\" joined by AND / OR "
                          f"and parentheses; it stopped at {text[pos:pos + 40]!r}")
        lpar, rpar, joiner, field, op, value = m.groups()
        out.append(lpar or rpar or joiner or _Cmp(field, op, value.replace('\\"', '"')))
        pos = m.end()
    return out


def _value(entry: Entry, field: str) -> str | None:
    node: Any = entry
    for part in field.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node if isinstance(node, str) else None


def _time(text: str) -> datetime:
    """An RFC 3339 time (a naive one read as UTC); INVALID_ARGUMENT when it is not one."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise invalid(f"Unparseable filter: {text[:60]!r} is not a timestamp (RFC 3339, e.g. "
                      "\"2024-05-01T12:00:00Z\").") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _compare(c: _Cmp) -> Test:
    moment = _time(c.value) if c.field == "timestamp" else None

    def test(entry: Entry) -> bool:
        have = _value(entry, c.field)
        if have is None:
            return False
        left: Any = have
        right: Any = c.value
        if moment is not None:
            left, right = _time(have), moment
        if c.op in ("=", ":"):
            return bool(left == right)
        return bool({">": left > right, ">=": left >= right, "<": left < right, "<=": left <= right}[c.op])
    return test


class _Parser:
    def __init__(self, tokens: list[object]) -> None:
        self.tokens = tokens
        self.i = 0

    def peek(self) -> object:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def expr(self) -> Test:  # or-terms
        terms = [self.conj()]
        while self.peek() == "OR":
            self.i += 1
            terms.append(self.conj())
        return terms[0] if len(terms) == 1 else (lambda e: any(t(e) for t in terms))

    def conj(self) -> Test:  # and-terms (AND may be left out, as in Logging's syntax)
        terms = [self.atom()]
        while self.peek() not in (None, ")", "OR"):
            if self.peek() == "AND":
                self.i += 1
            terms.append(self.atom())
        return terms[0] if len(terms) == 1 else (lambda e: all(t(e) for t in terms))

    def atom(self) -> Test:
        tok = self.peek()
        self.i += 1
        if tok == "(":
            inner = self.expr()
            if self.peek() != ")":
                raise invalid("Unparseable filter: a parenthesis is never closed")
            self.i += 1
            return inner
        if isinstance(tok, _Cmp):
            return _compare(tok)
        raise invalid(f"Unparseable filter near {tok!r}")


def parse_filter(text: str) -> Test:
    tokens = _tokens(text or "")
    if not tokens:
        return lambda e: True
    parser = _Parser(tokens)
    test = parser.expr()
    if parser.peek() is not None:
        raise invalid(f"Unparseable filter near {parser.peek()!r}")
    return test


def _job_ids(text: str) -> list[str]:
    return re.findall(r'resource\.labels\.job_id\s*=\s*"([^"]+)"', text or "")


def _entries(app: Emulator, project: str, job_id: str) -> list[Entry]:
    """The job's lines as entries, in the order they were written, each with the time it was written."""
    from provider.backends.local.log_times import Reader

    logs = app.local.store.job_dir(job_id) / "logs"
    ended = app.local.get(job_id).state.terminal
    out: list[Entry] = []
    count: dict[str, int] = {}
    # While the job runs, only lines written up to the last stamping round: a line stamped later is
    # never older than one already served, so gcloud's moving window (timestamp > the last seen) misses none.
    for line in Reader(logs).read(final=ended):
        n = count[line.replica] = count.get(line.replica, -1) + 1
        trial, _, task = line.replica.rpartition("/")
        labels = {"job_id": job_id, "task_name": task, "project_id": project}
        if trial:
            labels["trial_id"] = trial.removeprefix("trial-")
        out.append({
            "logName": f"projects/{project}/logs/{task}", "textPayload": line.message, "severity": "INFO",
            "resource": {"type": "ml_job", "labels": labels},
            "timestamp": line.timestamp, "receiveTimestamp": line.timestamp, "insertId": f"{line.replica}-{n:09d}",
        })
    return out


_FIELDS = ("resourceNames", "filter", "orderBy", "pageSize", "pageToken", "projectIds")
_RESOURCE = re.compile(r"(projects|organizations|folders|billingAccounts)/[^/]+(/locations/[^/]+/buckets/[^/]+"
                       r"(/views/[^/]+)?)?")
_ORDER = {"": False, "timestamp": False, "timestamp asc": False, "timestamp desc": True}


class _Query(Record):
    """A ``ListLogEntriesRequest``, each field checked as Cloud Logging checks it."""

    resource_names: tuple[str, ...]
    filter: str
    descending: bool
    page_size: int
    page_token: str


def _strings(value: object, field: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise invalid(f"Invalid value at '{field}': expected a list of strings, got {json.dumps(value)[:80]}.",
                      (FieldViolation(field, "a list of strings"),))
    return tuple(value)


def _text(body: Json, field: str) -> str:
    value = body.get(field, "")
    if not isinstance(value, str):
        raise invalid(f"Invalid value at '{field}': expected a string, got {json.dumps(value)[:80]}.",
                      (FieldViolation(field, "a string"),))
    return value


def _query(raw: bytes) -> _Query:
    body = loads(raw, "list_log_entries_request")
    if not isinstance(body, dict):
        raise invalid("Invalid JSON payload received. Expected an object for list_log_entries_request.")
    for key in body:
        if key not in _FIELDS:
            raise invalid(f'Invalid JSON payload received. Unknown name "{key}": Cannot find field.',
                          (FieldViolation(key, f"unknown field; ListLogEntriesRequest has {', '.join(_FIELDS)}"),))
    names = _strings(body.get("resourceNames", []), "resource_names")
    names += tuple(f"projects/{p}" for p in _strings(body.get("projectIds", []), "project_ids"))
    bad = next((n for n in names if not _RESOURCE.fullmatch(n)), None)
    if bad is not None:
        raise invalid(f"Invalid resource name {bad[:80]!r}: expected projects/PROJECT (or organizations/, folders/, "
                      "billingAccounts/).", (FieldViolation("resource_names", "projects/PROJECT"),))
    order = _text(body, "orderBy").strip().lower()
    if order not in _ORDER:
        raise invalid(f"Invalid orderBy {order[:80]!r}: Cloud Logging orders by \"timestamp asc\" or "
                      "\"timestamp desc\".", (FieldViolation("order_by", "timestamp asc or timestamp desc"),))
    size = body.get("pageSize", 0)
    if isinstance(size, str) and re.fullmatch(r"-?[0-9]{1,10}", size):
        size = int(size)  # proto3 JSON writes int32 as a number, and reads a numeric string too
    if isinstance(size, bool) or not isinstance(size, int) or not 0 <= size <= 2**31 - 1:
        raise invalid(f"Invalid value at 'page_size' (TYPE_INT32): {json.dumps(size)[:80]} is not a non-negative "
                      "integer.", (FieldViolation("page_size", "a non-negative integer"),))
    return _Query(names, _text(body, "filter"), _ORDER[order], min(size or _MAX_PAGE, _MAX_PAGE),
                  _text(body, "pageToken"))


def list_entries(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    """``POST /v2/entries:list``: the entries of the jobs the filter names, filtered, sorted, paged."""
    query = _query(request.body)
    names = query.resource_names
    project = names[0].split("/")[1] if names and names[0].startswith("projects/") else "-"
    test = parse_filter(query.filter)
    digest = ("\0".join(names), query.filter, str(query.descending))
    after = paging.decode(query.page_token, *digest)
    entries = [e for job_id in _job_ids(query.filter) if job_id in app.local.store.ids()
               for e in _entries(app, project, job_id) if test(e)]
    entries.sort(key=lambda e: (e["timestamp"], e["insertId"]), reverse=query.descending)
    if after is not None:
        entries = [e for e in entries if ((e["timestamp"], e["insertId"]) < after) == query.descending
                   and (e["timestamp"], e["insertId"]) != after]
    page: Json = {"entries": entries[:query.page_size]}
    if len(entries) > query.page_size:
        last = entries[query.page_size - 1]
        page["nextPageToken"] = paging.encode((last["timestamp"], last["insertId"]), *digest)
    return Answer(json=page)
