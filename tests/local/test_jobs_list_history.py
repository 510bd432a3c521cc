"""``trainjobs jobs list`` over a history longer than a page: the newest N first, --all reaches every job once."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import no_traceback, run_cli
from tests.history import write_history


def listed(home: Path, *args: str) -> list[dict[str, str]]:
    proc = run_cli("jobs", "list", "--format", "json", *args, env={"TRAINJOBS_HOME": str(home)})
    assert proc.returncode == 0, proc.stderr
    jobs: list[dict[str, str]] = json.loads(proc.stdout)
    return jobs


def test_the_first_page_is_the_newest_and_all_reaches_every_job_once(tmp_path: Path) -> None:
    newest_first = write_history(tmp_path / "home", 130)
    assert [j["id"] for j in listed(tmp_path / "home")] == newest_first[:50]  # the default page
    assert [j["id"] for j in listed(tmp_path / "home", "--limit", "7")] == newest_first[:7]
    assert [j["id"] for j in listed(tmp_path / "home", "--all")] == newest_first
    table = run_cli("jobs", "list", "--limit", "3", env={"TRAINJOBS_HOME": str(tmp_path / "home")})
    assert table.returncode == 0 and "job129" in table.stdout and "job126" not in table.stdout
    assert "(the newest 3 shown: --limit N for more, --all for every job)" in table.stdout


def test_a_bad_limit_is_one_clear_message(tmp_path: Path) -> None:
    env = {"TRAINJOBS_HOME": str(tmp_path / "home")}
    zero = run_cli("jobs", "list", "--limit", "0", env=env)
    assert zero.returncode == 2 and "--limit 0: a number of jobs, 1 or more (or --all for every job)" in zero.stderr
    no_traceback(zero)
    both = run_cli("jobs", "list", "--limit", "5", "--all", env=env)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr
    no_traceback(both)
