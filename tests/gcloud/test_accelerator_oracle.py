"""Accelerator flags beside gcloud itself: refused where gcloud refuses them, by flag, in its words.

``gcloud ai-platform jobs submit training --master-accelerator / --worker-accelerator /
--parameter-server-accelerator`` is an ArgDict with both ``type`` and ``count`` required and a count
greater than 0 (command_lib/ml_engine/flags.py ``_MakeAcceleratorArgConfigArg``); an unknown type
gets gcloud's choices, which trainjobs gives without the retired ones. ``gcloud ai custom-jobs
create --worker-pool-spec``'s ``accelerator-type`` alone gets count 1 from gcloud; a count of 0 or a
negative one gcloud sends as it is (Vertex AI refuses it), and trainjobs refuses it by name; a count
that is no number gcloud refuses. (``gcloud ai hp-tuning-jobs create`` has no pool flag: its pools
come from the config only.) Each command runs through the real gcloud against the stand-in.
"""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from provider.catalog import CATALOG
from provider.gcloud.command import GcloudError

from .test_arg_escaping import _same_request
from .test_gcloud_oracle import Outcome, _convert, _request, _run_all, oracle_base

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(1200),
    pytest.mark.skipif(shutil.which("gcloud") is None, reason="gcloud is not installed: these tests compare with it"),
]

AIP = ("gcloud ai-platform jobs submit training j1 --region=us-central1 --master-image-uri=gcr.io/p/i "
       "--scale-tier=custom --master-machine-type=n1-standard-4 ")
WORKER = "--worker-count=1 --worker-machine-type=n1-standard-4 "
PS = "--parameter-server-count=1 --parameter-server-machine-type=n1-standard-4 "
VX = ("gcloud ai custom-jobs create --region=us-central1 --display-name=x "
      "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i,")
FF = "gcloud ai-platform jobs submit training j1 --region=us-central1 --flags-file=f.yaml"
FF_BASE = "--master-image-uri: gcr.io/p/i\n--scale-tier: custom\n--master-machine-type: n1-standard-4\n"
COUNT = "The count of the accelerator must be greater than 0."
RETIRED = [n for n, a in CATALOG.accelerators.items() if a.retired(dt.date.today())]

# id, command, flags-file text, what gcloud says (None: it sends the job), what trainjobs says (None: it
# carries what gcloud sent)
CASES: list[tuple[str, str, str | None, str | None, str | None]] = [
    ("aip-no-count", AIP + "--master-accelerator=type=nvidia-tesla-t4", None,
     "argument --master-accelerator: Key [count] required in dict arg but not provided", None),
    ("aip-no-type", AIP + "--master-accelerator=count=2", None,
     "argument --master-accelerator: Key [type] required in dict arg but not provided", None),
    ("aip-empty", AIP + "--master-accelerator=", None,
     "argument --master-accelerator: Key [type] required in dict arg but not provided", None),
    ("aip-zero", AIP + "--master-accelerator=type=nvidia-tesla-t4,count=0", None,
     f"argument --master-accelerator: {COUNT}", None),
    ("aip-negative", AIP + "--master-accelerator=count=-1,type=nvidia-tesla-t4", None,
     f"argument --master-accelerator: {COUNT}", None),
    ("aip-not-a-number", AIP + "--master-accelerator=type=nvidia-tesla-t4,count=two", None,
     "argument --master-accelerator: invalid", "argument --master-accelerator: invalid ArgDict value: count=two"),
    ("aip-unknown-type", AIP + "--master-accelerator=type=nvidia-tesla-x9,count=1", None,
     "argument --master-accelerator: Invalid accelerator: nvidia-tesla-x9. Valid choices are: [",
     "argument --master-accelerator: Invalid accelerator: nvidia-tesla-x9. Valid choices are: [nvidia-tesla-a100,"),
    ("aip-unknown-key", AIP + "--master-accelerator=type=nvidia-tesla-t4,count=1,kind=gpu", None,
     "argument --master-accelerator: valid keys are [count, type]; received: kind", None),
    ("aip-worker-no-count", AIP + WORKER + "--worker-accelerator=type=nvidia-tesla-t4", None,
     "argument --worker-accelerator: Key [count] required in dict arg but not provided", None),
    ("aip-ps-zero", AIP + PS + "--parameter-server-accelerator=type=nvidia-tesla-t4,count=0", None,
     f"argument --parameter-server-accelerator: {COUNT}", None),
    ("aip-sent", AIP + WORKER + "--master-accelerator=type=nvidia-tesla-t4,count=2 "
     "--worker-accelerator=count=1,type=NVIDIA_TESLA_V100", None, None, None),
    ("aip-ff-sent", FF, FF_BASE + "--master-accelerator: {type: nvidia-tesla-t4, count: 2}\n", None, None),
    ("aip-ff-zero", FF, FF_BASE + "--master-accelerator: {type: nvidia-tesla-t4, count: 0}\n",
     f"argument --master-accelerator: {COUNT}", None),
    ("aip-ff-no-count", FF, FF_BASE + "--master-accelerator: {type: nvidia-tesla-t4}\n",
     "argument --master-accelerator: Key [count] required in dict arg but not provided", None),
    # custom-jobs: a type alone is one accelerator; 0 and -1 are sent (Vertex AI refuses them)
    ("vertex-type-only", VX + "accelerator-type=NVIDIA_TESLA_T4", None, None, None),
    ("vertex-zero", VX + "accelerator-type=NVIDIA_TESLA_T4,accelerator-count=0", None, None,
     "0 x NVIDIA_TESLA_T4 is not a valid count"),
    ("vertex-negative", VX + "accelerator-type=NVIDIA_TESLA_T4,accelerator-count=-1", None, None,
     "argument --worker-pool-spec: accelerator-count=-1: gcloud sends the negative number as it is"),
    ("vertex-not-a-number", VX + "accelerator-type=NVIDIA_TESLA_T4,accelerator-count=two", None,
     "argument --worker-pool-spec: invalid", "argument --worker-pool-spec: invalid int value: 'two'"),
    ("vertex-count-only", VX + "accelerator-count=2", None,
     "Key [accelerator-type] required as [accelerator-count] is specified.", None),
    ("vertex-unknown-type", VX + "accelerator-type=nvidia-tesla-t4,accelerator-count=1", None,
     "Found invalid value of [accelerator-type]: nvidia-tesla-t4. Available values are [",
     "Found invalid value of [accelerator-type]: nvidia-tesla-t4. Available values are [NVIDIA_A100_80GB,"),
]


@pytest.fixture(scope="module")
def gcloud_runs() -> Iterator[tuple[dict[str, Outcome], Path]]:
    entries = [{"id": i, "command": c, "sources": {"f.yaml": f} if f else {}} for i, c, f, _, _ in CASES]
    with oracle_base("trainjobs-accel-") as (base, shims):
        yield _run_all(entries, base, shims), base


def _refusal(entry: dict[str, str], work: Path) -> str:
    """What trainjobs says: the command refused as it is read, or the converted spec refused by the validator."""
    try:
        document, _, _ = _convert(entry, work)
    except GcloudError as refused:
        return str(refused)
    body, errors = _request(document, None)
    assert body is None and errors, f"trainjobs accepts it: {body}"
    return " | ".join(errors)


@pytest.mark.parametrize(("case", "command", "flags_file", "gcloud_says", "ours"), CASES, ids=[c[0] for c in CASES])
def test_an_accelerator_flag_is_read_as_gcloud_reads_it(
        case: str, command: str, flags_file: str | None, gcloud_says: str | None, ours: str | None,
        gcloud_runs: tuple[dict[str, Outcome], Path]) -> None:
    results, base = gcloud_runs
    outcome = results[case]
    entry = {"id": case, "command": command}
    if gcloud_says is not None:
        assert outcome.sent is None and gcloud_says in outcome.stderr, outcome.stderr[-2000:]
        said = _refusal(entry, base / case)
        assert (ours or gcloud_says) in said, said
        offered = said.split("choices are: [")[-1].split("Available values are [")[-1] if "[" in said else ""
        assert not [r for r in RETIRED if r in offered or r.replace("_", "-").lower() in offered], said
        return
    assert outcome.sent is not None, outcome.stderr[-2000:]
    if ours is not None:  # gcloud sends it as written; Vertex AI would refuse it, trainjobs refuses it by name
        assert ours in _refusal(entry, base / case)
        return
    document, generation, _ = _convert(entry, base / case)
    _same_request(outcome.sent, document, generation)
