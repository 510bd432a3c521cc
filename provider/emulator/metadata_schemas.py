"""The metadata service's schemas: ``projects.locations.metadataStores.metadataSchemas``
(create, get, list; the API has no update or delete), as Vertex AI's v1 REST reference has them.

A store holds, beside those a client creates, the system schemas Vertex AI gives every store:
the ``system.*`` and ``google.*`` types the SDK writes its artifacts, executions and contexts as
(experiments, runs, models, metrics ...). They are written into the store the first time its
schemas are read or one is created, named as Vertex AI names them
(``metadataSchemas/system-artifact-v0-0-1``), so a list shows them and they survive a restart.
"""

from __future__ import annotations

from provider.emulator.nested import KINDS, NestedService

VERSION = "0.0.1"
SYSTEM = {
    "ARTIFACT_TYPE": ("system.Artifact", "system.Dataset", "system.Model", "system.Metrics",
                      "google.ClassificationMetrics", "google.RegressionMetrics", "google.ForecastingMetrics",
                      "google.VertexDataset", "google.VertexModel", "google.VertexEndpoint",
                      "google.UnmanagedContainerModel", "google.ExperimentModel"),
    "EXECUTION_TYPE": ("system.ContainerExecution", "system.CustomJobExecution", "system.Run"),
    "CONTEXT_TYPE": ("system.Experiment", "system.ExperimentRun", "system.Pipeline", "system.PipelineRun"),
}


def schema_id(title: str) -> str:
    """``system.ExperimentRun`` -> ``system-experimentrun-v0-0-1``."""
    return f"{title.lower().replace('.', '-')}-v{VERSION.replace('.', '-')}"


def seed(nested: NestedService, store: str) -> None:
    """Write the store's system schemas unless it has them (its own must exist: NOT_FOUND else)."""
    nested.record(KINDS["metadataStores"], store)
    with nested.records.lock:
        for schema_type, titles in SYSTEM.items():
            for title in titles:
                if nested.records.get(f"{store}/metadataSchemas/{schema_id(title)}") is None:
                    nested.insert(KINDS["metadataSchemas"], store, schema_id(title), {
                        "schemaVersion": VERSION, "schemaType": schema_type,
                        "schema": f"title: {title}\ntype: object\n", "description": f"Vertex AI's {title}"})
