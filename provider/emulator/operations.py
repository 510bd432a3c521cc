"""The one home of the emulator's long-running operations (google.longrunning.Operation).

Vertex AI answers some methods with an Operation: ``models.upload``, ``models.delete``,
``models.deleteVersion``, ``datasets.create``, ``datasets.delete``, ``trainingPipelines.delete``,
and the job service's deletes. The emulator finishes each at once, so an operation is born
``done`` with its ``response`` (an ``Any``: ``@type`` and the message's fields) and its ``metadata``
(an ``Any`` of the method's ``...OperationMetadata``, whose ``genericMetadata`` is a
GenericOperationMetadata: createTime, updateTime, and ``partialFailures`` when there are any).

Its name is the resource's own, as Vertex AI names them: ``{model}/operations/{id}`` for a
model's, ``{dataset}/operations/{id}`` for a dataset's, ``{location}/operations/{id}`` for a
pipeline's or a job's delete. Operations are kept by the EmulatorStore (``<state>/operations/``),
so a restarted emulator answers for them.
"""

from __future__ import annotations

from typing import Any

from provider.backends.local.store import new_job_id, now
from provider.emulator.errors import not_found
from provider.emulator.store import EmulatorStore

Json = dict[str, Any]

AIPLATFORM = "type.googleapis.com/google.cloud.aiplatform.v1."
EMPTY = {"@type": "type.googleapis.com/google.protobuf.Empty"}


def public(op: Json) -> Json:
    """What the API shows of a stored operation."""
    return {k: op[k] for k in ("name", "metadata", "done", "response", "error") if k in op}


class Operations:
    def __init__(self, store: EmulatorStore) -> None:
        self.store = store

    def finished(self, owner: str, metadata_type: str, response: Json, partial_failures: tuple[Json, ...] = (),
                 metadata: Json | None = None) -> Json:
        """A done operation of ``owner`` (a resource or a location name), stored; its public JSON.

        ``response`` is an ``Any`` already (``@type`` and fields): ``EMPTY``, or ``typed(...)``;
        ``metadata`` holds the metadata's own fields beside ``genericMetadata`` (ExportModel's outputInfo)."""
        stamp = now()
        op_id = new_job_id()
        while self.store.operation(op_id) is not None:
            op_id = new_job_id()
        generic: Json = {"createTime": stamp, "updateTime": stamp}
        if partial_failures:
            generic["partialFailures"] = list(partial_failures)
        op = {"id": op_id, "name": f"{owner}/operations/{op_id}", "done": True,
              "metadata": {"@type": AIPLATFORM + metadata_type, "genericMetadata": generic, **(metadata or {})},
              "response": response}
        self.store.put_operation(op)
        return public(op)

    def get(self, name: str) -> Json:
        """The operation named ``name`` (projects/P/locations/L[/COLLECTION/ID]/operations/OP); NOT_FOUND otherwise."""
        op = self.store.operation(name.rsplit("/", 1)[-1])
        if op is None or op["name"] != name:
            raise not_found(f"Operation {name} does not exist.")
        return public(op)


def typed(type_name: str, message: Json) -> Json:
    """A Vertex AI message as an ``Any``: its ``@type``, then its fields."""
    return {"@type": AIPLATFORM + type_name, **message}
