"""The routes of the PersistentResource service (persistent.py): create, list, get, delete and
the resources' operations, as ``projects.locations.persistentResources`` has them in Vertex AI's
REST reference. routes.py lists them beside the job service's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from provider.emulator import query, wire
from provider.emulator.storage import Answer

if TYPE_CHECKING:
    from provider.emulator.routes import Request
    from provider.emulator.server import Emulator

COLLECTION = "persistentResources"


def _params(request: Request, method: str, allowed: tuple[str, ...] = ()) -> None:
    query.check_params(request.params, allowed, method)


def _parent(m: dict[str, str]) -> str:
    return query.parent(m)


def _name(m: dict[str, str]) -> str:
    return f"{_parent(m)}/{COLLECTION}/{m['resource']}"


def create(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "persistentResources.create", ("persistentResourceId",))
    op = app.persistent.create(_parent(m), request.params.get("persistentResourceId"), request.body)
    return Answer(data=wire.encode_any(op))


def list_resources(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "persistentResources.list", ("pageSize", "pageToken"))
    page = app.persistent.list(_parent(m), request.params)
    return Answer(data=wire.encode("ListPersistentResourcesResponse", page, request.enums_as_ints))


def get(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "persistentResources.get")
    return Answer(data=wire.encode("PersistentResource", app.persistent.get(_name(m)), request.enums_as_ints))


def delete(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "persistentResources.delete")
    return Answer(data=wire.encode_any(app.persistent.delete(_name(m))))


def get_operation(app: Emulator, request: Request, m: dict[str, str]) -> Answer:
    _params(request, "operations.get")
    return Answer(data=wire.encode_any(app.persistent.get_operation(_name(m), m["op"])))


_RESOURCE = rf"/{COLLECTION}/(?P<resource>[^/:]+)"
# (method, pattern after /v1/projects/{project}/locations/{location}, handler, also under /ui/: the SDK's
# operations client asks /ui/ first, its first HTTP binding, as for the job service's operations)
ROUTES = (
    ("POST", f"/{COLLECTION}", create, False),
    ("GET", f"/{COLLECTION}", list_resources, False),
    ("GET", _RESOURCE, get, False),
    ("DELETE", _RESOURCE, delete, False),
    ("GET", _RESOURCE + r"/operations/(?P<op>[^/:]+)", get_operation, True),
)
