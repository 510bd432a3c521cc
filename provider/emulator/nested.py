"""Create, get, list, patch and delete for the nested resources of TensorBoard and the metadata service.

The collections, as Vertex AI's v1 REST reference has them
(https://cloud.google.com/vertex-ai/docs/reference/rest/v1/projects.locations.tensorboards and
``projects.locations.metadataStores``), are rows of ``KINDS``: the message, the parent collection,
the query parameter that names a new resource's ID, and whether create answers a long-running
operation. Every delete answers one (Vertex AI's DeleteTensorboard*, DeleteMetadataStore,
DeleteContext, DeleteArtifact and DeleteExecution all do); it is done at once, deletes the
resources below, and is kept in the emulator's operations (store.py), so ``operations.get``
answers it. Lists are oldest first, paged with paging.py's tokens (the position of the last
resource returned, so deletes and creates never shift a page) and filtered by resource_filter.py.

A resource without a client-given ID gets a numeric one (as Vertex AI makes for TensorBoards and
time series). A patch takes ``updateMask`` (snake_case or camelCase paths; all mutable fields
when absent) and merges ``metadata`` key by key, as the metadata service merges an artifact's,
context's or execution's properties.
"""

from __future__ import annotations

import re
from typing import Any

from provider.backends.local.store import new_job_id, now
from provider.core.names import snake
from provider.core.record import Record
from provider.emulator import paging, resource_filter, wire
from provider.emulator.errors import ApiError, FieldViolation, invalid, not_found
from provider.emulator.resource_store import ResourceStore
from provider.emulator.store import EmulatorStore

Json = dict[str, Any]
_TYPE = "type.googleapis.com/google.cloud.aiplatform.v1."
ID_PATTERN = r"[a-z0-9][a-z0-9-]{0,127}"
_OUTPUT_ONLY = ("etag", "parentContexts", "blobStoragePathPrefix", "runCount")
BLOB_BUCKET = "trainjobs-tensorboards"  # the emulated storage's bucket of TensorBoard blobs (tensorboard_reads.py)
_UNSTAMPED = ("metadataSchemas", "evaluations", "slices")  # messages with a create time only


class Kind(Record):
    """One collection: its URL segment, message, parent collection and how a new one is named."""

    collection: str  # the URL segment: tensorboards, experiments, runs, timeSeries, contexts ...
    message: str  # the aiplatform_v1 message: Tensorboard, TensorboardExperiment ...
    parent: str  # the parent's collection; "" under a location
    id_param: str  # the create request's ID parameter
    id_required: bool
    lro_create: bool
    list_field: str  # the list response's field
    list_message: str
    required: tuple[str, ...] = ()  # body fields create needs
    mutable: bool = True  # served patch and delete (a metadata schema has neither)
    client_fields: tuple[str, ...] = ()  # fields wire.parse drops as output only that this message's client sets

    def create_metadata(self) -> str:
        return f"Create{self.message}OperationMetadata"


KINDS = {k.collection: k for k in (
    Kind("tensorboards", "Tensorboard", "", "", False, True, "tensorboards", "ListTensorboardsResponse",
         ("displayName",)),
    Kind("experiments", "TensorboardExperiment", "tensorboards", "tensorboardExperimentId", True, False,
         "tensorboardExperiments", "ListTensorboardExperimentsResponse"),
    Kind("runs", "TensorboardRun", "experiments", "tensorboardRunId", True, False, "tensorboardRuns",
         "ListTensorboardRunsResponse", ("displayName",)),
    Kind("timeSeries", "TensorboardTimeSeries", "runs", "tensorboardTimeSeriesId", False, False,
         "tensorboardTimeSeries", "ListTensorboardTimeSeriesResponse", ("displayName", "valueType")),
    Kind("metadataStores", "MetadataStore", "", "metadataStoreId", False, True, "metadataStores",
         "ListMetadataStoresResponse"),
    Kind("contexts", "Context", "metadataStores", "contextId", False, False, "contexts", "ListContextsResponse"),
    Kind("artifacts", "Artifact", "metadataStores", "artifactId", False, False, "artifacts",
         "ListArtifactsResponse", client_fields=("state",)),
    Kind("executions", "Execution", "metadataStores", "executionId", False, False, "executions",
         "ListExecutionsResponse", client_fields=("state",)),
    Kind("metadataSchemas", "MetadataSchema", "metadataStores", "metadataSchemaId", False, False, "metadataSchemas",
         "ListMetadataSchemasResponse", ("schema",), mutable=False),
)}


def _camel(path: str) -> str:
    head, *rest = path.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def blob_prefix(name: str) -> str:
    """The blobStoragePathPrefix of a tensorboard (or of what is below one): bucket/folder, without gs://."""
    return f"{BLOB_BUCKET}/{name.split('/')[1]}"


def location_of(name: str) -> str:
    return "/".join(name.split("/")[:4])


def violation(field: str, description: str) -> ApiError:
    return invalid(f"List of found errors:\t1.Field: {field}; Message: {description}\t",
                   (FieldViolation(field, description),))


class NestedService:
    """The generic methods of every collection in ``KINDS``."""

    def __init__(self, records: ResourceStore, operations: EmulatorStore) -> None:
        self.records = records
        self.operations = operations

    # -- reading --------------------------------------------------------------------------------
    def record(self, kind: Kind, name: str) -> Json:
        record = self.records.get(name)
        if record is None or record["collection"] != kind.collection:
            raise not_found(f"The {kind.message} {name} does not exist.")
        return record

    def render(self, record: Json) -> Json:
        """The resource's REST JSON (canonical: enum names)."""
        out: Json = {**record["body"], "name": record["name"], "createTime": record["create_time"]}
        if record["collection"] in _UNSTAMPED:
            return out
        out["updateTime"] = record["update_time"]
        if record["collection"] == "tensorboards":
            out["blobStoragePathPrefix"] = blob_prefix(record["name"])
        if record.get("etag") and record["collection"] != "metadataStores":  # a message with no etag
            out["etag"] = record["etag"]
        return out

    def get(self, kind: Kind, name: str) -> Json:
        return self.render(self.record(kind, name))

    def list(self, kind: Kind, parent: str, params: dict[str, str]) -> Json:
        if kind.parent:
            self.record(KINDS[kind.parent], parent)
        text = params.get("filter", "")
        predicate = resource_filter.compile_filter(text, self.records)
        size = paging.page_size(params.get("pageSize"))
        request = (parent, kind.collection, text, params.get("orderBy", ""), params.get("readMask", ""))
        after = paging.decode(params.get("pageToken"), *request)
        found: list[Json] = []
        last = None
        more = False
        for record in self.records.walk(kind.collection, parent, after):
            view = self.render(record)
            if not predicate(view):
                continue
            if len(found) == size:
                more = True
                break
            found.append(view)
            last = (record["create_time"], record["id"])
        mask = [_camel(f.strip()) for f in params.get("readMask", "").split(",") if f.strip()]
        if mask:
            found = [{k: v for k, v in item.items() if k in mask or k == "name"} for item in found]
        out: Json = {kind.list_field: found}
        if more and last is not None:
            out["nextPageToken"] = paging.encode(last, *request)
        return out

    # -- writing --------------------------------------------------------------------------------
    def _new_id(self, kind: Kind, parent: str, given: str | None) -> str:
        field = snake(kind.id_param) if kind.id_param else "id"
        if given:
            if not re.fullmatch(ID_PATTERN, given):
                raise violation(field, f"Invalid ID {given!r}: it must match {ID_PATTERN} (lower-case letters, "
                                       "digits and hyphens, at most 128 characters, not starting with a hyphen).")
            if self.records.get(f"{parent}/{kind.collection}/{given}") is not None:
                raise ApiError("ALREADY_EXISTS", f"The {kind.message} {parent}/{kind.collection}/{given} already "
                                                 "exists.")
            return given
        if kind.id_required:
            raise violation(field, "Required field is not set.")
        made = new_job_id()
        while self.records.get(f"{parent}/{kind.collection}/{made}") is not None:
            made = new_job_id()
        return made

    def insert(self, kind: Kind, parent: str, given_id: str | None, body: Json) -> Json:
        """Check and store a new resource (its parent must exist); its record."""
        if kind.parent:
            self.record(KINDS[kind.parent], parent)
        for key in _OUTPUT_ONLY:
            body.pop(key, None)
        missing = [f for f in kind.required if not body.get(f) or body.get(f) == "VALUE_TYPE_UNSPECIFIED"]
        if missing:
            raise violation(f"{snake(kind.message)}.{snake(missing[0])}", "Required field is not set.")
        if kind.collection == "timeSeries":
            self._unique_display_name(kind, parent, str(body["displayName"]))
        with self.records.lock:
            resource_id = self._new_id(kind, parent, given_id)
            stamp = now()
            record = {"name": f"{parent}/{kind.collection}/{resource_id}", "collection": kind.collection,
                      "parent": parent, "id": resource_id, "create_time": stamp, "update_time": stamp,
                      "etag": new_job_id(), "body": body}
            self.records.put(record)
        return record

    def _unique_display_name(self, kind: Kind, parent: str, display_name: str) -> None:
        for other in self.records.walk(kind.collection, parent):
            if other["body"].get("displayName") == display_name:
                raise ApiError("ALREADY_EXISTS", f"A {kind.message} named {display_name!r} already exists in "
                                                 f"{parent}: {other['name']}.")

    def create(self, kind: Kind, parent: str, given_id: str | None, raw: bytes) -> tuple[Json, Json | None]:
        """The new resource's JSON and, for a collection whose create is long-running, its Operation."""
        record = self.insert(kind, parent, given_id, wire.parse(kind.message, raw, kind.client_fields))
        view = self.render(record)
        if not kind.lro_create:
            return view, None
        # A new metadata store's operation answers with its name alone (the store is provisioned
        # after): get_started_with_vertex_ml_metadata reads the name as ``str(result())[7:-2]``.
        answered = {"name": view["name"]} if kind.collection == "metadataStores" else view
        return view, self.operation(location_of(parent), kind.create_metadata(),
                                    {"@type": _TYPE + kind.message, **answered})

    def patch(self, kind: Kind, name: str, raw: bytes, mask_text: str) -> Json:
        body = wire.parse(kind.message, raw, kind.client_fields)
        for key in _OUTPUT_ONLY:
            body.pop(key, None)
        with self.records.lock:
            record = self.record(kind, name)
            mask = [_camel(p.strip()) for p in mask_text.split(",") if p.strip()] or list(body)
            merged = dict(record["body"])
            for field in mask:
                if field == "metadata" and isinstance(body.get("metadata"), dict):
                    merged["metadata"] = {**(merged.get("metadata") or {}), **body["metadata"]}
                elif field in body:
                    merged[field] = body[field]
                else:
                    merged.pop(field, None)
            updated = {**record, "body": merged, "update_time": now(), "etag": new_job_id()}
            self.records.put(updated)
        return self.render(updated)

    def delete(self, kind: Kind, name: str) -> Json:
        self.record(kind, name)
        self.records.drop(name)
        return self.operation(location_of(name), "DeleteOperationMetadata",
                              {"@type": "type.googleapis.com/google.protobuf.Empty"})

    def operation(self, location: str, metadata_type: str, response: Json) -> Json:
        """A finished long-running operation, kept so that operations.get answers it."""
        stamp = now()
        op_id = new_job_id()
        op = {"id": op_id, "name": f"{location}/operations/{op_id}", "done": True,
              "metadata": {"@type": _TYPE + metadata_type, "genericMetadata": {"createTime": stamp,
                                                                                "updateTime": stamp}},
              "response": response}
        self.operations.put_operation(op)
        return {k: op[k] for k in ("name", "metadata", "done", "response")}
