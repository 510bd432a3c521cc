"""A tabular dataset's ``:import`` and ``:export``, as Vertex AI's v1 REST reference has them
(``projects.locations.datasets.import`` and ``.export``); both answer an Operation, done at once.

* ``import`` (ImportDataRequest): each ``importConfigs[].gcsSource.uris`` names CSV objects of the
  emulated storage, which must exist and share the dataset's header; they are added to the
  dataset's ``metadata.inputConfig.gcsSource.uri``, so its rows are theirs from then on. What
  needs data items (``importSchemaUri``, ``dataItemLabels``, ``annotationLabels``: image, text and
  video datasets) is refused by name.
* ``export`` (ExportDataRequest): the rows, written as CSV (the header in every file) under
  ``{gcsDestination}/export-data-{displayName}-{time}/``, as Vertex AI names the folder: one
  ``data-00000-of-00001.csv`` or, with a split (dataset_splits.py), ``training-``, ``validation-``
  and ``test-00000-of-00001.csv``. The operation's metadata names the folder
  (``gcsOutputDirectory``), its response the files (``exportedFiles``). Annotation filters and
  saved queries (data items again) are refused by name.
"""

from __future__ import annotations

from typing import Any

from provider.backends.local.store import now
from provider.emulator import wire
from provider.emulator.dataset_splits import SPLITS, split_rows
from provider.emulator.datasets import DatasetService, not_emulated, rows_of
from provider.emulator.errors import ApiError, FieldViolation, invalid
from provider.emulator.operations import typed
from provider.emulator.storage import folder_stamp

Json = dict[str, Any]
_ITEMS_ONLY = ("importSchemaUri", "dataItemLabels", "annotationLabels")
_EXPORT_ITEMS_ONLY = ("annotationsFilter", "savedQueryId", "annotationSchemaUri")


def _violation(field: str, description: str) -> ApiError:
    return invalid(f"List of found errors:\t1.Field: {field}; Message: {description}\t",
                   (FieldViolation(field, description),))


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def import_data(datasets: DatasetService, name: str, raw: bytes) -> Json:
    request = wire.parse("ImportDataRequest", raw)
    configs = request.get("importConfigs") or []
    if not configs:
        raise _violation("import_configs", "Required field is not set: the gs:// CSV files to add.")
    uris: list[str] = []
    for i, config in enumerate(configs):
        for field in _ITEMS_ONLY:
            if config.get(field):
                raise not_emulated(f"import_configs[{i}].{_snake(field)} (data items, which image, text and video "
                                   "datasets have)")
        given = (config.get("gcsSource") or {}).get("uris") or []
        if not given:
            raise _violation(f"import_configs[{i}].gcs_source.uris", "Required field is not set.")
        uris.extend(str(u) for u in given)
    with datasets.lock:
        dataset = datasets.get(name)
        source = (dataset["metadata"]["inputConfig"]).setdefault("gcsSource", {})
        known = source.get("uri") if isinstance(source.get("uri"), list) else [source["uri"]]
        merged = [*known, *(u for u in uris if u not in known)]
        updated = {**dataset, "metadata": {**dataset["metadata"],
                                           "inputConfig": {**dataset["metadata"]["inputConfig"],
                                                           "gcsSource": {"uri": merged}}}}
        rows_of(datasets.sources(updated))  # every file exists, and they share one header
        datasets.replace(name, {**updated, "updateTime": now()})
    return datasets.operations.finished(name, "ImportDataOperationMetadata", typed("ImportDataResponse", {}))


def export_data(datasets: DatasetService, name: str, raw: bytes) -> Json:
    request = wire.parse("ExportDataRequest", raw)
    config = request.get("exportConfig") or {}
    at = "export_config"
    for field in _EXPORT_ITEMS_ONLY:
        if config.get(field):
            raise not_emulated(f"{at}.{_snake(field)} (annotations of data items, which image, text and video "
                               "datasets have)")
    prefix = (config.get("gcsDestination") or {}).get("outputUriPrefix", "")
    if not prefix:
        raise _violation(f"{at}.gcs_destination.output_uri_prefix", "Required field is not set: the gs:// folder "
                                                                     "the files are written under.")
    dataset = datasets.get(name)
    header, rows = rows_of(datasets.sources(dataset))
    folder = f"{prefix.rstrip('/')}/export-data-{dataset.get('displayName', '')}-{folder_stamp()}"
    files = []
    if "fractionSplit" in config or "filterSplit" in config:
        parts = split_rows(config, header, rows, name.rsplit("/", 1)[-1], at)
        for split, part in zip(SPLITS, parts, strict=True):
            files.append(f"{folder}/{split}-00000-of-00001.csv")
            datasets.write(files[-1], header, part)
    else:
        files.append(f"{folder}/data-00000-of-00001.csv")
        datasets.write(files[-1], header, rows)
    return datasets.operations.finished(name, "ExportDataOperationMetadata",
                                        typed("ExportDataResponse", {"exportedFiles": files}),
                                        metadata={"gcsOutputDirectory": folder})
