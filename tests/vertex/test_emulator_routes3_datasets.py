"""A tabular dataset's :import and :export, and a training pipeline's predefined, timestamp and
stratified splits, through the real google-cloud-aiplatform (TabularDataset, CustomTrainingJob and
the gapic DatasetServiceClient and PipelineServiceClient over REST) against the emulator."""

from __future__ import annotations

import csv
import glob
import json
from pathlib import Path
from typing import Any

import pytest

from provider.emulator.server import Emulator
from provider.packaging.gcs import gcs_client
from tests.vertex.conftest import BUCKET, PARENT, PROJECT
from tests.vertex.test_emulator_pipelines import CUSTOM_TASK, EXECUTOR, _client, _script, _wait, sdk  # noqa: F401

pytestmark = pytest.mark.slow


def _rows(dump: Path, split: str) -> list[dict[str, str]]:
    pattern = json.loads(dump.read_text())["env"][f"AIP_{split}_DATA_URI"]
    rows: list[dict[str, str]] = []
    for name in sorted(glob.glob(pattern)):
        with open(name, newline="") as f:
            rows.extend(csv.DictReader(f))
    return rows


def _table(emulator: Emulator, path: str, lines: list[str]) -> str:
    gcs_client(PROJECT, emulator.endpoint).bucket(BUCKET).blob(path).upload_from_string("\n".join(lines) + "\n")
    return f"gs://{BUCKET}/{path}"


def test_import_then_export_with_and_without_a_split(sdk: Any, emulator: Emulator) -> None:  # noqa: F811
    from google.api_core.exceptions import BadRequest, MethodNotImplemented

    first = _table(emulator, "d/a.csv", ["x,y", *(f"{i},{i % 2}" for i in range(10))])
    dataset = sdk.TabularDataset.create(display_name="grown", gcs_source=[first])
    datasets = _client(emulator, "DatasetServiceClient")
    more = _table(emulator, "d/b.csv", ["x,y", *(f"{i},{i % 2}" for i in range(10, 30))])
    datasets.import_data(name=dataset.resource_name, import_configs=[{"gcs_source": {"uris": [more]}}]).result(
        timeout=30)
    assert list(sdk.TabularDataset(dataset.resource_name).gca_resource.metadata["inputConfig"]["gcsSource"]["uri"]) \
        == [first, more]
    other = _table(emulator, "d/c.csv", ["a,b", "1,2"])
    with pytest.raises(BadRequest, match="do not share one header"):
        datasets.import_data(name=dataset.resource_name, import_configs=[{"gcs_source": {"uris": [other]}}])
    with pytest.raises(MethodNotImplemented, match=r"import_schema_uri \(data items"):
        datasets.import_data(name=dataset.resource_name, import_configs=[{
            "gcs_source": {"uris": [more]}, "import_schema_uri": sdk.schema.dataset.ioformat.image.bounding_box}])

    files = dataset.export_data(output_dir=f"gs://{BUCKET}/out")  # the SDK's own export
    assert len(files) == 1 and files[0].startswith(f"gs://{BUCKET}/out/export-data-grown-")
    blob = gcs_client(PROJECT, emulator.endpoint).bucket(BUCKET).blob(files[0][len(f"gs://{BUCKET}/"):])
    exported = blob.download_as_bytes().decode().splitlines()
    assert exported[0] == "x,y" and sorted(int(r.split(",")[0]) for r in exported[1:]) == list(range(30))

    op = datasets.export_data(name=dataset.resource_name, export_config={
        "gcs_destination": {"output_uri_prefix": f"gs://{BUCKET}/split"},
        "fraction_split": {"training_fraction": 0.5, "validation_fraction": 0.25, "test_fraction": 0.25}})
    split = op.result(timeout=30).exported_files
    assert [f.rsplit("/", 1)[1] for f in split] == [
        "training-00000-of-00001.csv", "validation-00000-of-00001.csv", "test-00000-of-00001.csv"]
    assert op.metadata.gcs_output_directory == split[0].rsplit("/", 1)[0]
    bucket = gcs_client(PROJECT, emulator.endpoint).bucket(BUCKET)
    sizes = [len(bucket.blob(f[len(f"gs://{BUCKET}/"):]).download_as_bytes().decode().splitlines()) - 1
             for f in split]
    assert sizes == [15, 8, 7]  # 30 rows: 15, round(7.5), the rest


def test_predefined_timestamp_and_stratified_splits(sdk: Any, emulator: Emulator, tmp_path: Path) -> None:  # noqa: F811
    from google.api_core.exceptions import BadRequest, MethodNotImplemented
    from google.cloud import aiplatform_v1

    sets = ["training"] * 6 + ["validation"] * 3 + ["test"] * 2 + ["other"]
    lines = ["x,label,when,split"] + [
        f"{i},{'cat' if i % 3 else 'dog'},2026-01-{(i * 7) % 28 + 1:02d}T00:00:00Z,{sets[i % len(sets)]}"
        for i in range(60)]
    dataset = sdk.TabularDataset.create(display_name="table", gcs_source=[_table(emulator, "t/rows.csv", lines)])

    dump = tmp_path / "predefined.json"
    job = sdk.CustomTrainingJob(display_name="predefined", script_path=str(_script(tmp_path)),
                                container_uri=EXECUTOR)
    job.run(dataset=dataset, args=["--dump", str(dump)], predefined_split_column_name="split")
    for split in ("TRAINING", "VALIDATION", "TEST"):
        assert {r["split"] for r in _rows(dump, split)} == {split.lower()}
    assert len(_rows(dump, "TRAINING")) == 30  # the "other" rows are left out

    dump = tmp_path / "timestamp.json"
    job = sdk.CustomTrainingJob(display_name="timestamp", script_path=str(_script(tmp_path)),
                                container_uri=EXECUTOR)
    job.run(dataset=dataset, args=["--dump", str(dump)], timestamp_split_column_name="when",
            training_fraction_split=0.5, validation_fraction_split=0.25, test_fraction_split=0.25)
    training, validation, test = (_rows(dump, s) for s in ("TRAINING", "VALIDATION", "TEST"))
    assert (len(training), len(validation), len(test)) == (30, 15, 15)
    assert max(r["when"] for r in training) <= min(r["when"] for r in validation)
    assert max(r["when"] for r in validation) <= min(r["when"] for r in test)

    # The SDK has no stratified split for custom training: the gapic client sends it.
    pipelines = _client(emulator, "PipelineServiceClient")
    base = f"gs://{BUCKET}/stratified"
    package = job.gca_resource.training_task_inputs["workerPoolSpecs"][0]["pythonPackageSpec"]  # the SDK staged it
    spec = {"worker_pool_specs": [{"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
                                   "python_package_spec": {
                                       "executor_image_uri": EXECUTOR, "python_module": package["pythonModule"],
                                       "package_uris": list(package["packageUris"]),
                                       "args": ["--dump", str(tmp_path / "stratified.json")]}}],
            "base_output_directory": {"output_uri_prefix": base}}

    def pipeline(config: dict[str, Any]) -> Any:
        return aiplatform_v1.TrainingPipeline(display_name="stratified", training_task_definition=CUSTOM_TASK,
                                              training_task_inputs=spec, input_data_config={
                                                  "dataset_id": dataset.name, **config})
    made = pipelines.create_training_pipeline(parent=PARENT, training_pipeline=pipeline({"stratified_split": {
        "key": "label", "training_fraction": 0.5, "validation_fraction": 0.25, "test_fraction": 0.25}}))
    assert _wait(lambda: pipelines.get_training_pipeline(name=made.name),
                 ("PIPELINE_STATE_SUCCEEDED", "PIPELINE_STATE_FAILED")).state.name == "PIPELINE_STATE_SUCCEEDED"
    dump = tmp_path / "stratified.json"
    counts = {s: sorted(r["label"] for r in _rows(dump, s)) for s in ("TRAINING", "VALIDATION", "TEST")}
    assert counts["TRAINING"].count("cat") == 20 and counts["TRAINING"].count("dog") == 10
    assert counts["VALIDATION"].count("cat") == 10 and counts["VALIDATION"].count("dog") == 5

    with pytest.raises(BadRequest, match="'nope' is not a column of the dataset; its columns are x, label, when"):
        pipelines.create_training_pipeline(parent=PARENT, training_pipeline=pipeline({"stratified_split": {
            "key": "nope", "training_fraction": 1.0}}))
    with pytest.raises(MethodNotImplemented, match="filter_split is not emulated: it filters data items"):
        pipelines.create_training_pipeline(parent=PARENT, training_pipeline=pipeline({"filter_split": {
            "training_filter": "labels.a=b", "validation_filter": "-", "test_filter": "-"}}))
