"""python-aiplatform's dataset system test: a missing dataset is a 404, a tabular dataset is made
from a CSV in Cloud Storage and deleted; the image, time-series (BigQuery) and update tests ask for
dataset kinds the emulator does not serve, refused by name.

Source: googleapis/python-aiplatform@91cc8ce4f015771b5d8c43c8764ea9dc9abdb216
tests/system/aiplatform/test_dataset.py: test_get_nonexistent_dataset, test_create_tabular_dataset,
test_create_and_import_image_dataset, test_create_time_series_dataset, test_update_dataset (an
image dataset). The CSV at ``gs://ucaip-sample-resources/iris_1000.csv`` is written to the emulated
storage first. The tests that read Google's permanent datasets (get_existing, export_data*) and
the text and dataframe tests (skipped upstream, or BigQuery) are not carried.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.vertex.notebooks.conftest import LOCATION, PROJECT_ID, Served, upload_text

_TEST_TABULAR_CLASSIFICATION_GCS_SOURCE = "gs://ucaip-sample-resources/iris_1000.csv"
_TEST_FORECASTING_BQ_SOURCE = "bq://ucaip-sample-tests:ucaip_test_us_central1.2020_sales_train"
_TEST_IMAGE_OBJECT_DETECTION_GCS_SOURCE = (
    "gs://cloud-samples-data-us-central1/ai-platform-unified/datasets/images/isg_data.jsonl")
_TEST_IMAGE_OBJ_DET_SEGMENTATION_IMPORT_SCHEMA = (
    "gs://google-cloud-aiplatform/schema/dataset/ioformat/image_segmentation_io_format_1.0.0.yaml")


def _make_display_name(key: str) -> str:
    return f"temp_vertex_sdk_e2e_dataset_test-{key}-{uuid.uuid4()}"


def test_get_nonexistent_dataset(aiplatform: Any) -> None:
    from google.api_core import exceptions

    aiplatform.init(project=PROJECT_ID, location=LOCATION)
    with pytest.raises(exceptions.NotFound):
        aiplatform.ImageDataset(dataset_name="0")


def test_create_tabular_dataset(aiplatform: Any, served: Served) -> None:
    from google.cloud import storage

    storage.Client(project=PROJECT_ID).create_bucket("ucaip-sample-resources")
    upload_text(served, _TEST_TABULAR_CLASSIFICATION_GCS_SOURCE,
                "sepal_length,sepal_width,petal_length,petal_width,species\n5.1,3.5,1.4,0.2,setosa\n")
    aiplatform.init(project=PROJECT_ID, location=LOCATION)
    tabular_dataset = aiplatform.TabularDataset.create(
        display_name=_make_display_name(key="create_tabular_dataset"),
        gcs_source=[_TEST_TABULAR_CLASSIFICATION_GCS_SOURCE],
        create_request_timeout=None,
    )
    try:
        gapic_metadata = tabular_dataset.to_dict()["metadata"]
        gcs_source_uris = gapic_metadata["inputConfig"]["gcsSource"]["uri"]
        assert len(gcs_source_uris) == 1
        assert gcs_source_uris[0] == _TEST_TABULAR_CLASSIFICATION_GCS_SOURCE
        assert tabular_dataset.metadata_schema_uri == aiplatform.schema.dataset.metadata.tabular
        # the SDK reads the header from the emulated storage (a set: no order)
        assert sorted(tabular_dataset.column_names) == ["petal_length", "petal_width", "sepal_length",
                                                        "sepal_width", "species"]
    finally:
        tabular_dataset.delete()
    assert aiplatform.TabularDataset.list() == []


def test_other_dataset_kinds_are_refused_by_name(aiplatform: Any) -> None:
    from google.api_core import exceptions

    aiplatform.init(project=PROJECT_ID, location=LOCATION)
    # test_create_and_import_image_dataset
    with pytest.raises(exceptions.GoogleAPICallError, match=r"(?i)image") as image:
        aiplatform.ImageDataset.create(
            display_name=_make_display_name(key="create_image_dataset"),
            gcs_source=_TEST_IMAGE_OBJECT_DETECTION_GCS_SOURCE,
            import_schema_uri=_TEST_IMAGE_OBJ_DET_SEGMENTATION_IMPORT_SCHEMA,
            create_request_timeout=None,
        )
    assert image.value.code == 501
    # test_create_time_series_dataset
    with pytest.raises(exceptions.GoogleAPICallError, match=r"(?i)bigquery|time.?series") as series:
        aiplatform.TimeSeriesDataset.create(
            display_name=_make_display_name(key="create_time_series_dataset"),
            bq_source=[_TEST_FORECASTING_BQ_SOURCE],
            create_request_timeout=None,
        )
    assert series.value.code == 501
    # test_update_dataset: its ImageDataset.create() is refused the same way
    with pytest.raises(exceptions.GoogleAPICallError, match=r"(?i)image"):
        aiplatform.ImageDataset.create()
    assert aiplatform.ImageDataset.list() == [] and aiplatform.TimeSeriesDataset.list() == []
