"""The routes of TensorBoard and the metadata service: every path below
``/v1/projects/P/locations/L/tensorboards`` or ``.../metadataStores``, resolved here against the
collections of nested.py (``KINDS``) and their custom methods (``:write``, ``:read``,
``:batchCreate``, ``:batchRead``, ``:addContextChildren`` ...). routes.py lists them beside the
job service's. ``Tracking`` is the part of the emulator that serves them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from provider.core.record import Record
from provider.emulator import metadata_schemas, query, wire
from provider.emulator.errors import ApiError, invalid, not_found
from provider.emulator.metadata_links import MetadataLinks
from provider.emulator.metadata_purge import PURGED, purge
from provider.emulator.nested import KINDS, Kind, NestedService
from provider.emulator.resource_store import ResourceStore
from provider.emulator.storage import Answer
from provider.emulator.store import EmulatorStore
from provider.emulator.tensorboard_data import TensorboardData
from provider.emulator.tensorboard_reads import TensorboardReads, make_blob_bucket

if TYPE_CHECKING:
    from provider.emulator.routes import Request
    from provider.emulator.server import Emulator

Json = dict[str, Any]
_LIST = (*query.LIST, "orderBy")
_SERVED = ("tensorboards (experiments, runs, timeSeries) and metadataStores (contexts, artifacts, executions, "
           "metadataSchemas)")


class Tracking:
    """TensorBoard and the metadata service: their records, data and graph, in the state dir."""

    def __init__(self, state_dir: Path, operations: EmulatorStore) -> None:
        self.records = ResourceStore(state_dir)
        self.nested = NestedService(self.records, operations)
        self.data = TensorboardData(state_dir, self.records, self.nested)
        self.links = MetadataLinks(self.records, self.nested)

    def open(self) -> None:
        self.records.open()
        self.data.open()


class Target(Record):
    """What a path names: a collection (``name`` is its parent) or one resource, and a custom method."""

    kind: Kind
    name: str
    item: bool
    verb: str


def _target(m: dict[str, str]) -> Target:
    location = f"projects/{m['project']}/locations/{m['location']}"
    parts = m["rest"].split("/")
    previous = ""
    for collection in parts[::2]:
        kind = KINDS.get(collection)
        if kind is None or kind.parent != previous:
            raise not_found(f"The trainjobs emulator serves no {collection!r} collection here: it emulates "
                            f"{_SERVED}.")
        previous = collection
    item = len(parts) % 2 == 0
    kind = KINDS[parts[-2] if item else parts[-1]]
    name = f"{location}/{m['rest']}" if item else f"{location}/{'/'.join(parts[:-1])}".rstrip("/")
    return Target(kind, name, item, m.get("verb") or "")


def _params(request: Request, method: str, allowed: tuple[str, ...] = ()) -> None:
    query.check_params(request.params, allowed, method)


def _answer(message: str, data: Json, request: Request) -> Answer:
    return Answer(data=wire.encode(message, data, request.enums_as_ints))


def _batch_create(app: Emulator, request: Request, t: Target, kind: Kind, parent_kind: str) -> Json:
    """Create every resource the batch asks for, or none: a refused one removes those made before it."""
    nested = app.tracking.nested
    body = wire.parse(f"BatchCreate{kind.message}{'s' if kind.collection == 'runs' else ''}Request", request.body)
    made: list[Json] = []
    field = kind.message[0].lower() + kind.message[1:]
    try:
        for one in body.get("requests") or []:
            parent = str(one.get("parent") or (t.name if kind.collection == "runs" else ""))
            if not parent.startswith(t.name if kind.collection == "runs" else t.name + "/runs/"):
                raise invalid(f"Each request's parent must be {'' if kind.collection == 'runs' else 'a run of '}"
                              f"{t.name}; {parent!r} is not.")
            nested.record(KINDS[parent_kind], parent)
            made.append(nested.insert(kind, parent, one.get(kind.id_param), dict(one.get(field) or {})))
    except ApiError:
        for record in made:
            app.tracking.records.drop(record["name"])
        raise
    return {kind.list_field: [nested.render(r) for r in made]}


def collection(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    t = _target(m)
    nested = app.tracking.nested
    if t.kind.collection == "tensorboards":  # where the uploader writes blobs (tensorboard_reads.py)
        make_blob_bucket(app.storage_root)
    if t.kind.collection == "metadataSchemas":  # the store's system schemas, written on first use
        metadata_schemas.seed(nested, t.name.rsplit("/metadataSchemas/", 1)[0] if t.item else t.name)
    if t.item:
        return item(app, request, t)
    if request.method == "GET" and not t.verb:
        _params(request, f"{t.kind.collection}.list", _LIST)
        return _answer(t.kind.list_message, nested.list(t.kind, t.name, request.params), request)
    if request.method == "POST" and not t.verb:
        _params(request, f"{t.kind.collection}.create", (t.kind.id_param,) if t.kind.id_param else ())
        view, op = nested.create(t.kind, t.name, request.params.get(t.kind.id_param), request.body)
        return Answer(data=wire.encode_any(op)) if op is not None else _answer(t.kind.message, view, request)
    if request.method == "POST" and t.verb == "purge" and t.kind.collection in PURGED:
        _params(request, f"{t.kind.collection}.purge")
        return Answer(data=wire.encode_any(purge(nested, t.kind.collection, t.name, request.body)))
    if request.method == "POST" and t.verb == "batchCreate" and t.kind.collection == "runs":
        _params(request, "runs.batchCreate")
        nested.record(KINDS["experiments"], t.name)
        return _answer("BatchCreateTensorboardRunsResponse", _batch_create(app, request, t, t.kind, "experiments"),
                       request)
    raise _unserved(request, t)


def _unserved(request: Request, t: Target) -> ApiError:
    what = f"{t.kind.collection}{':' + t.verb if t.verb else ''}"
    return ApiError("UNIMPLEMENTED", f"The trainjobs emulator serves no {request.method} on {what} ({t.name}); see "
                                     "README's emulator section for the methods it emulates.", http=405 if not t.verb
                    else 404)


_GetVerb = Callable[["Emulator", "Request", Target], Answer]


def _read(app: Emulator, request: Request, t: Target) -> Answer:
    _params(request, "timeSeries.read", ("maxDataPoints", "filter"))
    data = app.tracking.data.read(t.name, request.params)
    _reads(app).viewed(t.name)  # what readUsage counts (tensorboard_reads.py)
    return _answer("ReadTensorboardTimeSeriesDataResponse", data, request)


def _batch_read(app: Emulator, request: Request, t: Target) -> Answer:
    _params(request, "tensorboards.batchRead", ("timeSeries",))
    names = [v for k, v in parse_qsl(request.query, keep_blank_values=True) if k == "timeSeries"]
    data = app.tracking.data.batch_read(t.name, names)
    _reads(app).viewed(t.name)  # what readUsage counts (tensorboard_reads.py)
    return _answer("BatchReadTensorboardTimeSeriesDataResponse", data, request)


def _lineage(call: Callable[[MetadataLinks, str], Json]) -> _GetVerb:
    def handler(app: Emulator, request: Request, t: Target) -> Answer:
        _params(request, t.verb)
        return _answer("LineageSubgraph", call(app.tracking.links, t.name), request)
    return handler


def _reads(app: Emulator) -> TensorboardReads:
    return TensorboardReads(app.tracking.data, app.storage_root)


def _read_blobs(app: Emulator, request: Request, t: Target) -> Answer:
    _params(request, "timeSeries.readBlobData", ("blobIds",))
    ids = [v for k, v in parse_qsl(request.query, keep_blank_values=True) if k == "blobIds"]
    # A server-streaming method: over REST its answer is a JSON array of the stream's messages (one here).
    one = wire.encode("ReadTensorboardBlobDataResponse", _reads(app).read_blobs(t.name, ids), request.enums_as_ints)
    return Answer(data=b"[" + one + b"]")


def _tensorboard_read(call: Callable[[TensorboardReads, str], Json], message: str) -> _GetVerb:
    def handler(app: Emulator, request: Request, t: Target) -> Answer:
        _params(request, f"tensorboards.{t.verb}")
        return _answer(message, call(_reads(app), t.name), request)
    return handler


_GET_VERBS: dict[tuple[str, str], _GetVerb] = {
    ("tensorboards", "readSize"): _tensorboard_read(TensorboardReads.read_size, "ReadTensorboardSizeResponse"),
    ("tensorboards", "readUsage"): _tensorboard_read(TensorboardReads.read_usage, "ReadTensorboardUsageResponse"),
    ("timeSeries", "readBlobData"): _read_blobs,
    ("timeSeries", "read"): _read,
    ("tensorboards", "batchRead"): _batch_read,
    ("contexts", "queryContextLineageSubgraph"): _lineage(MetadataLinks.context_lineage),
    ("executions", "queryExecutionInputsAndOutputs"): _lineage(MetadataLinks.execution_inputs_and_outputs),
    ("artifacts", "queryArtifactLineageSubgraph"): _lineage(MetadataLinks.artifact_lineage),
}
_POST_VERBS: dict[tuple[str, str], tuple[str, Callable[[Tracking, str, bytes], Json]]] = {
    ("runs", "write"): ("WriteTensorboardRunDataResponse", lambda tr, n, b: tr.data.write_run(n, b)),
    ("experiments", "write"): ("WriteTensorboardExperimentDataResponse",
                               lambda tr, n, b: tr.data.write_experiment(n, b)),
    ("contexts", "addContextChildren"): ("AddContextChildrenResponse", lambda tr, n, b: tr.links.add_children(n, b)),
    ("contexts", "removeContextChildren"): ("RemoveContextChildrenResponse",
                                            lambda tr, n, b: tr.links.remove_children(n, b)),
    ("contexts", "addContextArtifactsAndExecutions"): (
        "AddContextArtifactsAndExecutionsResponse", lambda tr, n, b: tr.links.add_artifacts_and_executions(n, b)),
    ("executions", "addExecutionEvents"): ("AddExecutionEventsResponse",
                                           lambda tr, n, b: tr.links.add_execution_events(n, b)),
}


def item(app: Emulator, request: Request, t: Target) -> Answer:
    nested = app.tracking.nested
    key = (t.kind.collection, t.verb)
    if request.method == "GET" and t.verb in ("", *(v for c, v in _GET_VERBS if c == t.kind.collection)):
        if t.verb:
            return _GET_VERBS[key](app, request, t)
        _params(request, f"{t.kind.collection}.get")
        return _answer(t.kind.message, nested.get(t.kind, t.name), request)
    if request.method == "POST" and key in _POST_VERBS:
        _params(request, f"{t.kind.collection}.{t.verb}")
        message, call = _POST_VERBS[key]
        return _answer(message, call(app.tracking, t.name, request.body), request)
    if request.method == "POST" and key == ("timeSeries", "exportTensorboardTimeSeries"):
        _params(request, "timeSeries.exportTensorboardTimeSeries")
        return _answer("ExportTensorboardTimeSeriesDataResponse", _reads(app).export(t.name, request.body), request)
    if request.method == "POST" and key == ("experiments", "batchCreate"):
        _params(request, "timeSeries.batchCreate")
        nested.record(t.kind, t.name)
        return _answer("BatchCreateTensorboardTimeSeriesResponse",
                       _batch_create(app, request, t, KINDS["timeSeries"], "runs"), request)
    if request.method in ("PATCH", "DELETE") and not t.kind.mutable:
        raise _unserved(request, t)
    if request.method == "PATCH" and not t.verb:
        _params(request, f"{t.kind.collection}.patch", ("updateMask", "allowMissing"))
        view = nested.patch(t.kind, t.name, request.body, request.params.get("updateMask", ""))
        if t.kind.collection == "tensorboards":  # UpdateTensorboard is long-running
            op = nested.operation(t.name.rsplit("/tensorboards/", 1)[0], "UpdateTensorboardOperationMetadata",
                                  {"@type": "type.googleapis.com/google.cloud.aiplatform.v1.Tensorboard", **view})
            return Answer(data=wire.encode_any(op))
        return _answer(t.kind.message, view, request)
    if request.method == "DELETE" and not t.verb:
        _params(request, f"{t.kind.collection}.delete", ("etag", "force"))
        return Answer(data=wire.encode_any(nested.delete(t.kind, t.name)))
    raise _unserved(request, t)


_REST = r"/(?P<rest>(?:tensorboards|metadataStores)(?:/[^/:]+)*)(?::(?P<verb>[A-Za-z]+))?"
# (method, pattern after /v1/projects/{project}/locations/{location}, handler, also under /ui/), as
# persistent_routes.ROUTES: one pattern, resolved against KINDS by collection().
ROUTES = tuple((method, _REST, collection, False) for method in ("GET", "POST", "PATCH", "DELETE"))
