"""The console's jobs list over a history longer than a page, through HTTP: page 1 is the newest 50,
the Older links reach every job exactly once, bad page numbers are one clear page."""

from __future__ import annotations

import os
import re
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from tests.conftest import ROOT
from tests.history import write_history

from .conftest import start_console, stop_console

HISTORY = 120  # pages of 50: 50, 50, 20


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str]]]:
    tmp = tmp_path_factory.mktemp("paging")
    (tmp / "project").mkdir()
    newest_first = write_history(tmp / "home", HISTORY)
    env = {**os.environ, "TRAINJOBS_HOME": str(tmp / "home"), "TRAINJOBS_LOCAL_GPUS": "none", "NO_COLOR": "1",
           "PYTHONPATH": str(ROOT)}
    env.pop("TRAINJOBS_DEBUG", None)
    proc, url = start_console(tmp / "project", env)
    try:
        yield url.rstrip("/"), newest_first
    finally:
        stop_console(proc)


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def job_ids(html: str) -> list[str]:
    return re.findall(r'<tr data-job="(\d+)"', html)


def test_pages_start_at_the_newest_and_reach_every_job_once(console: tuple[str, list[str]]) -> None:
    url, newest_first = console
    status, html = get(url + "/")
    assert status == 200
    assert job_ids(html) == newest_first[:50]
    assert 'rel="prev"' not in html
    seen: list[str] = []
    pages = 0
    path = "/"
    while True:
        status, html = get(url + path)
        assert status == 200, html
        seen += job_ids(html)
        pages += 1
        older = re.search(r'<a rel="next" href="([^"]+)">Older</a>', html)
        if older is None:
            break
        path = older.group(1).replace("&amp;", "&")
    assert pages == 3 and seen == newest_first  # each job exactly once, newest first
    status, fragment = get(url + "/fragments/jobs?page=2")  # the live refresh keeps the page
    assert status == 200 and job_ids(fragment) == newest_first[50:100]
    assert 'rel="prev"' in fragment and 'rel="next"' in fragment


def test_a_filter_pages_over_the_matching_jobs(console: tuple[str, list[str]]) -> None:
    url, newest_first = console
    status, html = get(url + "/?q=job11&page=1")  # job11 and job110..job119
    assert status == 200
    assert job_ids(html) == [i for i in newest_first if i in set(newest_first[:10]) | {newest_first[-12]}]


@pytest.mark.parametrize("page", ["0", "-1", "two"])
def test_a_bad_page_number_is_one_clear_page(console: tuple[str, list[str]], page: str) -> None:
    url, _ = console
    status, html = get(f"{url}/?page={page}")
    assert status == 400
    assert "is not a page number" in html and "page=1 for the newest jobs" in html
    assert "Traceback" not in html
