"""What the emulator follows without a read (provider/emulator/run_watch.py) is kept in its state dir
(provider/emulator/followed.py), and each followed job is read less often the longer it runs.

The restart test serves real ``trainjobs emulator`` processes (test_emulator_run_watch.Served) and
reads the TensorBoard only, through the real google-cloud-aiplatform, never the job; the waits
poll with generous deadlines.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from provider.emulator import run_watch
from provider.emulator.server import Emulator
from tests.vertex.conftest import CURVES, PARENT, TRACKED_ACCOUNT, Emulators
from tests.vertex.test_emulator_run_watch import Served, _init, _job, _package, _until, sdk, served

__all__ = ["sdk", "served"]  # the fixtures, used by name


@pytest.mark.slow
def test_a_job_that_logs_to_a_tensorboard_only_is_followed_across_a_restart(served: Served, sdk: Any,
                                                                           tmp_path: Path) -> None:
    """CustomJob.submit(tensorboard=...) with no experiment: the emulator stops while the job runs,
    the job writes its logs and ends with no emulator up, and the next emulator uploads them at start,
    seen through the TensorBoard's runs and time series alone."""
    from google.api_core.exceptions import NotFound

    pytest.importorskip("tensorboard", reason="reading event files needs the tensorboard extra")
    endpoint = served.start()
    _init(sdk, endpoint, "boards")
    board = sdk.Tensorboard.create(display_name="board")
    gate = tmp_path / "gate"  # the trainer writes its logs, and ends, once this exists
    job = _job(sdk, "gated", _package(endpoint, CURVES, "curves"), "curves.task", ["--wait-for", str(gate)])
    job.submit(tensorboard=board.resource_name, service_account=TRACKED_ACCOUNT)
    job_id = job.resource_name.rsplit("/", 1)[1]
    local = served.local()
    _until(lambda: local.get(job_id).state.name, lambda s: s == "RUNNING", "the local job")  # no emulator read
    served.stop()
    gate.touch()
    _until(lambda: local.get(job_id).state, lambda s: s.terminal, "the local job")  # its files; no emulator to ask
    assert local.get(job_id).state.name == "SUCCEEDED"
    endpoint = served.start()
    _init(sdk, endpoint, "boards")
    experiment = f"{board.resource_name}/experiments/{job_id}"

    def curves() -> list[tuple[str, str, int]]:  # (run, tag, points) of what is uploaded
        try:
            return sorted((run.display_name, series.display_name, len(run.read_time_series_data()[series.display_name]
                                                                       .values))
                          for run in sdk.TensorboardRun.list(tensorboard_experiment_name=experiment)
                          for series in sdk.TensorboardTimeSeries.list(tensorboard_run_name=run.resource_name))
        except NotFound:  # not uploaded yet
            return []

    expected = [("eval", "loss", 3), ("train", "accuracy", 3), ("train", "loss", 3)]
    assert _until(curves, lambda found: found == expected, "the job's curves") == expected, served.errors()
    # Once uploaded, the job is no longer followed: nothing is left in the state dir for it.
    _until(lambda: sorted((served.state / "followed").glob("*.json")), lambda left: not left, "the followed files")


def test_a_followed_job_is_read_less_often_the_longer_it_runs_up_to_a_bound(emulator: Emulator) -> None:
    """Each read of a job followed (one still being created here, so it stays followed) waits GROWTH times
    longer than the last, never more than LONGEST: a sweep before a job is due does not read it."""
    watch = emulator.watch
    watch.stop()  # the sweeps below, at chosen times, are the only reads
    name = f"{PARENT}/customJobs/4321"  # no such job (yet): followed for run_watch.CREATING seconds
    watch.follow(name)
    assert len(list((emulator.state_dir / "followed").glob("*.json"))) == 1
    now, waits = time.monotonic(), []
    for _ in range(12):
        wait = watch.wait(name)
        assert wait is not None
        watch.sweep(now + wait / 2)  # not due yet: not read, so its wait is the same
        assert watch.wait(name) == wait
        now += wait
        watch.sweep(now)  # due: read
        waits.append(watch.wait(name))
    assert waits[:3] == [run_watch.EVERY * run_watch.GROWTH, run_watch.EVERY * run_watch.GROWTH ** 2,
                         run_watch.EVERY * run_watch.GROWTH ** 3]
    assert waits[-1] == run_watch.LONGEST and max(w or 0 for w in waits) == run_watch.LONGEST
    assert now - time.monotonic() < run_watch.CREATING  # still "being created" at each read, so still followed
    assert name in watch.followed()


def test_a_restarted_emulator_follows_what_the_last_one_followed(emulators: Emulators) -> None:
    """The jobs followed are kept in the state dir: the next emulator follows them, and forgets a job
    that never came to be once its CREATING time has passed since it was first followed."""
    first = emulators.start()
    name = f"{PARENT}/customJobs/5678"
    first.watch.follow(name)
    emulators.stop(first)
    second = emulators.start()
    assert name in second.watch.followed()
    second.watch.stop()
    second.watch.sweep(time.monotonic() + run_watch.CREATING + 1)  # never stored: gone
    assert name not in second.watch.followed()
    assert not list((second.state_dir / "followed").glob("*.json"))
