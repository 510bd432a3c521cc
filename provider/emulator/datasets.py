"""Datasets: Vertex AI's ``projects.locations.datasets``, for the one kind the emulator serves,
a tabular dataset read from Cloud Storage CSV files, and the split a training pipeline gives its trainer.

* ``create`` POST ``{parent}/datasets``: an Operation (CreateDatasetOperationMetadata) whose response
  is the Dataset. Only ``metadataSchemaUri`` ``.../metadata/tabular_1.0.0.yaml`` with
  ``metadata.inputConfig.gcsSource.uri`` (CSV objects in the emulated storage, which must exist) is
  served; any other schema (image, text, video, time series) or a BigQuery source is refused by name.
* ``get``, ``list``, ``delete`` (an Operation).

``export`` is what a custom training pipeline with ``inputDataConfig`` does before the trainer
starts, as Vertex AI does: the rows of the CSV files (one header, kept in every part) are shuffled
and split by ``fractionSplit`` (default 0.8 / 0.1 / 0.1) into
``<gcsDestination>/dataset-<id>-tables-<time>/{training,validation,test}-00000-of-00001.csv``, and
the trainer gets ``AIP_DATA_FORMAT=csv`` and ``AIP_{TRAINING,VALIDATION,TEST}_DATA_URI`` =
``.../training-*`` (a wildcard, as Vertex AI gives it). Other splits are refused by name.
"""

from __future__ import annotations

import csv
import io
import random
import threading
import time
from pathlib import Path
from typing import Any

from provider.backends.local.paths import Storage, StorageError
from provider.backends.local.store import new_job_id, now
from provider.emulator import listing, wire
from provider.emulator.errors import ApiError, FieldViolation, invalid, not_found
from provider.emulator.operations import EMPTY, Operations, typed
from provider.emulator.store import EmulatorStore

Json = dict[str, Any]

KIND = "Dataset"
SCHEMA = "gs://google-cloud-aiplatform/schema/dataset/metadata/"
TABULAR = SCHEMA + "tabular_1.0.0.yaml"
DEFAULT_SPLIT = (0.8, 0.1, 0.1)
SPLITS = ("training", "validation", "test")


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
        self._lock = threading.Lock()

    def _sources(self, dataset: Json) -> list[Path]:
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
        self._sources(body)
        stamp = now()
        with self._lock:
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
        for other in ("filterSplit", "predefinedSplit", "timestampSplit", "stratifiedSplit"):
            if other in config:
                raise not_emulated(f"input_data_config.{listing.camel(other)} ({other})")
        if "bigqueryDestination" in config:
            raise not_emulated("input_data_config.bigquery_destination (export to BigQuery)")
        destination = (config.get("gcsDestination") or {}).get("outputUriPrefix") or default_destination
        if not destination:
            raise _violation(f"{at}.gcs_destination", "Required field is not set: where the dataset's split is "
                                                      "written for the trainer.")
        fractions = _fractions(config.get("fractionSplit"), at)
        header, rows = _rows(self._sources(dataset))
        random.Random(dataset_id).shuffle(rows)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + f".{int(time.time() * 1000) % 1000:03d}Z"
        folder = f"{destination.rstrip('/')}/dataset-{dataset_id}-tables-{stamp}"
        env = {"AIP_DATA_FORMAT": "csv"}
        start = 0
        for i, (split, fraction) in enumerate(zip(SPLITS, fractions, strict=True)):
            end = len(rows) if i == len(SPLITS) - 1 else start + round(fraction * len(rows))
            self._write(f"{folder}/{split}-00000-of-00001.csv", header, rows[start:end])
            start = end
            env[f"AIP_{split.upper()}_DATA_URI"] = f"{folder}/{split}-*"
        return env

    def _write(self, uri: str, header: list[str], rows: list[list[str]]) -> None:
        path = self.storage.path(uri)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        path.write_text(text.getvalue(), encoding="utf-8")


def _fractions(split: Json | None, at: str) -> tuple[float, float, float]:
    if not split:
        return DEFAULT_SPLIT
    values = tuple(float(split.get(f"{k}Fraction", 0.0)) for k in SPLITS)
    if any(v < 0 for v in values) or not 0.999 <= sum(values) <= 1.001:
        raise _violation(f"{at}.fraction_split", f"The fractions {', '.join(str(v) for v in values)} must be "
                                                 "non-negative and sum to 1.")
    return values[0], values[1], values[2]


def _rows(paths: list[Path]) -> tuple[list[str], list[list[str]]]:
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
