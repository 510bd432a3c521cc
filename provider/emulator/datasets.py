"""Datasets: Vertex AI's ``projects.locations.datasets``, for the one kind the emulator serves,
a tabular dataset read from Cloud Storage CSV files, and the split a training pipeline gives its trainer.

* ``create`` POST ``{parent}/datasets``: an Operation (CreateDatasetOperationMetadata) whose response
  is the Dataset. Only ``metadataSchemaUri`` ``.../metadata/tabular_1.0.0.yaml`` with
  ``metadata.inputConfig.gcsSource.uri`` (CSV objects in the emulated storage, which must exist) is
  served; any other schema (image, text, video, time series) or a BigQuery source is refused by name.
* ``get``, ``list``, ``delete`` (an Operation).

``export`` is what a custom training pipeline with ``inputDataConfig`` does before the trainer
starts, as Vertex AI does: the rows of the CSV files (one header, kept in every part) are split
as dataset_splits.py says (fraction, predefined, timestamp or stratified split; default 0.8 / 0.1
/ 0.1 of the shuffled rows) into
``<gcsDestination>/dataset-<id>-tables-<time>/{training,validation,test}-00000-of-00001.csv``, and
the trainer gets ``AIP_DATA_FORMAT=csv`` and ``AIP_{TRAINING,VALIDATION,TEST}_DATA_URI`` =
``.../training-*`` (a wildcard, as Vertex AI gives it). ``:import`` and ``:export`` are
dataset_transfer.py's.
"""

from __future__ import annotations

import csv
import io
import threading
from pathlib import Path
from typing import Any

from provider.backends.local.paths import Storage, StorageError
from provider.backends.local.store import new_job_id, now
from provider.emulator import listing, wire
from provider.emulator.dataset_splits import SPLITS, split_rows
from provider.emulator.errors import ApiError, FieldViolation, invalid, not_found
from provider.emulator.operations import EMPTY, Operations, typed
from provider.emulator.storage import folder_stamp
from provider.emulator.store import EmulatorStore

Json = dict[str, Any]

KIND = "Dataset"
SCHEMA = "gs://google-cloud-aiplatform/schema/dataset/metadata/"
TABULAR = SCHEMA + "tabular_1.0.0.yaml"


def _key(dataset_id: str) -> str:
    return f"{KIND}.{dataset_id}"


def _violation(field: str, description: str) -> ApiError:
    v = FieldViolation(field, description)
    return invalid(f"List of found errors:\t1.Field: {field}; Message: {description}\t", (v,))


def not_emulated(what: str) -> ApiError:
    return ApiError("UNIMPLEMENTED", f"{what} is not emulated: the trainjobs emulator serves tabular datasets read "
                                     f"from Cloud Storage CSV files ({TABULAR}) and their fraction split.")


class DatasetService:
    def __init__(self, store: EmulatorStore, operations: Operations, storage_root: Path) -> None:
        self.store = store
        self.operations = operations
        self.storage = Storage(root=storage_root)
        self.lock = threading.Lock()

    def sources(self, dataset: Json) -> list[Path]:
        """The CSV files of a tabular dataset's gcsSource, each an object in the emulated storage."""
        metadata: Json = dataset["metadata"] if isinstance(dataset.get("metadata"), dict) else {}
        config = metadata.get("inputConfig") or {}
        if "bigquerySource" in config:
            raise not_emulated("A tabular dataset from BigQuery (metadata.inputConfig.bigquerySource)")
        uris = (config.get("gcsSource") or {}).get("uri")
        if isinstance(uris, str):
            uris = [uris]
        if not uris or not isinstance(uris, list):
            raise _violation("dataset.metadata.input_config.gcs_source.uri", "Required field is not set: give the "
                                                                              "gs:// URIs of the dataset's CSV files.")
        paths = []
        for uri in uris:
            try:
                path = self.storage.path(str(uri))
            except StorageError as exc:
                raise _violation("dataset.metadata.input_config.gcs_source.uri", str(exc)) from None
            if not path.is_file():
                raise _violation("dataset.metadata.input_config.gcs_source.uri",
                                 f"{uri} is not an object in the emulator's storage: upload it first.")
            paths.append(path)
        return paths

    def create(self, parent: str, raw: bytes) -> Json:
        body = wire.parse("Dataset", raw)
        if not body.get("displayName"):
            raise _violation("dataset.display_name", "Required field is not set.")
        schema = body.get("metadataSchemaUri", "")
        if schema != TABULAR:
            kind = schema.removeprefix(SCHEMA).split("_")[0] if schema.startswith(SCHEMA) else schema or "(none)"
            raise not_emulated(f"A dataset of metadata schema {kind!r} ({schema or 'metadata_schema_uri unset'})")
        self.sources(body)
        stamp = now()
        with self.lock:
            dataset_id = new_job_id()
            while self.store.job(_key(dataset_id)) is not None:
                dataset_id = new_job_id()
            name = f"{parent}/datasets/{dataset_id}"
            dataset = {**body, "name": name, "createTime": stamp, "updateTime": stamp}
            self.store.put_job({"id": _key(dataset_id), "kind": KIND, "parent": parent, "create_time": stamp,
                                "body": dataset})
        return self.operations.finished(name, "CreateDatasetOperationMetadata", typed("Dataset", dataset))

    def get(self, name: str) -> Json:
        parent, _, dataset_id = name.partition("/datasets/")
        record = self.store.job(_key(dataset_id))
        if record is None or record["kind"] != KIND or record["parent"] != parent:
            raise not_found(f"The Dataset {name} does not exist.")
        body: Json = record["body"]
        return body

    def replace(self, name: str, body: Json) -> None:
        """Store a dataset's new JSON (import's new sources)."""
        record = self.store.job(_key(name.rsplit("/", 1)[-1]))
        if record is None or record["kind"] != KIND:
            raise not_found(f"The Dataset {name} does not exist.")
        self.store.put_job({**record, "body": body})

    def page(self, parent: str, params: dict[str, str]) -> Json:
        return listing.page(lambda after: self.store.walk(KIND, parent, after), lambda r: r["body"], "datasets",
                            parent, params)

    def delete(self, name: str) -> Json:
        self.get(name)
        self.store.drop_job(_key(name.rsplit("/", 1)[-1]))
        return self.operations.finished(name, "DeleteOperationMetadata", EMPTY)

    # -- a training pipeline's inputDataConfig --------------------------------------------------
    def export(self, parent: str, config: Json, default_destination: str) -> dict[str, str]:
        """Split the dataset as ``config`` says into Cloud Storage; the AIP_* variables the trainer gets."""
        at = "training_pipeline.input_data_config"
        dataset_id = str(config.get("datasetId") or "")
        if not dataset_id:
            raise _violation(f"{at}.dataset_id", "Required field is not set.")
        dataset = self.get(f"{parent}/datasets/{dataset_id}")
        if "bigqueryDestination" in config:
            raise not_emulated("input_data_config.bigquery_destination (export to BigQuery)")
        destination = (config.get("gcsDestination") or {}).get("outputUriPrefix") or default_destination
        if not destination:
            raise _violation(f"{at}.gcs_destination", "Required field is not set: where the dataset's split is "
                                                      "written for the trainer.")
        header, rows = rows_of(self.sources(dataset))
        parts = split_rows(config, header, rows, dataset_id, at)
        folder = f"{destination.rstrip('/')}/dataset-{dataset_id}-tables-{folder_stamp()}"
        env = {"AIP_DATA_FORMAT": "csv"}
        for split, part in zip(SPLITS, parts, strict=True):
            self.write(f"{folder}/{split}-00000-of-00001.csv", header, part)
            env[f"AIP_{split.upper()}_DATA_URI"] = f"{folder}/{split}-*"
        return env

    def write(self, uri: str, header: list[str], rows: list[list[str]]) -> None:
        path = self.storage.path(uri)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        path.write_text(text.getvalue(), encoding="utf-8")


def rows_of(paths: list[Path]) -> tuple[list[str], list[list[str]]]:
    header: list[str] = []
    rows: list[list[str]] = []
    for path in paths:
        with path.open(newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            first = next(reader, None)
            if first is None:
                continue
            if header and first != header:
                raise invalid(f"The dataset's CSV files do not share one header: {path.name} has {first}, "
                              f"another has {header}.")
            header = first
            rows.extend(reader)
    return header, rows
