"""Python that creates a job with the API's own client: ``JobServiceClient.create_custom_job(parent=..., custom_job=...)``.

Google's samples (``create_custom_job_sample.py``, ``create_hyperparameter_tuning_job_sample.py``) build the
job as a dict or with the client's message classes (``aiplatform_v1.WorkerPoolSpec(...)``), by proto names,
with enum members (``aiplatform.gapic.AcceleratorType.NVIDIA_TESLA_T4``), and send it with
``aiplatform.gapic.JobServiceClient``. The call's arguments are a create request, ``{parent, custom_job}``
(``CreateCustomJobRequest``), or ``request=`` holding one. They are read statically (never run) into that
mapping, each key at the line and column it was written, and converted as a request file is
(provider/cli/convert_request.py, then convert_mapping): one reading of a request, wherever it is written.

A message class is read as the dict of its keyword arguments (proto-plus takes the same fields by the same
names); an enum member (the evaluator's, provider/document/python_enum.py) as its name. Anything else is the evaluator's (binding.Reader.value): a value it cannot
know is refused naming the argument. The client call's own options (``retry``, ``timeout``, ``metadata``) are
not part of the job: each is named in a note.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Container, Sequence
from typing import TYPE_CHECKING

from provider.core.job_kinds import KINDS
from provider.document.python_enum import named
from provider.pysdk import message_changes
from provider.pysdk.arguments import SdkError

if TYPE_CHECKING:
    from provider.document.loaded import LoadedDocument
    from provider.document.python_values import Scope
    from provider.pysdk.binding import Reader

# JobServiceClient's create method -> the request's field holding the job (create_custom_job -> custom_job).
METHODS = {f"create_{kind.method}": kind.method for kind in KINDS}
_PACKAGE = "google.cloud.aiplatform"  # aiplatform.gapic, aiplatform_v1, aiplatform_v1beta1 and their types
_CALL_OPTIONS = ("retry", "timeout", "metadata")
_NOT_FOLLOWED = object()
_NAMES = frozenset({"display_name", "displayName", "jobId", "job_id"})  # the key that names the job, in a request


def _ours(qualified: str | None) -> bool:
    return qualified is not None and (qualified + ".").startswith(_PACKAGE)


def builds_client(node: ast.expr, reader: Reader) -> bool:
    """Whether ``node`` is the client's constructor, ``aiplatform.gapic.JobServiceClient(...)``."""
    qualified = reader.qualified(node.func) if isinstance(node, ast.Call) else None
    return _ours(qualified) and qualified is not None and qualified.rsplit(".", 1)[-1] == "JobServiceClient"


def creates(node: ast.Call, reader: Reader, clients: Container[str] = ()) -> str | None:
    """The create method ``node`` calls on a JobServiceClient (``create_custom_job``), or None; ``clients``: what holds
    a client the code built, as written (``clients["job"]``, set from a function returning one)."""
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr not in METHODS:
        return None
    receiver = func.value
    if ast.unparse(receiver) in clients:
        return func.attr
    if isinstance(receiver, ast.Name) and receiver.id in reader.assigned:
        assigned = reader.assigned[receiver.id]
        receiver = assigned.value
        reader = reader.inner(assigned, {})
    return func.attr if builds_client(receiver, reader) else None


def named_create(node: ast.AST) -> str | None:
    """``client.create_custom_job`` for such a call found inside a block (its receiver is not resolved there)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in METHODS:
        return ast.unparse(node.func)
    return None


class RequestReader:
    """The request's mapping, built from the call's expressions, with where each key and value was written."""

    def __init__(self, reader: Reader, what: str) -> None:
        from provider.document.loaded import LoadedDocument

        self.reader, self.what = reader, what
        self.doc = LoadedDocument(data=None)
        self.following: set[int] = set()  # the assignments being read, so that one read from itself is not followed
        self.kinds: dict[int, str] = {}  # the message class each mapping read from one is (by id): message_changes
        self.notes: list[str] = []  # a job's name known only when the code runs, given by convert --name instead

    def place(self, node: ast.AST) -> tuple[int, int]:
        line = getattr(node, "lineno", 1)
        return line, getattr(node, "col_offset", 0) + 1

    def value(self, node: ast.expr, what: str) -> object:
        reader = self.reader
        if isinstance(node, ast.Name) and node.id in reader.assigned:  # a dict or message built earlier
            found = self._assigned(node, what)
            if found is not _NOT_FOLLOWED:
                return found
        if isinstance(node, ast.Dict) and all(k is not None for k in node.keys):
            return self._mapping([(k, v) for k, v in zip(node.keys, node.values) if k is not None], node, what)
        if isinstance(node, (ast.List, ast.Tuple)):
            return self._items(node, what)
        qualified = reader.qualified(node.func if isinstance(node, ast.Call) else node) \
            if isinstance(node, (ast.Call, ast.Attribute, ast.Name)) else None
        if isinstance(node, ast.Call) and _ours(qualified):
            return self._message(node, what)
        if isinstance(node, ast.Call) and qualified == "datetime.timedelta":
            return self._duration(node, what)
        # an enum member (AcceleratorType.NVIDIA_TESLA_T4, or a name holding one): its name, as proto-plus reads it
        return named(reader.value(node, what))

    def _items(self, node: ast.List | ast.Tuple, what: str) -> list[object]:
        items = [self.value(item, f"{what}[{i}]") for i, item in enumerate(node.elts)]
        self.doc.starts[id(items)] = self.place(node)
        self.doc.item_positions[id(items)] = [self.place(item) for item in node.elts]
        return items

    def _duration(self, node: ast.Call, what: str) -> str:
        """``timedelta(hours=1)`` as proto-plus gives a Duration field: its JSON form, "3600s"."""
        import datetime as dt

        values = [self.reader.value(arg, what) for arg in node.args]
        named = {kw.arg: self.reader.value(kw.value, what) for kw in node.keywords if kw.arg is not None}
        numbers = [*values, *named.values()]
        if any(kw.arg is None for kw in node.keywords) or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in numbers):
            raise SdkError(self.reader.at(node), f"{what}: {ast.unparse(node)} is not a timedelta of known numbers",
                           "timedelta(seconds=N), minutes=, hours=, days=")
        try:
            seconds = dt.timedelta(*values, **named).total_seconds()  # type: ignore[arg-type]
        except (TypeError, OverflowError) as exc:
            raise SdkError(self.reader.at(node), f"{what}: {ast.unparse(node)}: {exc}",
                           "timedelta(seconds=N), minutes=, hours=, days=") from None
        return f"{seconds:g}s" if seconds != int(seconds) else f"{int(seconds)}s"

    def forget_places(self) -> None:
        for table in (self.doc.starts, self.doc.key_positions, self.doc.value_positions, self.doc.item_positions):
            table.clear()

    def where(self, container: dict[str, object], key: str) -> str:
        line, column = self.doc.key_positions.get(id(container), {}).get(key, (0, 0))
        shown = self.reader.shown
        return f"{shown}, line {line}, column {column}" if self.reader.cell else f"{shown}:{line}:{column}"

    def check(self, value: dict[str, object], message: str, path: str) -> None:
        """``value`` as proto-plus builds ``message`` from it: a key by its proto name only (a JSON name is an
        unknown field to it: ValueError), and a str never where a list is taken (it would be split into its
        characters); each refused at its place."""
        from provider.spec.formats.vertex.keys import snake
        from provider.spec.formats.vertex.proto_names import messages

        fields = {snake(name): kind for name, kind in messages()[message].items()}
        json_names = {name: snake(name) for name in messages()[message]}
        for key, item in value.items():
            kind = fields.get(key)
            if kind is None:
                proto = json_names.get(key)
                fix = f"write {proto}" if proto else f"the fields of {message}: {', '.join(fields)}"
                said = f" (its JSON name; the client takes the proto name {proto})" if proto else ""
                raise SdkError(self.where(value, key), f"{path}{key}: Unknown field for {message}: {key}{said}: the "
                               "client raises ValueError when it builds the request", fix)
            head, _, inner = kind.partition(" ")
            if head in ("list", "messages") and isinstance(item, str):
                raise SdkError(self.where(value, key), f"{path}{key} is a str where {message}.{key} takes a list: "
                               f"the client would send each of its {len(item)} characters as an item",
                               f"{key}: [{item!r}]")
            if head == "message" and isinstance(item, dict):
                self.check(item, inner.partition(" ")[0], f"{path}{key}.")
            elif head == "messages" and isinstance(item, list):
                for index, one in enumerate(item):
                    if isinstance(one, dict):
                        self.check(one, inner.partition(" ")[0], f"{path}{key}[{index}].")

    def _assigned(self, node: ast.Name, what: str) -> object:
        """The value of a name given a dict or message earlier, read from its assignment's code (so each key keeps
        its line), but only where that is the value Python gives the name here: the evaluator's own value when it
        knows it and the code reads otherwise (the name assigned again, or from itself), and the assignment the
        evaluator says set it when its value holds the client's forms. _NOT_FOLLOWED otherwise."""
        from provider.document.python_unknown import Unknown

        reader = self.reader
        assigned = reader.assigned[node.id]
        now = reader.scope.get(node.id)
        if not isinstance(assigned.value, (ast.Dict, ast.List, ast.Call, ast.Attribute)) or id(assigned) in self.following:
            return _NOT_FOLLOWED
        changes, why = [], None  # the changes made to it: read only where the evaluator cannot hold its value
        if isinstance(now, Unknown):
            changes = message_changes.applicable(assigned, reader.order, not isinstance(assigned.value, ast.Call))
            why = message_changes.unaccounted(assigned, changes, now)
        if why:
            raise SdkError(reader.at(node), f"{what}: {node.id} holds the client's message classes or enum members "
                           f"and {why}: trainjobs reads such a value from its assignment at "
                           f"{reader.inner(assigned, {}).at(assigned.value)} and the fields set on it after "
                           "(NAME.FIELD = VALUE)",
                           "the value whole in its assignment, or each field set by NAME.FIELD = VALUE")
        if why is not None:
            raise SdkError(reader.at(node), f"{what}: {node.id} holds the client's message classes or enum members "
                           f"and is assigned again at {reader.inner(assigned, {}).at(assigned.value)}, after the "
                           f"value used here ({getattr(now, 'where', '')}): trainjobs reads such a value from its one assignment",
                           "a name assigned once, or a new name for the second value")
        outer, self.reader = self.reader, reader.inner(assigned, reader.assigned)
        self.following.add(id(assigned))
        try:
            found = self.value(assigned.value, what)
            if isinstance(now, Unknown):
                found = message_changes.apply(self, found, changes, what)
        finally:
            self.reader = outer
            self.following.discard(id(assigned))
        return found if isinstance(now, Unknown) or found == named(now) else _NOT_FOLLOWED

    def _message(self, node: ast.Call, what: str) -> dict[str, object]:
        name = ast.unparse(node.func)
        if node.args:
            if len(node.args) == 1 and not node.keywords:  # WorkerPoolSpec({...}): a mapping given whole
                found = self.value(node.args[0], what)
                if isinstance(found, dict):
                    self.kinds[id(found)] = message_changes.message_name(self.reader.qualified(node.func))
                    return found
            raise SdkError(self.reader.at(node), f"{what}: {name}(...) with positional arguments is not read",
                           f"{name}(field=value, ...) or {name}({{...}})")
        if any(kw.arg is None for kw in node.keywords):
            raise SdkError(self.reader.at(node), f"{what}: {name}(**...) is not read", f"{name}(field=value, ...)")
        found = self._mapping([(kw, kw.value) for kw in node.keywords], node, what)
        self.kinds[id(found)] = message_changes.message_name(self.reader.qualified(node.func))
        return found

    def _mapping(self, items: Sequence[tuple[ast.AST, ast.expr]], node: ast.AST, what: str) -> dict[str, object]:
        out: dict[str, object] = {}
        keys: dict[str, tuple[int, int]] = {}
        values: dict[str, tuple[int, int]] = {}
        for key_node, value_node in items:
            key = key_node.arg if isinstance(key_node, ast.keyword) else (
                self.reader.value(key_node, what) if isinstance(key_node, ast.expr) else None)
            if not isinstance(key, str):
                raise SdkError(self.reader.at(key_node), f"{what}: a key {key!r} is not a field name",
                               "field names as strings")
            try:
                out[key] = self.value(value_node, f"{what}({key}=...)" if what == self.what else f"{what}.{key}")
            except SdkError as exc:  # the job's name, known only when the code runs: convert --name gives it
                if key not in _NAMES:
                    raise
                if not self.reader.named:
                    raise SdkError(exc.where, exc.what, f"{exc.allowed}; or name the job with convert --name NAME") from None
                self.notes.append(f"{key} at {self.reader.at(value_node)} ({exc.what.split(': ', 1)[-1]}) is not "
                                  "written: convert --name names the job")
                continue
            keys[key], values[key] = self.place(key_node), self.place(value_node)
        self.doc.starts[id(out)] = self.place(node)
        self.doc.key_positions[id(out)], self.doc.value_positions[id(out)] = keys, values
        return out


def read_request(node: ast.Call, method: str, reader: Reader, notes: list[str]) -> LoadedDocument:
    """The create request ``node`` sends, as a mapping convert reads (provider/cli/convert_request.py)."""
    what = f"{ast.unparse(node.func)}"
    field = METHODS[method]
    request = RequestReader(reader, what)
    if len(node.args) > 1 or any(isinstance(arg, ast.Starred) for arg in node.args):
        raise SdkError(reader.at(node), f"{what}() takes one positional argument, the request; the others by "
                       "keyword (the client raises TypeError)", f"request=..., or parent=... and {field}=...")
    given = {kw.arg: kw for kw in node.keywords if kw.arg is not None}
    if any(kw.arg is None for kw in node.keywords):
        raise SdkError(reader.at(node), f"{what}(**...) is not read", f"parent=... and {field}=... by keyword")
    notes += [f"{what}({option}=...) is an option of the client's call, not part of the job: ignored"
              for option in _CALL_OPTIONS if option in given]
    if node.args or "request" in given:
        request.doc.data = _whole(request, node.args[0] if node.args else given["request"].value, given, field)
        return _checked(request, method, notes)
    unknown = sorted(set(given) - {"parent", field, *_CALL_OPTIONS})
    if unknown:
        raise SdkError(reader.at(given[unknown[0]]), f"{what}() takes no argument {unknown[0]!r} (the client raises "
                       "TypeError)", f"request, parent, {field}, retry, timeout, metadata")
    if field not in given:
        raise SdkError(reader.at(node), f"{what}() gives no {field}: there is no job to convert",
                       f"{field}=... (a dict or aiplatform_v1 message)")
    if "parent" in given:
        given["parent"] = _parent(given["parent"], reader, notes)
    keywords = [(given[key], given[key].value) for key in ("parent", field) if key in given]
    request.doc.data = request._mapping(keywords, node, what)
    return _checked(request, method, notes)


def _whole(request: RequestReader, expr: ast.expr, given: dict[str, ast.keyword], field: str) -> dict[str, object]:
    """``request=`` (or the one positional argument): a mapping of parent and the job, given alone."""
    what = request.what
    found = request.value(expr, f"{what}(request=...)")
    if not isinstance(found, dict) or "parent" in given or field in given:
        raise SdkError(request.reader.at(expr), f"{what}(request=...) is a mapping of parent and {field}, given alone "
                       "(the client raises ValueError when it is given with them)", f"request={{'parent': ..., "
                       f"'{field}': ...}}, or parent=... and {field}=...")
    return found


_HOLE = "\x00"
_HOLED_PARENT = re.compile(r"projects/([^/\s]*\x00[^/\s]*)/locations/([a-z0-9-]+)")


def _parent(keyword: ast.keyword, reader: Reader, notes: list[str]) -> ast.keyword:
    """``parent=`` as written, or, where only its project is known when the code runs (``"projects/" + PROJECT_ID +
    "/locations/" + REGION``, PROJECT_ID from gcloud or the environment), ``projects/{PROJECT_ID}/locations/REGION``
    with a note: the job's region is read, and a spec names no project (the stack's is used)."""
    from provider.document.python_values import Unknown

    if not isinstance(reader.scope.evaluate(keyword.value), Unknown):
        return keyword
    expr, scope, inner = keyword.value, reader.scope, reader
    for _ in range(8):  # PARENT -> its assignment's expression, read in the scope it was assigned in
        if not (isinstance(expr, ast.Name) and expr.id in reader.assigned):
            break
        assigned = reader.assigned[expr.id]
        expr, scope, inner = assigned.value, assigned.scope, reader.inner(assigned, reader.assigned)
    path = _location_path(expr, inner)
    if path is not None:  # client.common_location_path(project, location): the client's own format, as it gives it
        if isinstance(known := scope.evaluate(path), str):
            return ast.copy_location(ast.keyword("parent", ast.copy_location(ast.Constant(known), keyword.value)), keyword)
        expr = path
    holes: list[str] = []
    holed = _with_holes(expr, scope, holes)
    value = scope.evaluate(holed) if holed is not None else None
    match = _HOLED_PARENT.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        return keyword
    written = "{" + ", ".join(dict.fromkeys(holes)) + "}"
    notes.append(f"parent at {reader.at(keyword.value)}: its project ({', '.join(dict.fromkeys(holes))}) is known only "
                 f"when the {reader.noun} runs; its region, {match.group(2)}, is the job's, and a spec names no project")
    parent = ast.copy_location(ast.Constant(f"projects/{written}/locations/{match.group(2)}"), keyword.value)
    return ast.copy_location(ast.keyword("parent", parent), keyword)


def _location_path(node: ast.expr, reader: Reader) -> ast.expr | None:
    """``client.common_location_path(project, location)`` (or the client class's) as the f-string the client formats,
    ``f"projects/{project}/locations/{location}"``; None for any other expression."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "common_location_path" and not any(isinstance(a, ast.Starred) for a in node.args)):
        return None
    receiver = node.func.value
    if isinstance(receiver, ast.Name) and receiver.id in reader.assigned:
        assigned = reader.assigned[receiver.id]
        receiver, reader = assigned.value, reader.inner(assigned, {})
    client = builds_client(receiver, reader) or (reader.qualified(receiver) or "").endswith("JobServiceClient")
    given = dict(zip(("project", "location"), node.args)) | {kw.arg: kw.value for kw in node.keywords if kw.arg}
    if not client or set(given) != {"project", "location"} or len(node.args) + len(node.keywords) != 2:
        return None
    parts: list[ast.expr] = [ast.Constant("projects/"), ast.FormattedValue(given["project"], -1, None),
                             ast.Constant("/locations/"), ast.FormattedValue(given["location"], -1, None)]
    return ast.fix_missing_locations(ast.copy_location(ast.JoinedStr(parts), node))


def _with_holes(node: ast.expr, scope: Scope, holes: list[str]) -> ast.expr | None:
    """``node`` (str literals, names, + and f-strings of them) with each name whose value is not known as a hole
    (recorded in ``holes``), or None for any other expression: a hole is read only where it is text put in place."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node
    if isinstance(node, ast.Name):
        if isinstance(scope.get(node.id), str):
            return node
        holes.append(node.id)
        return ast.copy_location(ast.Constant(_HOLE), node)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _with_holes(node.left, scope, holes), _with_holes(node.right, scope, holes)
        return None if left is None or right is None else ast.copy_location(ast.BinOp(left, ast.Add(), right), node)
    if isinstance(node, ast.JoinedStr):
        parts: list[ast.expr] = []
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                if part.conversion != -1 or part.format_spec is not None:
                    return None
                inner = _with_holes(part.value, scope, holes)
                if inner is None:
                    return None
                part = ast.copy_location(ast.FormattedValue(inner, -1, None), part)
            parts.append(part)
        return ast.copy_location(ast.JoinedStr(parts), node)
    return None


def _checked(request: RequestReader, method: str, notes: list[str]) -> LoadedDocument:
    """The request, its job checked as the client's proto-plus reads it (``check``)."""
    notes += request.notes
    field = METHODS[method]
    data = request.doc.data
    if isinstance(data, dict) and (unknown := sorted(set(data) - {"parent", field})):
        kind = next(k for k in KINDS if k.method == field)
        raise SdkError(request.where(data, unknown[0]), f"{request.what}(request=...): Unknown field for Create"
                       f"{kind.name}Request: {unknown[0]} (the client raises ValueError)", f"parent and {field}")
    job = data.get(field) if isinstance(data, dict) else None
    if isinstance(job, dict):
        kind = next(k for k in KINDS if k.method == field)
        request.check(job, kind.name, f"{field}.")
    if request.reader.cell:  # a cell's lines are not the notebook file's: its problems are named by field path
        request.forget_places()
    return request.doc
