"""provider.document.python_clock: the clock a Python launcher reads is the time of the conversion, as a script's
``$(date +FORMAT)`` is; each value of it that reaches the job is named in a note.

The oracle: each snippet is run by Python itself (``exec``) with ``datetime`` and ``time`` whose clock is frozen at
the instant the reader's clock (provider.core.clock.now) is frozen at, and every name's value must equal the
reader's. The snippets are the forms real notebooks write (vertex-ai-samples: 236 ``datetime.now().strftime``, 66
``datetime.datetime.now().strftime``, 51 ``time.strftime``).
"""

from __future__ import annotations

import datetime
import sys
import time
import types
from pathlib import Path

import pytest

from provider.core import clock
from provider.document.python_values import Unknown, scope_after

FROZEN = 1795809195.25  # 2026-11-27 19:53:15.25 UTC


class _FrozenDatetime(datetime.datetime):
    """datetime with Python's own behaviour, its clock frozen at FROZEN."""

    @classmethod
    def now(cls, tz: datetime.tzinfo | None = None) -> _FrozenDatetime:  # type: ignore[override]
        return cls.fromtimestamp(FROZEN, tz)

    @classmethod
    def utcnow(cls) -> _FrozenDatetime:  # type: ignore[override]
        return cls.fromtimestamp(FROZEN, datetime.UTC).replace(tzinfo=None)

    @classmethod
    def today(cls) -> _FrozenDatetime:  # type: ignore[override]
        return cls.fromtimestamp(FROZEN)


class _FrozenDate(datetime.date):
    @classmethod
    def today(cls) -> _FrozenDate:  # type: ignore[override]
        return cls.fromtimestamp(FROZEN)


def _frozen_modules() -> dict[str, types.ModuleType]:
    frozen_datetime = types.ModuleType("datetime")
    frozen_datetime.__dict__.update({k: v for k, v in vars(datetime).items() if not k.startswith("__")})
    frozen_datetime.datetime, frozen_datetime.date = _FrozenDatetime, _FrozenDate  # type: ignore[attr-defined]
    frozen_time = types.ModuleType("time")
    frozen_time.__dict__.update({k: v for k, v in vars(time).items() if not k.startswith("__")})
    frozen_time.time = lambda: FROZEN  # type: ignore[attr-defined]
    frozen_time.time_ns = lambda: int(FROZEN * 1e9)  # type: ignore[attr-defined]
    frozen_time.strftime = lambda f, t=None: time.strftime(f, time.localtime(FROZEN) if t is None else t)  # type: ignore[attr-defined]
    frozen_time.localtime = lambda s=None: time.localtime(FROZEN if s is None else s)  # type: ignore[attr-defined]
    frozen_time.gmtime = lambda s=None: time.gmtime(FROZEN if s is None else s)  # type: ignore[attr-defined]
    return {"datetime": frozen_datetime, "time": frozen_time}


@pytest.fixture(params=["UTC", "America/Los_Angeles"])
def frozen(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader's clock and this process's time zone, set for the test and put back after it."""
    monkeypatch.setattr(clock, "now", lambda: FROZEN)
    monkeypatch.setenv("TZ", request.param)
    time.tzset()
    request.addfinalizer(time.tzset)  # after monkeypatch puts TZ back (finalizers run last-in first-out)


ORACLE = [
    'from datetime import datetime\nTIMESTAMP = datetime.now().strftime("%Y%m%d%H%M%S")\nJOB = "job_" + TIMESTAMP',
    'import datetime\nTIMESTAMP = datetime.datetime.now().strftime("_%Y%m%d_%H%M%S")',
    'import datetime as dt\nS = dt.datetime.now().strftime("%Y-%m-%dT%H:%M:%S")\nD = dt.date.today().isoformat()',
    'import time\nT = time.strftime("%Y%m%d-%H%M%S")\nU = time.strftime("%Y%m%d-%H%M%S", time.gmtime())\nN = int(time.time())',
    'from time import strftime, gmtime\nT = strftime("%Y-%m-%d %H:%M", gmtime())\nL = strftime("%H%M%S")',
    'from datetime import datetime, timezone\nS = datetime.now(timezone.utc).strftime("%Y%m%d%H%M%S%f")\n'
    'U = datetime.utcnow().strftime("%Y%m%d")\nI = datetime.now(tz=timezone.utc).replace(microsecond=0).isoformat()',
    'from datetime import datetime\nnow = datetime.now()\nNAME = f"run-{now:%Y%m%d-%H%M}"\nY = now.year\n'
    'M = f"{now.month:02d}"\nT = int(now.timestamp())',
    'from datetime import datetime, timedelta\nE = (datetime.now() + timedelta(days=1)).strftime("%Y-%m-%d")\n'
    'F = datetime(2021, 1, 1).strftime("%b %d %Y")\nG = datetime.fromisoformat("2024-01-01 11:30:20").isoformat()',
    'import time\nN = str(time.time_ns())\nS = "%d" % time.time()\nB = time.strftime("%a %b %d")',
]


@pytest.mark.parametrize("code", ORACLE)
def test_agrees_with_python_at_the_same_instant(code: str, frozen: None, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, module in _frozen_modules().items():
        monkeypatch.setitem(sys.modules, name, module)
    namespace: dict[str, object] = {"__name__": "__main__"}
    exec(compile(code, "<snippet>", "exec"), namespace)
    monkeypatch.undo()  # the real modules back before the reader runs (it never imports the code's)
    monkeypatch.setattr(clock, "now", lambda: FROZEN)
    expected = {k: v for k, v in namespace.items() if not k.startswith("__") and not isinstance(v, (type, types.ModuleType))
                and not callable(v)}
    scope = scope_after([("cell 1", code)])
    got = {name: scope.get(name) for name in expected}
    assert not [v for v in got.values() if isinstance(v, Unknown)], got
    assert got == expected


def test_a_value_read_only_where_the_clock_is_read() -> None:
    """What is still Unknown, and why: a random value, a time zone not given as a value, a call not read."""
    def why(code: str, name: str) -> str:
        value = scope_after([("cell 1", code)]).get(name)
        assert isinstance(value, Unknown), value
        return value.why

    assert "a random value" in why("import uuid\nU = str(uuid.uuid4())[:8]", "U")
    assert "the time the code runs" in why("import time\nT = time.perf_counter()", "T")
    assert "pytz.utc, an attribute trainjobs does not read" in why(
        "import pytz\nfrom datetime import datetime\nT = datetime.now(pytz.utc).strftime('%Y')", "T")
    assert "a call to .weekday() of datetime" in why("from datetime import datetime\nT = datetime.now().weekday()", "T")


def _convert(tmp_path: Path, name: str, text: str, *extra: str) -> tuple[int, str, str]:
    import subprocess

    (tmp_path / name).write_text(text)
    env = {"TZ": "UTC", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run([sys.executable, "-m", "provider", "convert", name, *extra], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


SCRIPT = '''from datetime import datetime
import time
from google.cloud import aiplatform

TIMESTAMP = datetime.now().strftime("%Y%m%d%H%M%S")
START = time.time()
aiplatform.init(project="p", location="us-central1", staging_bucket="gs://b")
job = aiplatform.CustomJob(
    display_name=f"train-{TIMESTAMP}",
    worker_pool_specs=[{"machine_spec": {"machine_type": "n1-standard-4"}, "replica_count": 1,
                        "container_spec": {"image_uri": "gcr.io/p/t:latest"}}],
    base_output_dir=f"gs://b/out/{int(time.time())}",
)
job.run()
'''


def test_a_script_named_after_the_time_it_runs_converts_with_notes(tmp_path: Path) -> None:
    import yaml

    before = int(time.time())
    rc, out, err = _convert(tmp_path, "launch.py", SCRIPT)
    after = int(time.time())
    assert rc == 0, err
    spec = yaml.safe_load(out)
    display = spec["metadata"]["displayName"]
    stamp = display.removeprefix("train-")
    assert time.strftime("%Y%m%d%H%M%S", time.gmtime(before)) <= stamp <= time.strftime("%Y%m%d%H%M%S",
                                                                                          time.gmtime(after))
    seconds = int(spec["spec"]["baseOutputDirectory"].rsplit("/", 1)[1])
    assert before <= seconds <= after
    notes = [line for line in out.splitlines() if line.startswith("# note:")]
    assert f"# note: datetime.now().strftime('%Y%m%d%H%M%S') at launch.py:5: the time the code runs, written as " \
           f"'{stamp}', the time of the conversion" in notes
    # START holds the same second as the output folder: both places are named, the one written first
    assert f"# note: time.time() at launch.py:6; time.time() at launch.py:12: the time the code runs, written as " \
           f"'{seconds}', the time of the conversion" in notes


def test_a_value_of_the_clock_that_is_not_written_gets_no_note(tmp_path: Path) -> None:
    text = SCRIPT.replace('display_name=f"train-{TIMESTAMP}"', 'display_name="train"').replace(
        "/{int(time.time())}", "")
    rc, out, err = _convert(tmp_path, "launch.py", text)
    assert rc == 0, err
    assert "the time the code runs" not in out


def test_a_datetime_itself_is_no_field_value(tmp_path: Path) -> None:
    text = SCRIPT.replace('display_name=f"train-{TIMESTAMP}"', "display_name=datetime.now()")
    rc, _out, err = _convert(tmp_path, "launch.py", text)
    assert rc == 1 and "launch.py:9:18:" in err and "display_name is a datetime; allowed: a str" in err, err


def test_a_notebook_gcloud_line_named_after_the_time(tmp_path: Path) -> None:
    import json

    import yaml

    cells = ["from datetime import datetime\nTIMESTAMP = datetime.now().strftime('%Y%m%d%H%M%S')",
             "!gcloud ai custom-jobs create --region=us-central1 --display-name=job-{TIMESTAMP} "
             "--worker-pool-spec=machine-type=n1-standard-4,replica-count=1,container-image-uri=gcr.io/p/t:latest"]
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "source": c, "outputs": [], "execution_count": None}
                          for c in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    rc, out, err = _convert(tmp_path, "nb.ipynb", json.dumps(notebook))
    assert rc == 0, err
    stamp = yaml.safe_load(out)["metadata"]["displayName"].removeprefix("job-")
    assert f"# note: datetime.now().strftime('%Y%m%d%H%M%S') at nb.ipynb cell 1, line 2: the time the code runs, " \
           f"written as '{stamp}', the time of the conversion" in out
