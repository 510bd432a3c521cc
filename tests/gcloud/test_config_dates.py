"""An unquoted date in a --config, beside gcloud itself: gcloud's YAML 1.1 reads a date, then fails to send it.

``2020-01-01`` (and ``2020-01-01T10:00:00Z``) unquoted is a YAML 1.1 timestamp: gcloud's loader
builds a ``datetime.date``, and no command can put one in its request (custom-jobs: "Cannot parse
YAML: [Object of type date is not JSON serializable]"; ai-platform and hp-tuning-jobs crash with
the same TypeError), wherever it stands: a display name, a label value, an env value, an arg.
trainjobs refuses it at its line and column with gcloud's reason; quoted, it is the string gcloud
sends, and trainjobs carries it. A --flags-file's loader reads a timestamp too (ruamel's resolver
is in YAML 1.2 as well), and gcloud crashes on it: refused the same way.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from provider.gcloud.command import GcloudError

from .test_arg_escaping import _same_request
from .test_gcloud_oracle import Outcome, _convert, _run_all, oracle_base

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(1200),
    pytest.mark.skipif(shutil.which("gcloud") is None, reason="gcloud is not installed: these tests compare with it"),
]

POOL = ("workerPoolSpecs:\n- machineSpec: {machineType: n1-standard-4}\n  replicaCount: 1\n"
        "  containerSpec:\n    imageUri: gcr.io/p/i\n")
VERTEX = "gcloud ai custom-jobs create --region=us-central1 --display-name=x --config=c.yaml"
AIP = "gcloud ai-platform jobs submit training j1 --region=us-central1 --config=c.yaml"
AIP_CONFIG = "trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-4\n  masterConfig: {imageUri: gcr.io/p/i}\n"
TUNING = "gcloud ai hp-tuning-jobs create --region=us-central1 --display-name=x --config=c.yaml"
STUDY = ("studySpec:\n  metrics: [{metricId: acc, goal: MAXIMIZE}]\n"
         "  parameters: [{parameterId: lr, doubleValueSpec: {minValue: 0.001, maxValue: 0.1}}]\n"
         "trialJobSpec:\n  workerPoolSpecs:\n  - machineSpec: {machineType: n1-standard-4}\n    replicaCount: 1\n"
         "    containerSpec: {imageUri: gcr.io/p/i, args: [ARG]}\n")
FF = "gcloud ai custom-jobs create --region=us-central1 --flags-file=c.yaml"
FF_POOL = "--worker-pool-spec: {machine-type: n1-standard-4, container-image-uri: gcr.io/p/i}\n"

# id, command, config, the line and column of the date (None: quoted, gcloud sends the string)
CASES: list[tuple[str, str, str, tuple[int, int] | None]] = [
    ("vertex-arg", VERTEX, POOL + "    args: [x, 2020-01-01]\n", (6, 15)),
    ("vertex-env", VERTEX, POOL + "    env:\n    - {name: D, value: 2020-01-01}\n", (7, 24)),
    ("vertex-datetime", VERTEX, POOL + "    args:\n    - 2020-01-01T10:00:00Z\n", (7, 7)),
    ("vertex-quoted", VERTEX, POOL + "    args: ['2020-01-01', \"2020-01-01T10:00:00Z\", 2020-1-1]\n"
     "    env: [{name: D, value: '2020-01-01'}]\n", None),
    ("aip-arg", AIP, AIP_CONFIG + "  args: [2020-01-01]\n", (5, 10)),
    ("aip-label", AIP, "labels: {d: 2020-01-01}\n" + AIP_CONFIG, (1, 13)),
    ("aip-quoted", AIP, "labels: {d: '2020-01-01'}\n" + AIP_CONFIG + "  args: ['2020-01-01']\n", None),
    ("tuning-display-name", TUNING, "displayName: 2020-01-01\n" + STUDY.replace("ARG", "x"), (1, 14)),
    ("tuning-label", TUNING, "labels: {d: 2020-01-01}\n" + STUDY.replace("ARG", "x"), (1, 13)),
    ("tuning-arg", TUNING, STUDY.replace("ARG", "2020-01-01"), (8, 50)),
    ("tuning-quoted", TUNING, "labels: {d: '2020-01-01'}\n" + STUDY.replace("ARG", "'2020-01-01'"), None),
    # a --flags-file: gcloud's loader (YAML 1.2) reads a timestamp too, and crashes on it
    ("ff-display-name", FF, FF_POOL + "--display-name: 2020-01-01T10:00:00Z\n", (2, 17)),
    ("ff-arg", FF, FF_POOL + "--display-name: x\n--args: [x, 2020-01-01]\n", (3, 13)),
    ("ff-label", FF, FF_POOL + "--display-name: x\n--labels: {a: 2020-01-01}\n", (3, 15)),
    ("ff-quoted", FF, FF_POOL + "--display-name: '2020-01-01'\n--args: ['2020-01-01T10:00:00Z']\n", None),
]


@pytest.fixture(scope="module")
def gcloud_runs() -> Iterator[tuple[dict[str, Outcome], Path]]:
    with oracle_base("trainjobs-dates-") as (base, shims):
        yield _run_all([{"id": i, "command": c, "sources": {"c.yaml": t}} for i, c, t, _ in CASES], base, shims), base


@pytest.mark.parametrize(("case", "command", "config", "at"), CASES, ids=[c[0] for c in CASES])
def test_an_unquoted_config_date_is_refused_where_gcloud_fails_on_it(
        case: str, command: str, config: str, at: tuple[int, int] | None,
        gcloud_runs: tuple[dict[str, Outcome], Path]) -> None:
    results, base = gcloud_runs
    outcome = results[case]
    entry = {"id": case, "command": command}
    if at is None:
        assert outcome.sent is not None, outcome.stderr[-2000:]
        document, generation, _ = _convert(entry, base / case)
        _same_request(outcome.sent, document, generation)
        return
    if "--flags-file" in command:
        assert outcome.sent is None and "gcloud crashed (AttributeError)" in outcome.stderr, outcome.stderr
        with pytest.raises(GcloudError) as refused:
            _convert(entry, base / case)
        assert f"c.yaml:{at[0]}:{at[1]}: an unquoted date, which gcloud's flags-file loader reads as a timestamp " \
            "and then crashes on" in str(refused.value), refused.value
        return
    assert outcome.sent is None and "is not JSON serializable" in outcome.stderr, outcome.stderr
    kind = "datetime" if "T10" in config else "date"
    assert f"Object of type {kind} is not JSON serializable" in outcome.stderr
    with pytest.raises(GcloudError) as refused:
        _convert(entry, base / case)
    message = str(refused.value)
    assert f"c.yaml:{at[0]}:{at[1]}: unquoted 2020-01-01" in message, message
    assert f"gcloud fails on it (Object of type {kind} is not JSON serializable)" in message
