"""gcloud's list and dict flag values beside gcloud itself: the ``^DELIM^`` escape, a --flags-file's lists and mappings.

Each case runs through ``gcloud`` (offline, against the stand-in of standin.py, which records the job
gcloud sends) and through trainjobs's reading; a job gcloud sends is the request trainjobs builds
(as test_gcloud_oracle.py compares them), and a value gcloud refuses is refused by trainjobs, in
gcloud's words. The escape's corners are calliope/arg_parsers.py's ArgList: an empty delimiter, no
closing ``^``, a delimiter of several characters, a ``^`` inside an item, empty and trailing items.
A flags file's list reaches the flag whole (an item may hold a comma, or ``^:^``); a mapping's
values reach the flag's types unconverted (``replica-count: 2.7`` is 2, a label value 1 fails).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from provider.gcloud.command import GcloudError, Generation

from .test_gcloud_oracle import LANES, Outcome, _carries, _convert, _int64, _request, _run_all, oracle_base

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(1200),
    pytest.mark.skipif(shutil.which("gcloud") is None, reason="gcloud is not installed: these tests compare with it"),
]

POOL = "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=gcr.io/p/i"
VERTEX = "gcloud ai custom-jobs create --region=us-central1 --display-name=x "
AIP = ("gcloud ai-platform jobs submit training j1 --region=us-central1 --master-image-uri=gcr.io/p/i "
       "--scale-tier=custom --master-machine-type=n1-standard-4 ")
TUNING = "gcloud ai hp-tuning-jobs create --region=us-central1 --display-name=x --config=hp.yaml "
HP = """studySpec:
  metrics: [{metricId: acc, goal: MAXIMIZE}]
  parameters: [{parameterId: lr, doubleValueSpec: {minValue: 0.001, maxValue: 0.1}}]
trialJobSpec:
  workerPoolSpecs:
  - {machineSpec: {machineType: n1-standard-4}, replicaCount: 1, containerSpec: {imageUri: gcr.io/p/i}}
"""
FLAGS = "--display-name: x\n--worker-pool-spec: {machine-type: n1-standard-4, container-image-uri: gcr.io/p/i}\n"
VERTEX_FF = "gcloud ai custom-jobs create --region=us-central1 --flags-file=f.yaml"
FIRST = "- " + FLAGS.replace("\n--", "\n  --")  # the flags as the first mapping of a list (a flag given twice)
AIP_FLAGS = "--master-image-uri: gcr.io/p/i\n--scale-tier: custom\n--master-machine-type: n1-standard-4\n"

# id, command, files, what gcloud's refusal says (None: gcloud sends the job), and trainjobs's words when its own
CASES: list[tuple[str, str, dict[str, str], str | None, str | None]] = [
    ("args-colon", VERTEX + POOL + " '--args=^:^--lr=0.1:--layers=a,b'", {}, None, None),
    ("pool-semicolon", VERTEX + "'--worker-pool-spec=^;^machine-type=n1-standard-4;replica-count=1;"
     "container-image-uri=gcr.io/p/i' --labels=^:^k=v:w=u", {}, None, None),
    ("second-pool-two-char", VERTEX + POOL + " '--worker-pool-spec=^::^machine-type=n1-standard-4::"
     "container-image-uri=gcr.io/p/j::replica-count=3'", {}, None, None),
    ("no-closing-caret", VERTEX + POOL + " '--args=^a,b'", {}, None, None),
    ("caret-inside-item", VERTEX + POOL + " '--args=^,^^a^,b,c'", {}, None, None),
    ("two-char-delimiter", VERTEX + POOL + " '--args=^::^a:b::c'", {}, None, None),
    ("empty-and-trailing-items", VERTEX + POOL + " '--args=^:^a::b:' --command=,sh,", {}, None, None),
    ("escape-only", VERTEX + POOL + " '--args=^:^' --command=^", {}, None, None),
    ("space-delimiter", VERTEX + POOL + " '--command=^ ^sh -c' --command=^:^x,y", {}, None, None),
    ("package-uris", VERTEX + "--worker-pool-spec=machine-type=n1-standard-4,executor-image-uri=gcr.io/p/i,"
     "python-module=trainer.task '--python-package-uris=^;^gs://b/a,b.tar.gz;gs://b/c.tar.gz'", {}, None, None),
    ("empty-delimiter", VERTEX + POOL + " '--args=^^a,b'", {}, "argument --args: Invalid delimeter.", None),
    ("empty-delimiter-pool", VERTEX + "'--worker-pool-spec=^^machine-type=n1-standard-4'", {},
     "argument --worker-pool-spec: Invalid delimeter.", None),
    ("label-value-comma", VERTEX + POOL + " --labels=^:^k=v,w", {}, "argument --labels: Bad value [v,w]", None),
    ("label-empty-item", VERTEX + POOL + " --labels=a=1,,b=2", {}, "argument --labels: Invalid flag value []", None),
    ("label-no-key", VERTEX + POOL + " --labels=^:^=1", {}, "argument --labels: Invalid flag value [=1]", None),
    ("pool-empty-item", VERTEX + "'--worker-pool-spec=^:^machine-type=n1-standard-4::container-image-uri=gcr.io/p/i'",
     {}, "argument --worker-pool-spec: Invalid flag value []", None),
    ("args-repeated-item", VERTEX + POOL + " --args=--a,1,--b,1", {},
     'argument --args: "1" cannot be specified multiple times', None),
    ("aip-escapes", AIP + "'--labels=^;^a=b;c=d' --master-accelerator=^:^type=nvidia-tesla-t4:count=2",
     {}, None, None),
    ("aip-empty-delimiter", AIP + "--labels=^^a=b", {}, "argument --labels: Invalid delimeter.", None),
    ("aip-label-key", AIP + "'--labels=^,^^a^=b'", {}, "argument --labels: Bad value [^a^]", None),
    ("tuning-labels", TUNING + "--labels=^:^a=b:c=d", {"hp.yaml": HP}, None, None),
    ("tuning-label-value", TUNING + "--labels=^:^a=b,c=d", {"hp.yaml": HP}, "argument --labels: Bad value [b,c=d]",
     None),
    # a --flags-file's lists and mappings, handed to the flag as they are
    ("ff-list-commas", VERTEX_FF,
     {"f.yaml": FLAGS + "--args: ['--ids=1,2', x, '^:^a:b']\n--command: ['a,b']\n"}, None, None),
    ("ff-pool-values", VERTEX_FF,
     {"f.yaml": FIRST + "- --worker-pool-spec: {machine-type: n1-standard-4, replica-count: 2.7, "
      "container-image-uri: gcr.io/p/i, accelerator-type: NVIDIA_TESLA_T4, accelerator-count: true}\n"}, None, None),
    ("ff-pool-text-number", VERTEX_FF,
     {"f.yaml": FIRST + "- --worker-pool-spec: {machine-type: n1-standard-4, replica-count: '3', "
      "container-image-uri: gcr.io/p/i}\n  --labels: {a: b, c: ''}\n  --args: []\n"}, None, None),
    ("ff-label-int", VERTEX_FF,
     {"f.yaml": FLAGS + "--labels: {a: 1}\n"}, "argument --labels: invalid", "argument --labels: invalid ArgDict value"),
    ("ff-label-bool", VERTEX_FF,
     {"f.yaml": FLAGS + "--labels: {a: true}\n"}, "argument --labels: invalid",
     "argument --labels: invalid ArgDict value"),
    ("ff-label-float", VERTEX_FF,
     {"f.yaml": FLAGS + "--labels: {a: 0.5}\n"}, "argument --labels: invalid",
     "argument --labels: invalid ArgDict value"),
    ("ff-label-null", VERTEX_FF,
     {"f.yaml": FLAGS + "--labels: {a: ~}\n"}, "argument --labels: Bad syntax for dict arg: [a].", None),
    ("ff-aip-accelerator", AIP[:AIP.index("--master-image-uri")] + "--flags-file=f.yaml",
     {"f.yaml": AIP_FLAGS + "--master-accelerator: {type: nvidia-tesla-t4, count: 2}\n--labels: {a: x}\n"}, None, None),
    ("ff-tuning-label-int", TUNING + "--flags-file=f.yaml", {"hp.yaml": HP, "f.yaml": "--labels: {a: 2}\n"},
     "argument --labels: invalid", "argument --labels: invalid ArgDict value"),
]


@pytest.fixture(scope="module")
def gcloud_runs() -> Iterator[tuple[dict[str, Outcome], Path]]:
    with oracle_base("trainjobs-escaping-") as (base, shims):
        entries = [{"id": i, "command": c, "sources": files} for i, c, files, _, _ in CASES]
        results: dict[str, Outcome] = {}
        with ThreadPoolExecutor(LANES) as pool:  # gcloud takes seconds a command: a few lanes, a stand-in each
            for done in pool.map(lambda lane: _run_all(lane, base, shims), [entries[i::LANES] for i in range(LANES)]):
                results.update(done)
        yield results, base


def _same_request(sent: dict[str, Any], document: dict[str, Any], generation: Generation) -> None:
    if generation is Generation.AI_PLATFORM:  # the Vertex AI request from either, as test_gcloud_oracle.py does
        from_gcloud = {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": document["metadata"],
                       "spec": {"trainingInput": sent["trainingInput"],
                                **({"labels": sent["labels"]} if "labels" in sent else {})}}
        assert _request(document, None) == _request(from_gcloud, None)
        return
    ours, errors = _request(document, None)
    assert not errors and ours is not None, errors
    _carries(_int64(sent), _int64(ours), "job")


@pytest.mark.parametrize(("case", "command", "files", "refused", "ours"), CASES, ids=[c[0] for c in CASES])
def test_trainjobs_reads_list_and_dict_values_as_gcloud_does(
        case: str, command: str, files: dict[str, str], refused: str | None, ours: str | None,
        gcloud_runs: tuple[dict[str, Outcome], Path]) -> None:
    results, base = gcloud_runs
    outcome = results[case]
    entry = {"id": case, "command": command}
    if refused is not None:
        assert outcome.sent is None and refused in outcome.stderr, outcome.stderr
        with pytest.raises(GcloudError) as refusal:
            _convert(entry, base / case)
        assert (ours or refused) in str(refusal.value)
        return
    assert outcome.sent is not None, outcome.stderr[-2000:]
    document, generation, _ = _convert(entry, base / case)
    _same_request(outcome.sent, document, generation)
