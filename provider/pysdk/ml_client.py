"""Python that creates an AI Platform job with Google's discovery client: ``ml.projects().jobs().create(...)``.

Scripts written for AI Platform Training build ``ml = googleapiclient.discovery.build('ml', 'v1')`` and send
``ml.projects().jobs().create(parent='projects/P', body={'jobId': ..., 'trainingInput': {...}}).execute()``.
The body is a ``projects.jobs.create`` body, the Job convert reads as a file (its ``trainingInput`` by either
name of each field, as ml.googleapis.com reads the JSON the client sends). It is read statically with the
same reader as a JobServiceClient call's (gapic.RequestReader: each key at its line and column), and
``parent``'s project is noted: it is where the request would be sent, not part of the job.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from provider.pysdk.arguments import SdkError
from provider.pysdk.gapic import RequestReader

if TYPE_CHECKING:
    from provider.document.loaded import LoadedDocument
    from provider.pysdk.binding import Reader

KIND = "ml.projects().jobs().create"
_BUILD = ("googleapiclient.discovery.build", "apiclient.discovery.build")
_PARENT = re.compile(r"projects/([^/\s]+)")


def _chain(node: ast.Call) -> ast.expr | None:
    """``X`` when ``node`` is ``X.projects().jobs().create(...)``, else None."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "create" and isinstance(func.value, ast.Call)):
        return None
    jobs = func.value.func
    if not (isinstance(jobs, ast.Attribute) and jobs.attr == "jobs" and isinstance(jobs.value, ast.Call)):
        return None
    projects = jobs.value.func
    if not (isinstance(projects, ast.Attribute) and projects.attr == "projects"):
        return None
    return projects.value


def creates(node: ast.Call, reader: Reader) -> ast.Call | None:
    """The ``projects().jobs().create(...)`` call ``node`` makes (itself, or the call its ``.execute()`` runs) on
    a discovery client of the ml API; None for any other call."""
    if isinstance(node.func, ast.Attribute) and node.func.attr == "execute" and isinstance(node.func.value, ast.Call):
        node = node.func.value
    receiver = _chain(node)
    if receiver is None:
        return None
    if isinstance(receiver, ast.Name) and receiver.id in reader.assigned:
        assigned = reader.assigned[receiver.id]
        receiver, reader = assigned.value, reader.inner(assigned, {})
    if isinstance(receiver, ast.Call) and reader.qualified(receiver.func) in _BUILD and receiver.args:
        api = reader.value(receiver.args[0], "discovery.build(serviceName)")
        return node if api == "ml" else None
    return None


def named_create(node: ast.AST) -> str | None:
    """``ml.projects().jobs().create`` for such a call found inside a block (its receiver is not resolved there)."""
    if isinstance(node, ast.Call) and _chain(node) is not None:
        return ast.unparse(node.func)
    return None


def read_request(node: ast.Call, reader: Reader, notes: list[str]) -> LoadedDocument:
    """The Job ``node`` sends, as a mapping convert reads; its parent's project noted."""
    what = ast.unparse(node.func)
    if node.args:
        raise SdkError(reader.at(node.args[0]), f"{what}() takes its arguments by keyword (the client raises "
                       "TypeError)", "parent=... and body=...")
    given = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
    unknown = sorted(set(given) - {"parent", "body"}) or (["**"] if len(given) < len(node.keywords) else [])
    if unknown:
        raise SdkError(reader.at(node), f"{what}() takes no argument {unknown[0]!r} here", "parent=... and body=...")
    if "body" not in given:
        raise SdkError(reader.at(node), f"{what}() gives no body: there is no job to convert",
                       "body={'jobId': ..., 'trainingInput': {...}}")
    request = RequestReader(reader, what)
    if "parent" in given:
        parent = reader.value(given["parent"], f"{what}(parent=...)")
        match = _PARENT.fullmatch(parent) if isinstance(parent, str) else None
        if match is None:
            raise SdkError(reader.at(given["parent"]), f"{what}(parent=...) is {parent!r}", "projects/PROJECT")
        notes.append(f"parent {parent}: the project {match.group(1)} is where the request would be sent, not part "
                     "of the job: the stack's project is used")
    body = request.value(given["body"], f"{what}(body=...)")
    if not isinstance(body, dict):
        raise SdkError(reader.at(given["body"]), f"{what}(body=...) is a {type(body).__name__}",
                       "a Job mapping: {'jobId': ..., 'trainingInput': {...}}")
    request.doc.data = body
    notes += request.notes
    if reader.cell:  # a cell's lines are not the notebook file's: its problems are named by field path
        request.forget_places()
    return request.doc
