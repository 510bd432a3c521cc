"""``:purge`` of the metadata service's artifacts, contexts and executions, as Vertex AI's v1
REST reference has it (``projects.locations.metadataStores.artifacts.purge`` and the others).

The request's ``filter`` (required: the list filter, resource_filter.py) chooses the resources;
with ``force`` they are deleted, each with what lies below it, else nothing is. The answer is a
long-running operation (Purge{Artifacts,Contexts,Executions}Metadata), done at once, whose
response holds ``purgeCount`` and, without ``force``, ``purgeSample``: up to 100 of the names
that would go.
"""

from __future__ import annotations

from typing import Any

from provider.emulator import resource_filter, wire
from provider.emulator.nested import KINDS, NestedService, location_of, violation

Json = dict[str, Any]
SAMPLE = 100
PURGED = {"artifacts": "Artifacts", "contexts": "Contexts", "executions": "Executions"}


def purge(nested: NestedService, collection: str, store: str, raw: bytes) -> Json:
    """The purge's Operation (its public JSON)."""
    plural = PURGED[collection]
    body = wire.parse(f"Purge{plural}Request", raw)
    nested.record(KINDS["metadataStores"], store)
    text = str(body.get("filter") or "")
    if not text:
        raise violation("filter", f"Required field is not set: the list filter of the {collection} to purge, "
                                  "e.g. update_time <= \"2026-01-01T00:00:00Z\".")
    keep = resource_filter.compile_filter(text, nested.records)
    with nested.records.lock:
        chosen = [r["name"] for r in nested.records.walk(collection, store) if keep(nested.render(r))]
        if body.get("force"):
            for name in chosen:
                nested.records.drop(name)
    response: Json = {"@type": f"type.googleapis.com/google.cloud.aiplatform.v1.Purge{plural}Response",
                      "purgeCount": str(len(chosen))}
    if not body.get("force"):
        response["purgeSample"] = chosen[:SAMPLE]
    return nested.operation(location_of(store), f"Purge{plural}Metadata", response)
