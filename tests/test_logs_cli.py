"""``trainjobs logs`` as a user runs it, on real local jobs: times, order, sources, --tail, --since,
--replica, and --follow's exit code (the job's outcome, as ``run`` gives it)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT, no_traceback, run_cli
from .local.conftest import local_home, probe_spec

LINE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z) \[([\w/-]+)\] (.*)$")


@pytest.fixture
def home(tmp_path: Path, env_cache: Path) -> Iterator[dict[str, str]]:
    yield from local_home(tmp_path, env_cache)


def _spec(tmp_path: Path, name: str, **kw: Any) -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(json.dumps(probe_spec(name, **kw)))  # JSON is YAML
    return str(path)


def _job_id(home: dict[str, str], name: str) -> str:
    return str(json.loads(run_cli("status", name, "--format", "json", env=home).stdout)["id"])


def test_lines_in_time_order_with_times_setup_apart(home: dict[str, str], tmp_path: Path) -> None:
    fresh = {**home, "TRAINJOBS_ENV_CACHE": str(tmp_path / "envs")}  # an environment built for this job: pip runs
    # The chief ends last (--chief-last), so the worker has written its lines however loaded the machine is.
    args = ["--steps", "3", "--dump", str(tmp_path / "dump"), "--chief-last", "2"]
    proc = run_cli("run", _spec(tmp_path, "logs_order", workers=1, args=args), env=fresh, timeout=400)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    full = run_cli("logs", "logs_order", env=home)
    no_traceback(full)
    assert full.returncode == 0, full.stderr
    parsed = [LINE.match(line) for line in full.stdout.splitlines()]
    assert parsed and all(parsed), full.stdout
    rows = [(m.group(1), m.group(2), m.group(3)) for m in parsed if m]
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)  # RFC 3339 in UTC sorts as text
    names = [r[1] for r in rows]
    assert {"setup", "workerpool0-0", "workerpool1-0"} <= set(names)
    assert max(i for i, n in enumerate(names) if n == "setup") < names.index("workerpool0-0")  # pip came first
    assert ("workerpool0-0", "workerpool0-0: done") in [(r[1], r[2]) for r in rows]

    trainer = run_cli("logs", "logs_order", "--source", "trainer", env=home).stdout.splitlines()
    assert trainer == [line for line in full.stdout.splitlines() if "] " in line and "[setup]" not in line]
    setup = run_cli("logs", "logs_order", "--source", "setup", env=home).stdout.splitlines()
    assert setup and all("[setup] " in line for line in setup)
    assert run_cli("logs", "logs_order", "--tail", "3", env=home).stdout.splitlines() == full.stdout.splitlines()[-3:]
    assert run_cli("logs", "logs_order", "--tail", "0", env=home).stdout == ""
    tail_trainer = run_cli("logs", "logs_order", "--tail", "2", "--source", "trainer", env=home).stdout.splitlines()
    assert tail_trainer == trainer[-2:]

    as_json = [json.loads(line) for line in run_cli("logs", "logs_order", "--format", "json", env=home).stdout.splitlines()]
    assert [(o["timestamp"], o["replica"], o["message"]) for o in as_json] == rows
    assert {o["source"] for o in as_json} == {"setup", "trainer"}
    assert all(o["source"] == ("setup" if o["replica"] == "setup" else "trainer") for o in as_json)

    first_trainer = next(r[0] for r in rows if r[1] != "setup")
    since = run_cli("logs", "logs_order", "--since", first_trainer, env=home).stdout.splitlines()
    assert since == [line for line, r in zip(full.stdout.splitlines(), rows) if r[0] >= first_trainer]
    assert "[setup]" not in "\n".join(since)
    assert run_cli("logs", "logs_order", "--since", "1h30m", env=home).stdout == full.stdout
    assert run_cli("logs", "logs_order", "--since", "2999-01-01T00:00:00Z", env=home).stdout == ""
    bare = run_cli("logs", "logs_order", "--no-timestamps", "--replica", "workerpool1-0", env=home).stdout.splitlines()
    assert bare and all(line.startswith("[workerpool1-0] ") for line in bare)

    # A record written before times were kept: no .times, no .stamped. It still reads, each file's lines together.
    logs = Path(home["TRAINJOBS_HOME"]) / "jobs" / _job_id(home, "logs_order") / "logs"
    for kept in [*logs.rglob("*.times"), logs / ".stamped"]:
        kept.unlink()
    old = run_cli("logs", "logs_order", "--format", "json", env=home)
    assert old.returncode == 0, old.stderr
    old_rows = [json.loads(line) for line in old.stdout.splitlines()]
    assert sorted(o["message"] for o in old_rows) == sorted(o["message"] for o in as_json)
    assert all(o["approximate"] is True for o in old_rows)


def test_usage_errors_of_logs(home: dict[str, str], tmp_path: Path) -> None:
    proc = run_cli("run", _spec(tmp_path, "logs_usage", workers=1), env=home, timeout=400)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    bad = run_cli("logs", "logs_usage", "--replica", "workerpool7-0", env=home)
    no_traceback(bad)
    assert bad.returncode == 2 and bad.stdout == ""
    assert "--replica 'workerpool7-0': job" in bad.stderr
    assert "its replicas: workerpool0-0, workerpool1-0" in bad.stderr
    setup = run_cli("logs", "logs_usage", "--replica", "setup", env=home)
    assert setup.returncode == 2 and "--source setup" in setup.stderr
    since = run_cli("logs", "logs_usage", "--since", "yesterday", env=home)
    assert since.returncode == 2 and "allowed: a duration back from now (90s, 10m, 1h30m, 2d)" in since.stderr
    tail = run_cli("logs", "logs_usage", "--tail", "-1", env=home)
    assert tail.returncode == 2 and "--tail -1: a number of lines, 0 or more" in tail.stderr
    missing = run_cli("logs", "no_such_job", env=home)
    no_traceback(missing)
    assert missing.returncode == 4, missing.stderr


def test_follow_exits_with_the_jobs_outcome(home: dict[str, str], tmp_path: Path) -> None:
    ok = run_cli("logs", "logs_ok", "--follow", env=home)
    assert ok.returncode == 4  # no such job yet
    run_ok = run_cli("run", _spec(tmp_path, "logs_ok"), env=home, timeout=400)
    assert run_ok.returncode == 0, run_ok.stderr
    ok = run_cli("logs", "logs_ok", "--follow", env=home)
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1].endswith("): SUCCEEDED"), ok.stdout

    failing = _spec(tmp_path, "logs_fail", args=["--steps", "3", "--fail-replica", "workerpool0-0", "--fail-step", "1"])
    run_fail = run_cli("run", failing, env=home, timeout=400)
    assert run_fail.returncode == 6, run_fail.stdout + run_fail.stderr
    failed = run_cli("logs", "logs_fail", "--follow", "--format", "json", env=home)
    assert failed.returncode == 6
    *lines, final = failed.stdout.splitlines()
    assert json.loads(final)["state"] == "FAILED"
    assert any(json.loads(line)["message"] == "workerpool0-0: failing on purpose at step 1" for line in lines)


def test_follow_of_a_job_cancelled_meanwhile_exits_7(home: dict[str, str], tmp_path: Path) -> None:
    spec = _spec(tmp_path, "logs_cancel", args=["--steps", "100000", "--step-seconds", "0.05"])
    started = run_cli("run", spec, "--detach", env=home, timeout=400)
    assert started.returncode == 0, started.stderr
    job_id = started.stdout.strip()
    out = tmp_path / "follow.out"
    with open(out, "w") as sink:  # a file, not a pipe: nothing can block the follower
        follower = subprocess.Popen([sys.executable, "-m", "provider", "logs", job_id, "--follow"], cwd=ROOT,
                                    env={**os.environ, **home, "NO_COLOR": "1"}, stdout=sink,
                                    stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 300
        while "workerpool0-0: step 2" not in out.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "workerpool0-0: step 2" in out.read_text(), out.read_text()
        assert follower.poll() is None
        assert run_cli("cancel", job_id, env=home).returncode == 0
        assert follower.wait(timeout=120) == 7, out.read_text()
    finally:
        if follower.poll() is None:
            follower.kill()
            follower.wait()
    lines = out.read_text().splitlines()
    assert lines[-1].startswith(f"logs_cancel ({job_id}): CANCELLED"), lines[-3:]
    steps = [int(line.rsplit(" ", 1)[1]) for line in lines if "workerpool0-0: step " in line]
    assert steps == list(range(len(steps)))  # every line once, in order, while it was written


def test_help_names_every_option() -> None:
    text = run_cli("logs", "--help").stdout
    for option in ("--follow", "--replica", "--source", "--tail", "--since", "--timestamps", "--format", "--stack"):
        assert option in text
