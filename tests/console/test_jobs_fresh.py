"""The console's jobs page reuses its listing of a long history only while the history is unchanged:
a job written or deleted after the listing was kept shows (or goes) on the next request, through HTTP."""

from __future__ import annotations

import os
import re
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.history import write_history

from .conftest import start_console, stop_console


@pytest.fixture()
def console(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    (tmp_path / "project").mkdir()
    env = {**os.environ, "TRAINJOBS_HOME": str(tmp_path / "home"), "TRAINJOBS_LOCAL_GPUS": "none", "NO_COLOR": "1",
           "PYTHONPATH": str(ROOT)}
    env.pop("TRAINJOBS_DEBUG", None)
    write_history(tmp_path / "home", 60)
    proc, url = start_console(tmp_path / "project", env)
    try:
        yield url.rstrip("/"), tmp_path / "home"
    finally:
        stop_console(proc)


def first_page(url: str) -> list[str]:
    with urllib.request.urlopen(url + "/", timeout=60) as response:
        assert response.status == 200
        return re.findall(r'<tr data-job="(\d+)"', response.read().decode())


def settle(jobs: Path) -> None:
    """Date the jobs folder a minute back, as a history last changed long ago: the console keeps its listing."""
    old = time.time() - 60
    os.utime(jobs, (old, old))


def test_a_job_written_or_deleted_after_a_kept_listing_shows_on_the_next_page(console: tuple[str, Path]) -> None:
    from provider.backends.local.store import JobStore

    url, home = console
    settle(home / "jobs")
    before = first_page(url)
    assert len(before) == 50
    newest = write_history(home, 1)[0]  # a new job: the folder's mtime moves on
    after = first_page(url)
    assert after[0] == newest and after[1:] == before[:49]
    settle(home / "jobs")
    first_page(url)  # listed again, and kept
    JobStore(home).delete(newest)
    assert first_page(url) == before
