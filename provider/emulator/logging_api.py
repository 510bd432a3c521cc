"""Cloud Logging's ``entries.list`` for the emulator's jobs, so ``gcloud ai custom-jobs stream-logs`` works.

Vertex AI writes a custom job's replica output to Cloud Logging with the resource type
``ml_job`` and the labels ``job_id`` (the job's numeric id) and ``task_name`` (the replica,
``workerpool0-0``); ``gcloud ai custom-jobs stream-logs`` asks ``POST /v2/entries:list`` with
``resource.type="ml_job" AND resource.labels.job_id="ID"`` and a moving timestamp window
(command_lib/ai/log_util.py and command_lib/logs/stream.py in the Cloud SDK).

Here each line of a replica's log file is one entry. The files carry no times, so a line's
timestamp is the job's start plus its line number in microseconds: stable between calls and
increasing within a replica, which is what the window needs. The filter language understood is
the subset gcloud writes: ``AND``, ``OR``, parentheses, and comparisons (``=``, ``>``, ``>=``,
``<``, ``<=``) of ``resource.type``, ``resource.labels.*``, ``timestamp``, ``insertId`` and
``severity`` with quoted values; anything else is INVALID_ARGUMENT naming it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from provider.core.record import Record
from provider.emulator.errors import invalid
from provider.emulator.storage import Answer

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
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _compare(c: _Cmp) -> Test:
    def test(entry: Entry) -> bool:
        have = _value(entry, c.field)
        if have is None:
            return False
        left: Any = have
        right: Any = c.value
        if c.field == "timestamp":
            left, right = _time(have), _time(c.value)
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
    files: list[Path] = app.local.log_files(job_id)
    if not files:
        return []
    logs = app.local.store.job_dir(job_id) / "logs"
    base = datetime.fromtimestamp(min(p.stat().st_mtime for p in [logs, *files]) - 1, tz=UTC)
    record = app.store.job(job_id)
    created = record.get("create_time") if isinstance(record, dict) else None
    if isinstance(created, str):
        base = _time(created)
    out: list[Entry] = []
    for path in files:
        rel = path.relative_to(logs).with_suffix("").as_posix()
        trial, _, task = rel.rpartition("/")
        labels = {"job_id": job_id, "task_name": task, "project_id": project}
        if trial:
            labels["trial_id"] = trial.removeprefix("trial-")
        text = path.read_text(encoding="utf-8", errors="replace")
        for n, line in enumerate(text.splitlines()):
            ts = base + timedelta(microseconds=n + 1)
            out.append({
                "logName": f"projects/{project}/logs/{task}", "textPayload": line, "severity": "INFO",
                "resource": {"type": "ml_job", "labels": labels},
                "timestamp": ts.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "insertId": f"{rel}-{n:09d}",
            })
    return out


def list_entries(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    """``POST /v2/entries:list``: the entries of the jobs the filter names, filtered, sorted, paged."""
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        raise invalid("Invalid JSON payload received.") from None
    if not isinstance(body, dict):
        raise invalid("Invalid JSON payload received: expected an object.")
    names = body.get("resourceNames") or []
    project = str(names[0]).split("/")[1] if names and str(names[0]).startswith("projects/") else "-"
    text = str(body.get("filter") or "")
    test = parse_filter(text)
    entries = [e for job_id in _job_ids(text) if job_id in app.local.store.ids()
               for e in _entries(app, project, job_id) if test(e)]
    entries.sort(key=lambda e: (e["timestamp"], e["insertId"]),
                 reverse=str(body.get("orderBy") or "").lower().endswith("desc"))
    start = int(body.get("pageToken") or 0)
    size = max(1, min(int(body.get("pageSize") or _MAX_PAGE), _MAX_PAGE))
    page: Json = {"entries": entries[start:start + size]}
    if start + size < len(entries):
        page["nextPageToken"] = str(start + size)
    return Answer(json=page)
