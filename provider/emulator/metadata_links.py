"""The metadata service's graph: contexts' children, their artifacts and executions, execution
events, and the lineage queries over them, as Vertex AI's v1 REST reference has them
(``projects.locations.metadataStores.contexts`` and ``.executions``).

A context's record keeps ``links``: the artifacts and executions added to it
(addContextArtifactsAndExecutions) and its children (addContextChildren); a child context shows
its parents in ``parentContexts``, as Vertex AI renders it. An execution's record keeps its
events (addExecutionEvents: an artifact, INPUT or OUTPUT). ``in_context`` in a list filter
reads the links (resource_filter.py). Every name must be of a resource in the same store.
"""

from __future__ import annotations

from typing import Any

from provider.backends.local.store import now
from provider.emulator import wire
from provider.emulator.nested import KINDS, NestedService, violation
from provider.emulator.resource_store import ResourceStore

Json = dict[str, Any]


class MetadataLinks:
    def __init__(self, records: ResourceStore, nested: NestedService) -> None:
        self.records = records
        self.nested = nested

    def _store_of(self, name: str) -> str:
        return "/".join(name.split("/")[:6])

    def _members(self, owner: str, names: list[str], collection: str, field: str) -> list[str]:
        store = self._store_of(owner)
        for i, name in enumerate(names):
            if not name.startswith(store + f"/{collection}/"):
                raise violation(f"{field}[{i}]", f"{name!r} is not a {KINDS[collection].message} of {store}.")
            self.nested.record(KINDS[collection], name)
        return names

    def _link(self, context: str, key: str, names: list[str]) -> None:
        with self.records.lock:
            record = self.nested.record(KINDS["contexts"], context)
            links = dict(record.get("links") or {})
            links[key] = [*links.get(key, []), *[n for n in names if n not in links.get(key, [])]]
            self.records.put({**record, "links": links})

    def add_artifacts_and_executions(self, context: str, raw: bytes) -> Json:
        body = wire.parse("AddContextArtifactsAndExecutionsRequest", raw)
        self.nested.record(KINDS["contexts"], context)
        artifacts = self._members(context, list(body.get("artifacts") or []), "artifacts", "artifacts")
        executions = self._members(context, list(body.get("executions") or []), "executions", "executions")
        self._link(context, "artifacts", artifacts)
        self._link(context, "executions", executions)
        return {}

    def add_children(self, context: str, raw: bytes) -> Json:
        body = wire.parse("AddContextChildrenRequest", raw)
        self.nested.record(KINDS["contexts"], context)
        children = self._members(context, list(body.get("childContexts") or []), "contexts", "child_contexts")
        for i, child in enumerate(children):
            if child == context or child in self._ancestors(context):
                raise violation(f"child_contexts[{i}]", f"Adding {child} as a child of {context} would make a cycle.")
        self._link(context, "children", children)
        with self.records.lock:
            for child in children:
                record = self.records.get(child) or {}
                parents = list(record["body"].get("parentContexts") or [])
                if context not in parents:
                    body_ = {**record["body"], "parentContexts": [*parents, context]}
                    self.records.put({**record, "body": body_, "update_time": now()})
        return {}

    def remove_children(self, context: str, raw: bytes) -> Json:
        """Undo addContextChildren: each child leaves the context's children and names it no more as a parent."""
        body = wire.parse("RemoveContextChildrenRequest", raw)
        children = self._members(context, list(body.get("childContexts") or []), "contexts", "child_contexts")
        with self.records.lock:
            record = self.nested.record(KINDS["contexts"], context)
            links = dict(record.get("links") or {})
            links["children"] = [c for c in links.get("children", []) if c not in children]
            self.records.put({**record, "links": links})
            for child in children:
                found = self.records.get(child) or {}
                parents = [p for p in found["body"].get("parentContexts") or [] if p != context]
                self.records.put({**found, "body": {**found["body"], "parentContexts": parents}, "update_time": now()})
        return {}

    def _ancestors(self, context: str) -> set[str]:
        seen: set[str] = set()
        todo = [context]
        while todo:
            record = self.records.get(todo.pop()) or {"body": {}}
            for parent in record["body"].get("parentContexts") or []:
                if parent not in seen:
                    seen.add(parent)
                    todo.append(parent)
        return seen

    def add_execution_events(self, execution: str, raw: bytes) -> Json:
        body = wire.parse("AddExecutionEventsRequest", raw)
        with self.records.lock:
            record = self.nested.record(KINDS["executions"], execution)
            events = list(record.get("events") or [])
            for i, event in enumerate(body.get("events") or []):
                artifact = str(event.get("artifact") or "")
                self._members(execution, [artifact], "artifacts", f"events[{i}].artifact")
                if event.get("type") not in ("INPUT", "OUTPUT"):
                    raise violation(f"events[{i}].type", "An event is INPUT or OUTPUT.")
                events.append({**event, "execution": execution, "eventTime": now()})
            self.records.put({**record, "events": events})
        return {}

    def _subgraph(self, artifacts: list[str], executions: list[str]) -> Json:
        found_artifacts = [self.nested.render(r) for n in artifacts if (r := self.records.get(n)) is not None]
        found_executions = [r for n in executions if (r := self.records.get(n)) is not None]
        names = {a["name"] for a in found_artifacts}
        events = [e for r in found_executions for e in r.get("events") or [] if e["artifact"] in names]
        return {"artifacts": found_artifacts, "executions": [self.nested.render(r) for r in found_executions],
                "events": events}

    def context_lineage(self, context: str) -> Json:
        record = self.nested.record(KINDS["contexts"], context)
        links = record.get("links") or {}
        artifacts = list(links.get("artifacts") or [])
        executions = list(links.get("executions") or [])
        for name in executions:  # the artifacts the context's executions read and wrote
            for event in (self.records.get(name) or {}).get("events") or []:
                if event["artifact"] not in artifacts:
                    artifacts.append(event["artifact"])
        return self._subgraph(artifacts, executions)

    def execution_inputs_and_outputs(self, execution: str) -> Json:
        record = self.nested.record(KINDS["executions"], execution)
        artifacts = [e["artifact"] for e in record.get("events") or []]
        return self._subgraph(artifacts, [execution])

    def artifact_lineage(self, artifact: str) -> Json:
        self.nested.record(KINDS["artifacts"], artifact)
        store = self._store_of(artifact)
        executions = [r["name"] for r in self.records.walk("executions", store)
                      if any(e["artifact"] == artifact for e in r.get("events") or [])]
        artifacts = [artifact, *[e["artifact"] for n in executions
                                 for e in (self.records.get(n) or {}).get("events") or [] if e["artifact"] != artifact]]
        return self._subgraph(list(dict.fromkeys(artifacts)), executions)

