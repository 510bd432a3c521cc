"""The console's experiments page in Debian's chromium: experiments the real SDK logged to the
emulator (``aiplatform.init(experiment=...)``, ``start_run``, ``log_params``, ``log_metrics``,
``log_time_series_metrics``), read through a vertex stack whose ``trainjobs:apiEndpoint`` is the
emulator: each run with its parameters and metrics, and a chart per time-series tag.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.console.conftest import LOCATION, PROJECT, ROOT, start_console, stop_console, write_stack

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def experiments_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import aiplatform
    from google.cloud.aiplatform import initializer
    from google.cloud.aiplatform.metadata import metadata

    from provider.emulator.server import Emulator

    tmp = tmp_path_factory.mktemp("experiments")
    root = tmp / "project"
    root.mkdir()
    emulator = Emulator(tmp / "emulator").start()
    proc = None
    try:
        aiplatform.init(project=PROJECT, location=LOCATION, api_endpoint=emulator.endpoint, api_transport="rest",
                        credentials=AnonymousCredentials())
        board = aiplatform.Tensorboard.create(display_name="curves")
        aiplatform.init(experiment="lr-sweep", experiment_tensorboard=board)
        for run, lr, acc, losses in (("fast", 0.1, 0.91, [0.8, 0.4, 0.2]), ("slow", 0.01, 0.75, [0.9, 0.7, 0.6])):
            aiplatform.start_run(run)
            aiplatform.log_params({"lr": lr, "optimizer": "adam"})
            aiplatform.log_metrics({"accuracy": acc})
            for step, loss in enumerate(losses):
                aiplatform.log_time_series_metrics({"loss": loss}, step=step)
            aiplatform.end_run()
        # A TensorBoard experiment of its own (as a job's uploaded logs make one): curves, no parameters.
        job_board = aiplatform.TensorboardExperiment.create("job-123", tensorboard_name=board.resource_name,
                                                            display_name="job-123")
        job_run = aiplatform.TensorboardRun.create("train", tensorboard_experiment_name=job_board.resource_name)
        job_run.create_tensorboard_time_series(display_name="accuracy")
        for step, acc in enumerate([0.1, 0.5]):
            job_run.write_tensorboard_scalar_data({"accuracy": acc}, step=step)
        write_stack(root, "emu", {"trainjobs:backend": "vertex", "trainjobs:team": "nlp", "gcp:project": PROJECT,
                                  "gcp:region": LOCATION, "trainjobs:specs": ["specs/emu/*.yaml"],
                                  "trainjobs:apiEndpoint": emulator.endpoint})
        env = {**os.environ, "TRAINJOBS_HOME": str(tmp / "home"), "NO_COLOR": "1", "PYTHONPATH": str(ROOT),
               "GOOGLE_APPLICATION_CREDENTIALS": str(tmp / "no-credentials.json")}
        proc, url = start_console(root, env, "--stack", "emu")
        yield url
    finally:
        metadata._experiment_tracker.__init__()  # type: ignore[misc]  # reset() keeps the global tensorboard
        initializer.global_config.__init__()  # type: ignore[misc]  # forget the endpoint for later tests
        if proc is not None:
            stop_console(proc)
        emulator.stop()


def test_experiments_page_shows_runs_params_metrics_and_curves(experiments_url: str, page: Any,
                                                                tmp_path: Path) -> None:
    page.goto(experiments_url + "/")
    page.click("nav >> text=Experiments")
    section = page.locator("section.experiment[data-experiment='lr-sweep']")
    section.wait_for()
    assert "stack emu" in section.locator("h2").inner_text()
    headers = section.locator("table.runs thead th").all_inner_texts()
    assert headers == ["Run", "State", "lr", "optimizer", "accuracy"]
    rows = {r.get_attribute("data-run"): r.locator("td").all_inner_texts()
            for r in section.locator("table.runs tbody tr").all()}
    assert rows == {"fast": ["fast", "COMPLETE", "0.1", "adam", "0.91"],
                    "slow": ["slow", "COMPLETE", "0.01", "adam", "0.75"]}
    chart = section.locator("svg.chart")
    assert chart.count() == 1 and chart.locator(".chart-title").text_content() == "loss"
    lines = {g.get_attribute("data-run"): g.locator("circle.curve-dot").count()
             for g in chart.locator("g.curve").all()}
    assert lines == {"fast": 3, "slow": 3}
    tips = chart.locator("g.curve[data-run='fast'] circle.curve-dot title").all_text_contents()
    assert tips == ["fast: loss = 0.8 at step 0", "fast: loss = 0.4 at step 1", "fast: loss = 0.2 at step 2"]
    box = chart.bounding_box()
    assert box is not None and box["width"] > 300  # drawn, not collapsed
    page.screenshot(path=str(tmp_path / "experiments.png"))
    assert (tmp_path / "experiments.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_tensorboard_experiment_of_its_own_shows_its_curves(experiments_url: str, page: Any) -> None:
    page.goto(experiments_url.rstrip("/") + "/experiments")
    names = page.locator("section.experiment").evaluate_all("els => els.map(e => e.dataset.experiment)")
    assert names == ["lr-sweep", "curves / job-123"], page.locator("main").inner_text()
    section = page.locator("section.experiment[data-experiment='curves / job-123']")
    assert section.locator("table.runs tbody tr").get_attribute("data-run") == "train"
    chart = section.locator("svg.chart")
    assert chart.locator(".chart-title").text_content() == "accuracy"
    tips = chart.locator("circle.curve-dot title").all_text_contents()
    assert tips == ["train: accuracy = 0.1 at step 0", "train: accuracy = 0.5 at step 1"]
