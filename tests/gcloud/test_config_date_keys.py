"""An unquoted date used as a mapping KEY, beside gcloud itself (test_config_dates.py has dates as values).

gcloud's YAML 1.1 reads ``2024-01-01:`` as a ``datetime.date`` key, and no command can put one in its
request: custom-jobs says "Cannot parse YAML: [keys must be str, int, float, bool or None, not
datetime.date]", ai-platform and hp-tuning-jobs crash with that TypeError, wherever the key stands
(under labels, or at the top). A --flags-file's loader reads one too: as a value's key gcloud crashes
(AttributeError), as a flag name it is an unrecognized argument. trainjobs refuses each at its line
and column with gcloud's reason; quoted, the key is the string gcloud sends
(and Vertex AI's label rule then applies to it).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from provider.gcloud.command import GcloudError

from .test_config_dates import AIP, AIP_CONFIG, FF, FF_POOL, POOL, STUDY, TUNING, VERTEX
from .test_gcloud_oracle import Outcome, _convert, _request, _run_all, oracle_base

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(1200),
    pytest.mark.skipif(shutil.which("gcloud") is None, reason="gcloud is not installed: these tests compare with it"),
]

KEYS = "keys must be str, int, float, bool or None, not datetime"

# id, command, file, what gcloud says, the line and column of the key (None: gcloud sends it)
CASES: list[tuple[str, str, str, str, tuple[int, int] | None]] = [
    ("vertex-label", VERTEX, "labels: {2024-01-01: x}\n" + POOL, f"Cannot parse YAML: [{KEYS}.date]", (1, 10)),
    ("vertex-top", VERTEX, POOL + "2024-01-01: x\n", f"Cannot parse YAML: [{KEYS}.date]", (6, 1)),
    ("vertex-datetime", VERTEX, "labels:\n  a: b\n  2024-01-01T10:00:00Z: x\n" + POOL,
     f"Cannot parse YAML: [{KEYS}.datetime]", (3, 3)),
    ("aip-label", AIP, "labels:\n  2024-01-01: x\n" + AIP_CONFIG, f"gcloud crashed (TypeError): {KEYS}.date", (2, 3)),
    ("aip-nested", AIP, AIP_CONFIG + "  hyperparameters:\n    2024-01-01: x\n",
     f"gcloud crashed (TypeError): {KEYS}.date", (6, 5)),
    ("tuning-label", TUNING, "labels: {2024-01-01: x}\n" + STUDY.replace("ARG", "x"),
     f"gcloud crashed (TypeError): {KEYS}.date", (1, 10)),
    ("ff-label", FF, FF_POOL + "--display-name: x\n--labels: {2024-01-01: x}\n",
     "gcloud crashed (AttributeError)", (3, 12)),
    ("ff-flag-name", FF, FF_POOL + "--display-name: x\n2024-01-01: x\n",
     "unrecognized arguments: 2024-01-01=x (c.yaml:3)", (3, 1)),
    ("aip-quoted", AIP, "labels: {'2024-01-01': x}\n" + AIP_CONFIG, "", None),
]


@pytest.fixture(scope="module")
def gcloud_runs() -> Iterator[tuple[dict[str, Outcome], Path]]:
    with oracle_base("trainjobs-datekeys-") as (base, shims):
        yield _run_all([{"id": i, "command": c, "sources": {"c.yaml": t}} for i, c, t, _, _ in CASES], base, shims), base


@pytest.mark.parametrize(("case", "command", "config", "gcloud_says", "at"), CASES, ids=[c[0] for c in CASES])
def test_an_unquoted_date_key_is_refused_where_gcloud_fails_on_it(
        case: str, command: str, config: str, gcloud_says: str, at: tuple[int, int] | None,
        gcloud_runs: tuple[dict[str, Outcome], Path]) -> None:
    results, base = gcloud_runs
    outcome = results[case]
    entry = {"id": case, "command": command}
    if at is None:  # quoted: the string gcloud sends; trainjobs carries it, and Vertex AI's label rule applies
        assert outcome.sent is not None and outcome.sent["labels"] == {"2024-01-01": "x"}, outcome.stderr
        document, _, _ = _convert(entry, base / case)
        assert document["spec"]["labels"] == {"2024-01-01": "x"}
        _, errors = _request(document, None)
        assert errors and all("unquoted" not in e for e in errors) and "'2024-01-01' is not a valid key" in errors[0]
        return
    assert outcome.sent is None and gcloud_says in outcome.stderr, outcome.stderr[-2000:]
    with pytest.raises(GcloudError) as refused:
        _convert(entry, base / case)
    message = str(refused.value)
    if case == "ff-flag-name":
        assert "key 3 of mapping 1 in c.yaml is not a flag (at c.yaml:3:1; gcloud refuses it as an unrecognized argument" in message
    elif case.startswith("ff-"):
        assert f"c.yaml:{at[0]}:{at[1]}: an unquoted date as a key, which gcloud's flags-file loader reads as a " \
            "timestamp and then crashes on" in message, message
    else:
        kind = "datetime" if "T10" in config else "date"
        assert f"c.yaml:{at[0]}:{at[1]}: unquoted 2024-01-01" in message, message
        assert f" as a key is a {kind} to gcloud" in message and f"({KEYS}.{kind})" in message, message
