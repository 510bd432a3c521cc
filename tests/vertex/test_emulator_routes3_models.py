"""The model registry beyond upload: update, export, copy, evaluations and ordered lists, through
the real google-cloud-aiplatform (its high-level classes and the gapic ModelServiceClient over
REST) against the emulator; and a pipeline's model that knows its training job, across a restart."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from provider.emulator.server import Emulator
from provider.packaging.gcs import gcs_client
from tests.vertex.conftest import BUCKET, PARENT, PROJECT, Emulators
from tests.vertex.test_emulator_pipelines import EXECUTOR, SERVING, _client, _script, sdk  # noqa: F401

pytestmark = pytest.mark.slow


def _upload(sdk: Any, name: str, folder: str = "m", **kwargs: Any) -> Any:  # noqa: F811
    return sdk.Model.upload(display_name=name, artifact_uri=f"gs://{BUCKET}/{folder}",
                            serving_container_image_uri=SERVING, **kwargs)


def test_update_order_by_export_and_copy(sdk: Any, emulator: Emulator) -> None:  # noqa: F811
    from google.api_core.exceptions import BadRequest, MethodNotImplemented

    bucket = gcs_client(PROJECT, emulator.endpoint).bucket(BUCKET)
    bucket.blob("m/model.pkl").upload_from_string(b"weights")
    bucket.blob("m/sub/vocab.txt").upload_from_string(b"a\nb\n")
    first = _upload(sdk, "bravo", labels={"stage": "dev"})
    time.sleep(0.01)  # distinct create times for the order
    second = _upload(sdk, "alpha")

    # Model.update: the model's own fields, with an update mask.
    first.update(display_name="charlie", description="the first", labels={"stage": "prod"})
    again = sdk.Model(first.resource_name)
    assert (again.display_name, again.description, again.labels) == ("charlie", "the first", {"stage": "prod"})
    models = _client(emulator, "ModelServiceClient")
    with pytest.raises(BadRequest, match=r"'artifact_uri' cannot be updated.*display_name, description, labels"):
        models.update_model(model={"name": first.resource_name, "artifact_uri": "gs://x/y"},
                            update_mask={"paths": ["artifact_uri"]})
    with pytest.raises(BadRequest, match="belong to the whole model"):
        models.update_model(model={"name": f"{first.resource_name}@1", "display_name": "x"},
                            update_mask={"paths": ["display_name"]})
    updated = models.update_model(model={"name": first.resource_name, "version_description": "v1 notes",
                                         "version_aliases": ["champion"]},
                                  update_mask={"paths": ["version_description", "version_aliases"]})
    assert updated.version_description == "v1 notes"
    assert set(updated.version_aliases) == {"champion", "default"}  # the default stays with it

    # models.list orderBy: the fields Vertex AI documents, asc (the default) or desc.
    def names(order: str, **kw: Any) -> list[str]:
        return [m.display_name for m in models.list_models(request={"parent": PARENT, "order_by": order, **kw})]
    assert names("display_name") == ["alpha", "charlie"]
    assert names("display_name desc") == ["charlie", "alpha"]
    assert names("create_time") == ["charlie", "alpha"]
    assert names("update_time desc") == ["charlie", "alpha"]
    assert names("display_name", page_size=1) == ["alpha", "charlie"]  # every page, in order
    assert [m.display_name for m in sdk.Model.list(order_by="display_name desc")] == ["charlie", "alpha"]
    with pytest.raises(BadRequest, match="ordered by create_time, update_time or display_name"):
        names("labels")

    # Export: the custom-trained format copies the artifacts in storage; an image export is refused.
    assert list(first.supported_export_formats) == ["custom-trained"]
    info = first.export_model(export_format_id="custom-trained", artifact_destination=f"gs://{BUCKET}/exported")
    out = info["artifactOutputUri"]
    assert out.startswith(f"gs://{BUCKET}/exported/model-{first.name}/custom-trained/")
    prefix = out[len(f"gs://{BUCKET}/"):]
    assert bucket.blob(f"{prefix}/model.pkl").download_as_bytes() == b"weights"
    assert bucket.blob(f"{prefix}/sub/vocab.txt").download_as_bytes() == b"a\nb\n"
    with pytest.raises(MethodNotImplemented, match="container image"):
        models.export_model(name=first.resource_name, output_config={
            "export_format_id": "custom-trained", "image_destination": {"output_uri": "us-docker.pkg.dev/p/r/i"}})
    with pytest.raises(BadRequest, match="does not support export format 'tf-saved-model'"):
        models.export_model(name=first.resource_name, output_config={
            "export_format_id": "tf-saved-model", "artifact_destination": {"output_uri_prefix": f"gs://{BUCKET}/x"}})

    # Copy: a new model, or a new version of a parent model; its source is recorded.
    copied = first.copy(destination_location="us-central1", destination_model_id="copied")
    assert copied.resource_name == f"{PARENT}/models/copied" and copied.version_id == "1"
    assert copied.uri == first.uri and copied.display_name == "charlie"
    assert copied.gca_resource.model_source_info.copy
    assert copied.gca_resource.original_model_info.model == f"{first.resource_name}@1"
    as_version = second.copy(destination_location="us-central1", destination_parent_model=copied.resource_name)
    assert (as_version.resource_name, as_version.version_id) == (copied.resource_name, "2")
    assert [v.version_id for v in sdk.models.ModelRegistry(copied.resource_name).list_versions()] == ["1", "2"]


def test_model_evaluations_import_get_list_and_slices(sdk: Any, emulator: Emulator) -> None:  # noqa: F811
    from google.api_core.exceptions import NotFound
    from google.cloud import aiplatform_v1

    model = _upload(sdk, "evaluated")
    models = _client(emulator, "ModelServiceClient")
    schema = "gs://google-cloud-aiplatform/schema/modelevaluation/classification_metrics_1.0.0.yaml"
    imported = models.import_model_evaluation(parent=model.resource_name, model_evaluation=aiplatform_v1.ModelEvaluation(
        display_name="eval-1", metrics_schema_uri=schema, metrics={"auPrc": 0.9, "logLoss": 0.2}))
    assert imported.name.startswith(f"{model.resource_name}@1/evaluations/")  # under the version it evaluates
    assert imported.metrics["auPrc"] == pytest.approx(0.9)

    # The SDK's readers.
    evaluations = model.list_model_evaluations()
    assert [e.resource_name for e in evaluations] == [imported.name]
    assert model.get_model_evaluation().metrics["logLoss"] == pytest.approx(0.2)
    assert sdk.model_evaluation.ModelEvaluation(imported.name).display_name == "eval-1"

    sliced = models.batch_import_model_evaluation_slices(parent=imported.name, model_evaluation_slices=[
        {"slice_": {"dimension": "label", "value": "cat"}, "metrics_schema_uri": schema, "metrics": {"auPrc": 0.8}},
        {"slice_": {"dimension": "label", "value": "dog"}, "metrics_schema_uri": schema, "metrics": {"auPrc": 0.7}}])
    assert len(sliced.imported_model_evaluation_slices) == 2
    listed = list(models.list_model_evaluation_slices(parent=imported.name))
    assert [s.slice_.value for s in listed] == ["cat", "dog"]
    one = models.get_model_evaluation_slice(name=sliced.imported_model_evaluation_slices[1])
    assert one.slice_.dimension == "label" and one.metrics["auPrc"] == pytest.approx(0.7)

    # Deleting the model deletes its evaluations.
    model.delete()
    with pytest.raises(NotFound):
        models.get_model_evaluation(name=imported.name)


def test_an_evaluation_belongs_to_the_version_it_was_imported_under(emulator: Emulator) -> None:
    """Vertex AI keeps evaluations per model version (models/M@V/evaluations): each version lists its
    own; a get without a version finds it under its version; deleting a version deletes its own."""
    from google.api_core.exceptions import NotFound
    from google.cloud import aiplatform_v1

    models = _client(emulator, "ModelServiceClient")

    def upload(**extra: Any) -> str:
        model = aiplatform_v1.Model(display_name="versioned", artifact_uri=f"gs://{BUCKET}/v",
                                    container_spec={"image_uri": SERVING})
        return str(models.upload_model(request={"parent": PARENT, "model": model, **extra}).result(timeout=30).model)

    name = upload()
    assert upload(parent_model=name) == name  # version 2, not the default
    one = models.import_model_evaluation(parent=f"{name}@1", model_evaluation={"display_name": "of-1"})
    two = models.import_model_evaluation(parent=f"{name}@2", model_evaluation={"display_name": "of-2"})
    default = models.import_model_evaluation(parent=name, model_evaluation={"display_name": "of-default"})
    assert one.name.startswith(f"{name}@1/evaluations/") and two.name.startswith(f"{name}@2/evaluations/")
    assert default.name.startswith(f"{name}@1/evaluations/")  # the model's name is its default version's

    def listed(parent: str) -> list[str]:
        return [e.display_name for e in models.list_model_evaluations(parent=parent)]
    assert listed(f"{name}@2") == ["of-2"]
    assert listed(f"{name}@1") == listed(name) == listed(f"{name}@default") == ["of-1", "of-default"]
    evaluation_id = two.name.rsplit("/", 1)[1]
    assert models.get_model_evaluation(name=f"{name}/evaluations/{evaluation_id}").name == two.name
    with pytest.raises(NotFound, match="does not exist"):
        models.get_model_evaluation(name=f"{name}@1/evaluations/{evaluation_id}")  # not version 1's
    sliced = models.batch_import_model_evaluation_slices(parent=two.name, model_evaluation_slices=[
        {"slice_": {"dimension": "label", "value": "cat"}, "metrics": {"auPrc": 0.8}}])
    assert sliced.imported_model_evaluation_slices[0].startswith(f"{two.name}/slices/")

    models.delete_model_version(name=f"{name}@2").result(timeout=30)
    with pytest.raises(NotFound):
        models.get_model_evaluation(name=two.name)
    assert listed(name) == ["of-1", "of-default"]  # the other version's stay


def test_a_pipelines_model_knows_its_training_job_across_a_restart(emulators: Emulators, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from google.api_core.exceptions import NotFound
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform
    from google.cloud.aiplatform import initializer, jobs, training_jobs

    monkeypatch.setattr(training_jobs, "_JOB_WAIT_TIME", 0.2)
    monkeypatch.setattr(jobs, "_JOB_WAIT_TIME", 0.2)

    def connect(emulator: Emulator) -> None:
        monkeypatch.setenv("STORAGE_EMULATOR_HOST", emulator.endpoint)
        initializer.global_config.__init__()  # type: ignore[misc]
        aiplatform.init(project=PROJECT, location="us-central1", api_endpoint=emulator.endpoint,
                        api_transport="rest", credentials=AnonymousCredentials(), staging_bucket=f"gs://{BUCKET}")

    first = emulators.start()
    gcs_client(PROJECT, first.endpoint).create_bucket(BUCKET)
    try:
        connect(first)
        job = aiplatform.CustomTrainingJob(display_name="kept-train", script_path=str(_script(tmp_path)),
                                           container_uri=EXECUTOR, model_serving_container_image_uri=SERVING)
        model = job.run(args=["--dump", str(tmp_path / "dump.json")], replica_count=1,
                        machine_type="n1-standard-4", model_display_name="kept-model")
        assert job.state.name == "PIPELINE_STATE_SUCCEEDED"
        trained = model.training_job  # the SDK reads the pipeline the model names
        assert isinstance(trained, aiplatform.CustomTrainingJob)
        emulators.stop(first)

        second = emulators.start()
        connect(second)
        pipeline = aiplatform.CustomTrainingJob.get(job.resource_name)
        assert pipeline.state.name == "PIPELINE_STATE_SUCCEEDED"
        assert pipeline.gca_resource.model_to_upload.name == model.resource_name
        assert pipeline.gca_resource.end_time == job.gca_resource.end_time
        again = aiplatform.Model(model.resource_name)
        assert again.gca_resource.training_pipeline == job.resource_name
        assert isinstance(again.training_job, aiplatform.CustomTrainingJob)
        assert [p.resource_name for p in aiplatform.CustomTrainingJob.list()] == [job.resource_name]
        assert [m.resource_name for m in aiplatform.Model.list()] == [model.resource_name]
        assert json.loads((tmp_path / "dump.json").read_text())["env"]["AIP_MODEL_DIR"]

        # A pipeline deleted since: the SDK's own NotFound, from the emulator's 404.
        _client(second, "PipelineServiceClient").delete_training_pipeline(name=job.resource_name).result(timeout=30)
        with pytest.raises(NotFound, match="training job used to create this model could not be found"):
            _ = aiplatform.Model(model.resource_name).training_job
    finally:
        initializer.global_config.__init__()  # type: ignore[misc]


def test_evaluations_patches_and_copies_survive_a_restart(emulators: Emulators) -> None:
    from google.cloud import aiplatform_v1

    first = emulators.start()
    models = _client(first, "ModelServiceClient")
    uploaded = models.upload_model(request={"parent": PARENT, "model_id": "kept", "model": aiplatform_v1.Model(
        display_name="kept", artifact_uri=f"gs://{BUCKET}/k", container_spec={"image_uri": SERVING})}).result(
        timeout=30)
    evaluation = models.import_model_evaluation(parent=uploaded.model, model_evaluation={
        "display_name": "eval", "metrics": {"accuracy": 0.5}})
    models.update_model(model={"name": uploaded.model, "description": "patched"},
                        update_mask={"paths": ["description"]})
    copied = models.copy_model(request={"parent": PARENT, "source_model": uploaded.model,
                                        "model_id": "kept-copy"}).result(timeout=30)
    emulators.stop(first)

    again = _client(emulators.start(), "ModelServiceClient")
    assert again.get_model_evaluation(name=evaluation.name).metrics["accuracy"] == pytest.approx(0.5)
    assert again.get_model(name=uploaded.model).description == "patched"
    assert again.get_model(name=copied.model).original_model_info.model == f"{uploaded.model}@1"
    assert [m.name for m in again.list_models(request={"parent": PARENT, "order_by": "create_time desc"})] == [
        copied.model, uploaded.model]


def test_a_model_stored_without_export_formats_gets_them_on_read(emulators: Emulators) -> None:
    """A model registered before the emulator kept supportedExportFormats (its record, as it was
    written then) reads with them, through the SDK: Model, Model.list, and the export they allow; an
    evaluation stored then under the model's bare name moves to its default version."""
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform
    from google.cloud.aiplatform import initializer

    first = emulators.start()
    gcs_client(PROJECT, first.endpoint).create_bucket(BUCKET)
    gcs_client(PROJECT, first.endpoint).bucket(BUCKET).blob("old/model.pkl").upload_from_string(b"weights")
    models = _client(first, "ModelServiceClient")
    made = models.upload_model(request={"parent": PARENT, "model_id": "old", "model": {
        "display_name": "old", "artifact_uri": f"gs://{BUCKET}/old", "container_spec": {"image_uri": SERVING}}})
    name = made.result(timeout=30).model
    emulators.stop(first)
    path = emulators.state_dir / "jobs" / "Model.old.json"
    record = json.loads(path.read_text())
    for version in record["body"]["versions"]:
        del version["supportedExportFormats"]  # the old shape
    path.write_text(json.dumps(record))
    from provider.emulator.resource_store import ResourceStore

    old = ResourceStore(emulators.state_dir)  # an evaluation and its slice, where an older emulator kept them
    stamp = "2026-01-01T00:00:00.000000Z"
    for parent, collection, rid, body in ((name, "evaluations", "7", {"displayName": "old-eval"}),
                                          (f"{name}/evaluations/7", "slices", "8", {"slice": {"dimension": "label"}})):
        old.put({"name": f"{parent}/{collection}/{rid}", "collection": collection, "parent": parent, "id": rid,
                 "create_time": stamp, "update_time": stamp, "etag": "1", "body": body})

    again = emulators.start()
    try:
        aiplatform.init(project=PROJECT, location="us-central1", api_endpoint=again.endpoint, api_transport="rest",
                        credentials=AnonymousCredentials())
        model = aiplatform.Model(name)
        assert model.supported_export_formats == {"custom-trained": [
            aiplatform.gapic.Model.ExportFormat.ExportableContent.ARTIFACT]}
        assert [m.supported_export_formats for m in aiplatform.Model.list()] == [model.supported_export_formats]
        exported = model.export_model(export_format_id="custom-trained", artifact_destination=f"gs://{BUCKET}/out")
        assert exported["artifactOutputUri"].startswith(f"gs://{BUCKET}/out")
        assert [e.resource_name for e in model.list_model_evaluations()] == [f"{name}@1/evaluations/7"]
        client = _client(again, "ModelServiceClient")
        assert [s.name for s in client.list_model_evaluation_slices(parent=f"{name}/evaluations/7")] == [
            f"{name}@1/evaluations/7/slices/8"]
    finally:
        initializer.global_config.__init__()  # type: ignore[misc]  # forget the endpoint for later tests
