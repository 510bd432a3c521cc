"""An unchanged job of a deployed stack: Check carries the verdict the olds hold (issue 31).

The engine sends Check the inputs it stored (``Olds: oldInputs``) beside the program's new ones.
These run the program for real (vision-dev, under mocks), then drive the SDK's own host over
gRPC as the engine does: Check with no olds (a first ``pulumi up``), then Check with the stored
inputs as olds. Each test that expects a carried verdict shows it by a value only the olds hold:
the stored request is replaced by a marker first, and a carried answer returns the marker, while
a Check that judges again builds the request anew.
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from provider.resources.check_carry import STAMP, judge_digest, stamp
from provider.resources.unknowns import UNKNOWN, is_unknown

from .conftest import by_type, run_program
from .host import DiffAnswer, ProviderHost

pytestmark = pytest.mark.slow

JOB = "pulumi-python:dynamic/trainjobs:TrainingJob"
MARKER = '{"marker":"only the olds hold this request"}'


@pytest.fixture(scope="module")
def host() -> Iterator[ProviderHost]:
    with ProviderHost() as h:
        yield h


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    report = run_program(tmp_path_factory.mktemp("carry"), "vision-dev")
    assert report["error"] is None, report["error"]
    return {name: report["dynamicInputs"][name] for name in by_type(report, JOB)}


@pytest.fixture(scope="module")
def stored(host: ProviderHost, program: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """What a first ``pulumi up`` stored for each job: its inputs through Check with no olds."""
    out = {}
    for name, inputs in program.items():
        checked, failures = host.check(inputs, name=name)
        assert failures == [], (name, failures)
        out[name] = checked
    return out


def _pure(program: dict[str, dict[str, Any]], stored: dict[str, dict[str, Any]]) -> list[str]:
    return [name for name in program if STAMP in stored[name]]


def test_a_job_naming_no_local_path_is_stamped_and_one_that_does_is_not(
        program: dict[str, dict[str, Any]], stored: dict[str, dict[str, Any]]) -> None:
    assert _pure(program, stored), "vision-dev has jobs that name no local path"
    for name, checked in stored.items():
        spec = program[name]["spec"]["spec"]
        app = spec.get("application", {})
        package, container = app.get("pythonPackage", {}), app.get("container", {})
        local = "path" in package or "extraPackages" in package or "build" in container  # the native spec's words
        assert (STAMP in checked) == (not local), name
        if not local:
            assert checked[STAMP] == f"{dt.date.today().isoformat()} {judge_digest()}" == stamp()


def test_an_unchanged_job_gets_the_olds_verdict(host: ProviderHost, program: dict[str, dict[str, Any]],
                                                stored: dict[str, dict[str, Any]]) -> None:
    for name in _pure(program, stored):
        olds = {**stored[name], "request": MARKER}
        checked, failures = host.check(program[name], olds, name=name)
        assert failures == [] and checked == olds, name  # carried: the marker only the olds hold
        # and with the olds as the engine really has them, the answer is the one a full Check gives
        checked, failures = host.check(program[name], stored[name], name=name)
        assert failures == [] and checked == stored[name], name


@pytest.mark.parametrize("change", ["spec", "quotas", "stack label", "day", "code", "no stamp", "extra old",
                                    "unknown"])
def test_anything_else_is_checked_again(host: ProviderHost, program: dict[str, dict[str, Any]],
                                        stored: dict[str, dict[str, Any]], change: str) -> None:
    name = _pure(program, stored)[0]
    news, olds = copy.deepcopy(program[name]), {**stored[name], "request": MARKER}
    if change == "spec":
        news["spec"]["metadata"].setdefault("labels", {})["carry"] = "no"
    elif change == "quotas":
        news["quotas"] = {**(news.get("quotas") or {}), "maxGpusPerJob": 0}
    elif change == "stack label":
        news["stackLabels"] = {**(news.get("stackLabels") or {}), "carry": "no"}
    elif change == "day":
        olds[STAMP] = f"{(dt.date.today() - dt.timedelta(days=1)).isoformat()} {judge_digest()}"
    elif change == "code":
        olds[STAMP] = f"{dt.date.today().isoformat()} {'0' * 20}"
    elif change == "no stamp":  # a state written before stamps
        del olds[STAMP]
    elif change == "extra old":  # an input the program no longer sends
        olds["adopt"] = "projects/p/locations/l/customJobs/1"
    elif change == "unknown":  # a preview: a value not known yet
        news["wait"] = UNKNOWN
    checked, failures = host.check(news, olds, name=name)
    if change == "quotas":
        assert [p for p, _ in failures] == ["quotas"], failures  # judged: the new quota is applied
        return
    assert failures == [], (change, failures)
    assert checked["request"] != MARKER, change  # judged again: the request is built anew
    if change == "unknown":
        assert is_unknown(checked["wait"]) and STAMP not in checked  # a verdict with an unknown is not stamped
    else:
        assert checked[STAMP] == stamp()


def test_a_job_naming_a_local_path_is_always_checked(host: ProviderHost, tmp_path: Path) -> None:
    report = run_program(tmp_path, "local")
    assert report["error"] is None, report["error"]
    local = {n: report["dynamicInputs"][n] for n in by_type(report, JOB)}
    packaged = [n for n, i in local.items() if "path" in i["spec"]["spec"]["application"].get("pythonPackage", {})]
    assert packaged, "the local stack has a job with a package path"
    for name in packaged:
        checked, failures = host.check(local[name], name=name)
        assert failures == [] and STAMP not in checked, name
        # never stamped, so never carried: its files may change under the same inputs (the state
        # is the engine's, written by this Check: a stamp there is one this Check wrote)
        again, failures = host.check(local[name], {**checked, "request": MARKER}, name=name)
        assert failures == [] and again["request"] == checked["request"] and STAMP not in again, name


def test_diff_never_reads_the_stamp(host: ProviderHost, program: dict[str, dict[str, Any]],
                                    stored: dict[str, dict[str, Any]]) -> None:
    name = _pure(program, stored)[0]
    yesterday = {**stored[name], STAMP: f"{(dt.date.today() - dt.timedelta(days=1)).isoformat()} {judge_digest()}"}
    assert host.diff("1", yesterday, stored[name], name=name) == DiffAnswer("DIFF_NONE", (), False)
    unstamped = {k: v for k, v in stored[name].items() if k != STAMP}
    assert host.diff("1", unstamped, stored[name], name=name) == DiffAnswer("DIFF_NONE", (), False)
