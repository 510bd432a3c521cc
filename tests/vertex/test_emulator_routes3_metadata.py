"""The metadata service's schemas, purges and removeContextChildren, through the real
google-cloud-aiplatform's MetadataServiceClient over REST and its high-level Context, against the
emulator; and that they survive a restart."""

from __future__ import annotations

from typing import Any

import pytest
import requests

from provider.emulator.server import Emulator
from tests.vertex.conftest import PARENT, Emulators

pytestmark = pytest.mark.slow

STORE = f"{PARENT}/metadataStores/default"


def _metadata(emulator: Emulator) -> Any:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1

    return aiplatform_v1.MetadataServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                               client_options={"api_endpoint": emulator.endpoint})


def _store(md: Any) -> None:
    from google.cloud import aiplatform_v1 as v1

    md.create_metadata_store(parent=PARENT, metadata_store=v1.MetadataStore(),
                             metadata_store_id="default").result(timeout=60)


def test_metadata_schemas_system_and_created_survive_a_restart(emulators: Emulators) -> None:
    from google.api_core.exceptions import BadRequest, Conflict, NotFound
    from google.cloud import aiplatform_v1 as v1

    first = emulators.start()
    md = _metadata(first)
    with pytest.raises(NotFound):
        list(md.list_metadata_schemas(parent=STORE))
    _store(md)
    system = {s.name.rsplit("/", 1)[1]: s for s in md.list_metadata_schemas(parent=STORE)}
    assert "system-experimentrun-v0-0-1" in system and "google-classificationmetrics-v0-0-1" in system
    run = md.get_metadata_schema(name=f"{STORE}/metadataSchemas/system-experimentrun-v0-0-1")
    assert run.schema_type.name == "CONTEXT_TYPE" and "title: system.ExperimentRun" in run.schema

    made = md.create_metadata_schema(parent=STORE, metadata_schema_id="acme-model-v1", metadata_schema=v1.MetadataSchema(
        schema_version="1.0.0", schema="title: acme.Model\ntype: object\n", schema_type="ARTIFACT_TYPE",
        description="ours"))
    assert made.name == f"{STORE}/metadataSchemas/acme-model-v1" and made.create_time
    with pytest.raises(Conflict, match="already exists"):  # ALREADY_EXISTS is HTTP 409
        md.create_metadata_schema(parent=STORE, metadata_schema_id="acme-model-v1",
                                  metadata_schema=v1.MetadataSchema(schema="title: x\n"))
    with pytest.raises(BadRequest, match=r"metadata_schema\.schema"):
        md.create_metadata_schema(parent=STORE, metadata_schema=v1.MetadataSchema(schema_version="1"))
    found = list(md.list_metadata_schemas(request={"parent": STORE, "filter": 'schema_type="ARTIFACT_TYPE"'}))
    assert made.name in [s.name for s in found]
    assert all(s.schema_type.name == "ARTIFACT_TYPE" for s in found)
    # The API updates and deletes no schema.
    answer = requests.delete(f"{first.endpoint}/v1/{made.name}", timeout=30)
    assert answer.status_code == 405 and answer.json()["error"]["status"] == "UNIMPLEMENTED"

    emulators.stop(first)
    second = emulators.start()
    again = _metadata(second)
    assert again.get_metadata_schema(name=made.name).description == "ours"
    names = [s.name for s in again.list_metadata_schemas(parent=STORE)]
    assert names.count(made.name) == 1 and len(names) == len(system) + 1


def test_purge_dry_run_then_force_and_remove_context_children(emulator: Emulator) -> None:
    from google.api_core.exceptions import BadRequest, NotFound
    from google.cloud import aiplatform_v1 as v1

    md = _metadata(emulator)
    _store(md)
    arts = [md.create_artifact(parent=STORE, artifact_id=f"a{i}", artifact=v1.Artifact(
        display_name=f"a{i}", schema_title="system.Artifact", labels={"keep": "yes" if i % 2 else "no"}))
        for i in range(5)]
    dry = md.purge_artifacts(request={"parent": STORE, "filter": 'labels.keep="no"'}).result(timeout=30)
    assert dry.purge_count == 3 and sorted(dry.purge_sample) == sorted(a.name for a in arts[0::2])
    assert len(list(md.list_artifacts(parent=STORE))) == 5  # nothing went without force
    done = md.purge_artifacts(request={"parent": STORE, "filter": 'labels.keep="no"', "force": True})
    assert done.result(timeout=30).purge_count == 3 and not done.result().purge_sample
    assert isinstance(done.metadata, v1.PurgeArtifactsMetadata)
    assert [a.name for a in md.list_artifacts(parent=STORE)] == [arts[1].name, arts[3].name]
    with pytest.raises(NotFound):
        md.get_artifact(name=arts[0].name)
    with pytest.raises(BadRequest, match="filter"):
        md.purge_executions(request={"parent": STORE, "filter": ""})
    md.create_execution(parent=STORE, execution_id="e1", execution=v1.Execution(schema_title="system.Run",
                                                                               state="COMPLETE"))
    assert md.purge_executions(request={"parent": STORE, "filter": 'state="COMPLETE"', "force": True}).result(
        timeout=30).purge_count == 1

    parent = md.create_context(parent=STORE, context_id="exp", context=v1.Context(schema_title="system.Experiment"))
    kids = [md.create_context(parent=STORE, context_id=f"run-{i}", context=v1.Context(
        schema_title="system.ExperimentRun")) for i in range(2)]
    md.add_context_children(context=parent.name, child_contexts=[k.name for k in kids])
    md.remove_context_children(context=parent.name, child_contexts=[kids[0].name])
    assert list(md.get_context(name=kids[0].name).parent_contexts) == []
    assert list(md.get_context(name=kids[1].name).parent_contexts) == [parent.name]
    children = md.list_contexts(request={"parent": STORE, "filter": f'parent_contexts:"{parent.name}"'})
    assert [c.name for c in children] == [kids[1].name]
    # Contexts purge too: the run left, with force.
    gone = md.purge_contexts(request={"parent": STORE, "filter": 'schema_title="system.ExperimentRun"',
                                      "force": True}).result(timeout=30)
    assert gone.purge_count == 2
    assert [c.name for c in md.list_contexts(parent=STORE)] == [parent.name]
