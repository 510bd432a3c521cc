"""URL routes of the emulator: the Vertex AI job service and the Cloud Storage subset.

Each route is a method, a path pattern and a function of (app, request) -> Answer. A path that
matches a pattern with another method answers 405; a path that matches nothing answers 404,
both in Google's error format.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from provider.core import job_kinds
from provider.core.record import Record
from provider.emulator import (
    job_tracking,
    model_routes,
    nested_routes,
    persistent_routes,
    query,
    training_routes,
    wire,
)
from provider.emulator.errors import ApiError, invalid
from provider.emulator.framing import Body
from provider.emulator.storage import Answer

if TYPE_CHECKING:
    from provider.emulator.server import Emulator

Json = dict[str, Any]


class Request(Record):
    """An HTTP request as a route handler reads it: method, path, query parameters, headers and body."""

    method: str
    path: str  # still percent-encoded
    params: dict[str, str]
    headers: dict[str, str]  # lower-case names
    payload: Body  # in memory when small, else a spool file (framing.py)
    query: str = ""  # the raw query, for a parameter given more than once (tensorboards:batchRead)

    @property
    def body(self) -> bytes:
        """The whole body, for JSON routes (413 beyond framing.MAX_JSON); uploads read ``payload``."""
        return self.payload.bytes()

    @property
    def enums_as_ints(self) -> bool:
        return "enum-encoding=int" in self.params.get("$alt", "")


Handler = Callable[["Emulator", Request, dict[str, str]], Answer]

_NAME = r"(?P<project>[^/]+)/locations/(?P<location>[^/]+)"
_COLLECTION = rf"(?P<collection>{job_kinds.COLLECTION_PATTERN})"
_LIST = query.LIST


def _params(request: Request, allowed: tuple[str, ...] = ()) -> None:
    query.check_params(request.params, allowed)


def _parent(m: dict[str, str]) -> str:
    return query.parent(m)


def _job(app: Emulator, request: Request, data: Json, collection: str) -> Answer:
    kind = job_kinds.of_collection(collection)
    assert kind is not None  # the route's pattern admits the collections only
    return Answer(data=wire.encode(kind.name, data, request.enums_as_ints))


def create_job(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request)
    job = app.jobs.create(m["collection"], _parent(m), request.body)
    job_tracking.created(app.tracking, job)
    return _job(app, request, job, m["collection"])


def list_jobs(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, _LIST)
    page = app.jobs.list(m["collection"], _parent(m), request.params)
    for job in page.get(m["collection"]) or []:  # the runs made for the jobs listed end with them
        job_tracking.ended(app.tracking, job)
    kind = job_kinds.of_collection(m["collection"])
    assert kind is not None  # the route's pattern admits the collections only
    return Answer(data=wire.encode(kind.list_response, page, request.enums_as_ints))


def get_job(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request)
    job = app.jobs.get(m["collection"], _parent(m), m["id"])
    job_tracking.seen(app.tracking, app.storage_root, job)  # its new TensorBoard logs, uploaded
    return _job(app, request, job, m["collection"])


def cancel_job(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request)
    return Answer(data=wire.encode_any(app.jobs.cancel(m["collection"], _parent(m), m["id"])))


def delete_job(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request)
    return Answer(data=wire.encode_any(app.jobs.delete(m["collection"], _parent(m), m["id"])))


def get_operation(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request)
    return Answer(data=wire.encode_any(app.operations.get(f"{_parent(m)}/operations/{m['id']}")))


def _decoded(m: dict[str, str], key: str) -> str:
    """A percent-encoded bucket or object name; 400 when its bytes are not UTF-8 (Cloud Storage's names are)."""
    try:
        return unquote(m[key], errors="strict")
    except UnicodeDecodeError:
        raise invalid(f"Invalid {key} name {m[key][:80]!r}: its percent-encoded bytes are not UTF-8.") from None


def get_bucket(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    return app.storage.get_bucket(_decoded(m, "bucket"))


def create_bucket(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    body = wire.loads(request.body, "bucket")
    if not isinstance(body, dict):
        raise invalid("Invalid JSON payload received. Expected an object for bucket.")
    return app.storage.create_bucket(body)


def list_objects(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    return app.storage.list_objects(_decoded(m, "bucket"), request.params)


def get_object(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    return app.storage.get_object(_decoded(m, "bucket"), _decoded(m, "object"), request.params,
                                  request.headers.get("range"))


def download_object(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    return app.storage.get_object(_decoded(m, "bucket"), _decoded(m, "object"), {**request.params, "alt": "media"},
                                  request.headers.get("range"))


def delete_object(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    return app.storage.delete_object(_decoded(m, "bucket"), _decoded(m, "object"), request.params)


def upload(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    return app.storage.upload(_decoded(m, "bucket"), request.params, request.headers.get("content-type", ""),
                              request.payload)


def upload_chunk(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    return app.storage.upload_chunk(request.params, request.headers.get("content-range"), request.payload)


def list_log_entries(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    from provider.emulator.logging_api import list_entries

    return list_entries(app, request, m)


ROUTES: tuple[tuple[str, re.Pattern[str], Handler], ...] = tuple(
    (method, re.compile(pattern + r"$"), handler) for method, pattern, handler in (
        ("POST", rf"/v1/projects/{_NAME}/{_COLLECTION}", create_job),
        ("GET", rf"/v1/projects/{_NAME}/{_COLLECTION}", list_jobs),
        ("GET", rf"/v1/projects/{_NAME}/{_COLLECTION}/(?P<id>[^/:]+)", get_job),
        ("DELETE", rf"/v1/projects/{_NAME}/{_COLLECTION}/(?P<id>[^/:]+)", delete_job),
        ("POST", rf"/v1/projects/{_NAME}/{_COLLECTION}/(?P<id>[^/:]+):cancel", cancel_job),
        # The SDK's operations mixin asks /ui/ first (its first HTTP binding), the LRO poller /v1/.
        ("GET", rf"/(?:v1|ui)/projects/{_NAME}/operations/(?P<id>[^/:]+)", get_operation),
        ("GET", r"/storage/v1/b/(?P<bucket>[^/]+)", get_bucket),
        ("POST", r"/storage/v1/b", create_bucket),
        ("GET", r"/storage/v1/b/(?P<bucket>[^/]+)/o", list_objects),
        ("GET", r"/storage/v1/b/(?P<bucket>[^/]+)/o/(?P<object>.+)", get_object),
        ("DELETE", r"/storage/v1/b/(?P<bucket>[^/]+)/o/(?P<object>.+)", delete_object),
        ("GET", r"/download/storage/v1/b/(?P<bucket>[^/]+)/o/(?P<object>.+)", download_object),
        ("POST", r"/upload/storage/v1/b/(?P<bucket>[^/]+)/o", upload),
        ("PUT", r"/upload/storage/v1/b/(?P<bucket>[^/]+)/o", upload_chunk),
        ("POST", r"/v2/entries:list", list_log_entries),
        *((method, (r"/(?:v1|ui)" if ui else "/v1") + f"/projects/{_NAME}" + suffix, handler)
          for method, suffix, handler, ui in (*persistent_routes.ROUTES, *training_routes.ROUTES, *model_routes.ROUTES,
                                               *nested_routes.ROUTES)),
    )
)


def route(method: str, path: str) -> tuple[Handler, dict[str, str]]:
    """The handler for a request; ApiError 404 or 405 when there is none."""
    allowed = []
    decoded = unquote(path) if path.startswith(("/v1/", "/ui/")) else path
    if path.startswith("/v1beta1/"):
        # v1beta1 serves these resources at the same paths with the same shapes (a superset of
        # v1): the SDK's ``aiplatform_v1beta1`` clients and the notebooks that use them reach v1's.
        handler, found = route(method, "/v1/" + path[len("/v1beta1/"):])  # decoded once, below, as a v1 path is
        return _in_beta(handler), found
    for route_method, pattern, handler in ROUTES:
        m = pattern.match(decoded)
        if m is None:
            continue
        if route_method == method:
            return handler, m.groupdict()
        allowed.append(route_method)
    if allowed:
        raise ApiError("UNIMPLEMENTED", f"Method {method} is not allowed on {path}; allowed: {', '.join(allowed)}.",
                       http=405, headers=(("Allow", ", ".join(allowed)),))
    raise ApiError("NOT_FOUND", f"The trainjobs emulator serves no {method} {path}: it emulates the Vertex AI v1 (and v1beta1) "
                                "customJobs, hyperparameterTuningJobs, persistentResources, trainingPipelines, models, "
                                "datasets, tensorboards, metadataStores and operations, and the "
                                "Cloud Storage JSON API's buckets, objects and uploads.")


_V1_TYPE = "type.googleapis.com/google.cloud.aiplatform.v1."
_BETA_TYPE = "type.googleapis.com/google.cloud.aiplatform.v1beta1."


def _in_beta(handler: Handler) -> Handler:
    """``handler`` answering a v1beta1 call: its Any values typed as v1beta1's messages (a v1beta1
    client finds no v1 type by its URL, and fails to read an operation's metadata or response)."""
    def answer(app: Emulator, request: Request, match: dict[str, str]) -> Answer:
        got = handler(app, request, match)
        if got.json is not None:
            return Answer(status=got.status, json=_retype(got.json), headers=got.headers)
        if got.data is not None and got.file is None and _V1_TYPE.encode() in got.data:
            try:
                parsed = json.loads(got.data)
            except ValueError:  # not JSON: bytes as they are
                return got
            retyped = _retype(parsed)
            if retyped != parsed:
                return Answer(status=got.status, data=json.dumps(retyped).encode(), headers=got.headers)
        return got
    return answer


_OPERATION_FIELDS = frozenset({"name", "metadata", "done", "error", "response"})  # google.longrunning.Operation


def _retype(value: Any) -> Any:
    """``value`` (an answer's JSON) with the ``@type`` of each Any the API has there naming v1beta1's
    message instead of v1's: an Operation's ``metadata`` and ``response`` (the answers whose Any
    values name aiplatform's messages). Only these: an artifact's, execution's or context's
    ``metadata`` is a google.protobuf.Struct, whose keys (``@type`` too) and values are the user's,
    and a display name, label or env value that reads like a type URL is the user's too: each comes
    back as written."""
    if not isinstance(value, dict) or not set(value) <= _OPERATION_FIELDS or "/operations/" not in str(value.get("name")):
        return value
    out = dict(value)
    for field in ("metadata", "response"):
        item = value.get(field)
        if isinstance(item, dict) and isinstance(kind := item.get("@type"), str) and kind.startswith(_V1_TYPE):
            out[field] = {**item, "@type": _BETA_TYPE + kind[len(_V1_TYPE):]}
    return out
