"""``tensorboards:readUsage`` (provider/emulator/tensorboard_reads.py): each read of a TensorBoard's
data is a view by the user the emulator runs as, in the month it was made; through the real gapic
TensorboardServiceClient over REST, across a restart."""

from __future__ import annotations

import getpass
import time
from typing import Any

import pytest

from provider.emulator.server import Emulator
from tests.vertex.conftest import PARENT, Emulators

pytestmark = pytest.mark.slow


def _client(emulator: Emulator) -> Any:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform_v1

    return aiplatform_v1.TensorboardServiceClient(transport="rest", credentials=AnonymousCredentials(),
                                                  client_options={"api_endpoint": emulator.endpoint})


def _usage(tb: Any, board: str) -> dict[str, list[tuple[str, int]]]:
    answer = tb.read_tensorboard_usage(tensorboard=board)
    return {month: [(u.username, u.view_count) for u in data.user_usage_data]
            for month, data in answer.monthly_usage_data.items()}


def test_each_read_of_a_tensorboards_data_is_a_view(emulators: Emulators) -> None:
    from google.api_core.exceptions import NotFound
    from google.cloud import aiplatform_v1 as v1

    emulator = emulators.start()
    tb = _client(emulator)
    board = tb.create_tensorboard(parent=PARENT, tensorboard=v1.Tensorboard(display_name="b")).result(timeout=60).name
    other = tb.create_tensorboard(parent=PARENT, tensorboard=v1.Tensorboard(display_name="o")).result(timeout=60).name
    tb.create_tensorboard_experiment(parent=board, tensorboard_experiment_id="exp",
                                     tensorboard_experiment=v1.TensorboardExperiment())
    run = tb.create_tensorboard_run(parent=f"{board}/experiments/exp", tensorboard_run_id="run-1",
                                    tensorboard_run=v1.TensorboardRun(display_name="run-1")).name
    series = tb.create_tensorboard_time_series(parent=run, tensorboard_time_series=v1.TensorboardTimeSeries(
        display_name="loss", value_type="SCALAR")).name
    tb.write_tensorboard_run_data(tensorboard_run=run, time_series_data=[{
        "tensorboard_time_series_id": series.rsplit("/", 1)[1], "value_type": "SCALAR",
        "values": [{"step": s, "scalar": {"value": 1.0 / (s + 1)}} for s in range(5)]}])
    assert _usage(tb, board) == {}  # made and written: not viewed yet

    month = time.strftime("%Y%m", time.gmtime())
    tb.read_tensorboard_time_series_data(tensorboard_time_series=series)
    tb.read_tensorboard_time_series_data(tensorboard_time_series=series)
    tb.batch_read_tensorboard_time_series_data(request={"tensorboard": board, "time_series": [series]})
    assert len(list(tb.export_tensorboard_time_series_data(request={"tensorboard_time_series": series,
                                                                   "page_size": 2}))) == 5  # 3 pages, 1 read
    with pytest.raises(NotFound):  # a read that fails is no view
        tb.read_tensorboard_time_series_data(tensorboard_time_series=f"{run}/timeSeries/404")
    months = {month, time.strftime("%Y%m", time.gmtime())}  # one, unless the test ran across a month's end
    usage = _usage(tb, board)
    assert set(usage) <= months and sum(n for users in usage.values() for _, n in users) == 4, usage
    assert {user for users in usage.values() for user, _ in users} == {getpass.getuser()}
    assert _usage(tb, other) == {}  # each tensorboard counts its own

    emulators.stop(emulator)  # the counts are kept with the tensorboard
    again = _client(emulators.start())
    assert _usage(again, board) == usage
