"""TensorBoard's size, usage, time series export and blob data, through the real
google-cloud-aiplatform's TensorboardServiceClient over REST, and the SDK uploader's own way of
finding where blobs go (uploader_utils), against the emulator."""

from __future__ import annotations

from typing import Any

import pytest

from provider.emulator.server import Emulator
from provider.packaging.gcs import gcs_client
from tests.vertex.conftest import PARENT, PROJECT, Emulators

pytestmark = pytest.mark.slow


def _tensorboards(emulator: Emulator) -> Any:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1

    return aiplatform_v1.TensorboardServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                                  client_options={"api_endpoint": emulator.endpoint})


def _run(tb: Any) -> tuple[str, str]:
    from google.cloud import aiplatform_v1 as v1

    board = tb.create_tensorboard(parent=PARENT, tensorboard=v1.Tensorboard(display_name="board")).result(timeout=60)
    tb.create_tensorboard_experiment(parent=board.name, tensorboard_experiment_id="exp",
                                     tensorboard_experiment=v1.TensorboardExperiment())
    run = tb.create_tensorboard_run(parent=f"{board.name}/experiments/exp", tensorboard_run_id="run-1",
                                    tensorboard_run=v1.TensorboardRun(display_name="run-1"))
    return board.name, run.name


def test_export_time_series_with_filter_order_and_pages(emulator: Emulator) -> None:
    from google.api_core.exceptions import BadRequest
    from google.cloud import aiplatform_v1 as v1

    tb = _tensorboards(emulator)
    board, run = _run(tb)
    series = tb.create_tensorboard_time_series(parent=run, tensorboard_time_series=v1.TensorboardTimeSeries(
        display_name="loss", value_type="SCALAR"))
    tb.write_tensorboard_run_data(tensorboard_run=run, time_series_data=[{
        "tensorboard_time_series_id": series.name.rsplit("/", 1)[1], "value_type": "SCALAR",
        "values": [{"step": s, "scalar": {"value": 1.0 / (s + 1)}, "wall_time": {"seconds": 1700000000 + s}}
                   for s in range(12)]}])
    pages = tb.export_tensorboard_time_series_data(request={
        "tensorboard_time_series": series.name, "filter": "step >= 4", "order_by": "step desc", "page_size": 3})
    points = list(pages)
    assert [p.step for p in points] == list(range(11, 3, -1))  # every page, filtered and ordered
    assert points[-1].scalar.value == pytest.approx(0.2)
    by_time = list(tb.export_tensorboard_time_series_data(request={
        "tensorboard_time_series": series.name, "order_by": "wall_time"}))
    assert [p.step for p in by_time] == list(range(12))
    with pytest.raises(BadRequest, match="ordered by step or wall_time"):
        list(tb.export_tensorboard_time_series_data(request={"tensorboard_time_series": series.name,
                                                             "order_by": "value"}))
    with pytest.raises(BadRequest, match="no blobs"):
        list(tb.read_tensorboard_blob_data(request={"time_series": series.name, "blob_ids": ["x"]}))

    size = tb.read_tensorboard_size(tensorboard=board).storage_size_byte
    assert size > 0
    usage = tb.read_tensorboard_usage(tensorboard=board)  # two exports read its data (one of three pages)
    assert [u.view_count for m in usage.monthly_usage_data.values() for u in m.user_usage_data] == [2]


def test_blob_sequences_as_the_uploader_writes_them(emulators: Emulators, monkeypatch: pytest.MonkeyPatch) -> None:
    from google.api_core.exceptions import NotFound
    from google.cloud import aiplatform_v1 as v1
    from google.cloud.aiplatform.tensorboard import uploader_utils

    emulator = emulators.start()
    tb = _tensorboards(emulator)
    board, run = _run(tb)
    series = tb.create_tensorboard_time_series(parent=run, tensorboard_time_series=v1.TensorboardTimeSeries(
        display_name="images", value_type="BLOB_SEQUENCE", plugin_name="images"))
    # What the uploader does: find the bucket and folder from the tensorboard, put each blob there
    # under tensorboard-{TB}/{EXP}/{RUN}/{SERIES}/{ID}, then write the blob ids as a point.
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", emulator.endpoint)
    bucket, folder = uploader_utils.get_blob_storage_bucket_and_folder(tb, board, PROJECT)
    assert bucket.name == "trainjobs-tensorboards"
    parts = series.name.split("/")
    prefix = f"{folder}tensorboard-{parts[5]}/{parts[7]}/{parts[9]}/{parts[11]}"
    storage = gcs_client(PROJECT, emulator.endpoint).bucket(bucket.name)
    for blob_id, data in (("b1", b"\x89PNG one"), ("b2", b"\x89PNG two")):
        storage.blob(f"{prefix}/{blob_id}").upload_from_string(data)
    tb.write_tensorboard_run_data(tensorboard_run=run, time_series_data=[{
        "tensorboard_time_series_id": parts[11], "value_type": "BLOB_SEQUENCE",
        "values": [{"step": 1, "blobs": {"values": [{"id": "b1"}, {"id": "b2"}]}},
                   {"step": 2, "blobs": {"values": [{"id": "inline", "data": b"carried"}]}}]}])
    answers = list(tb.read_tensorboard_blob_data(request={"time_series": series.name,
                                                          "blob_ids": ["b2", "b1", "inline"]}))
    assert [(b.id, b.data) for a in answers for b in a.blobs] == [
        ("b2", b"\x89PNG two"), ("b1", b"\x89PNG one"), ("inline", b"carried")]
    with pytest.raises(NotFound, match=r"'gone'.*no write carried its data"):
        list(tb.read_tensorboard_blob_data(request={"time_series": series.name, "blob_ids": ["gone"]}))
    before = tb.read_tensorboard_size(tensorboard=board).storage_size_byte
    assert before >= len(b"\x89PNG one") * 2

    emulators.stop(emulator)  # the points and blobs survive a restart
    again = _tensorboards(emulators.start())
    assert again.read_tensorboard_size(tensorboard=board).storage_size_byte == before
    kept = list(again.read_tensorboard_blob_data(request={"time_series": series.name, "blob_ids": ["b1"]}))
    assert kept[0].blobs[0].data == b"\x89PNG one"
