"""Diff and the identity fingerprint read a field as its default only where the API's own types say so.

An explicit default (a scalar without presence at "", 0 or false, an enum at its zero value) reads as
absent, as Vertex AI reads it; the user's data never does: an environment variable's value, an arg,
a label, a value with presence (a parameter's ``defaultValue: 0``). The types come from the installed
google-cloud-aiplatform's v1 descriptors, through provider/submission/api_types.json, which
tools/schema/api_types.py generates (checked here).
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from provider.submission.diffing import Action, diff, fingerprint

from .conftest import ROOT
from .spec_request import checked_job, request_body

IMAGE = "us-docker.pkg.dev/p/r/trainer:1"


def _request(spec: dict[str, Any]) -> dict[str, Any]:
    return request_body(checked_job(spec, "typed"))


def _pool(container: dict[str, Any], **machine: Any) -> dict[str, Any]:
    return {"machineSpec": {"machineType": "n1-standard-4", **machine}, "replicaCount": 1,
            "containerSpec": {"imageUri": IMAGE, **container}}


def _job(container: dict[str, Any], **machine: Any) -> dict[str, Any]:
    return _request({"workerPoolSpecs": [_pool(container, **machine)]})


def _differ(old: dict[str, Any], new: dict[str, Any]) -> None:
    assert diff(old, new).action is Action.REPLACE, (old, new)
    assert fingerprint(old) != fingerprint(new)


def _same(old: dict[str, Any], new: dict[str, Any]) -> None:
    assert diff(old, new).action is Action.UNCHANGED, diff(old, new)
    assert fingerprint(old) == fingerprint(new)


def test_an_env_value_spelled_like_an_enum_default_is_a_change() -> None:
    values = ("tune", "MODE_UNSPECIFIED", "X_UNSPECIFIED", "")
    jobs = [_job({"env": [{"name": "MODE", "value": v}]}) for v in values]
    for i, old in enumerate(jobs):
        for new in jobs[i + 1:]:
            _differ(old, new)
    assert [c.path for c in diff(jobs[1], jobs[3]).changes] == ["jobSpec.workerPoolSpecs[0].containerSpec.env[0].value"]


def test_an_empty_or_enum_like_arg_is_a_change() -> None:
    base = _job({"args": ["--mode"]})
    for args in (["--mode", ""], ["--mode", "X_UNSPECIFIED"], ["--mode", "0"]):
        _differ(base, _job({"args": args}))
    _differ(_job({"command": ["python"]}), _job({"command": ["python", ""]}))


def test_an_empty_label_value_is_a_no_op_change() -> None:
    """A label's value "" is a label (labels change no job: a no-op change, shown)."""
    old = _request({"workerPoolSpecs": [_pool({})], "labels": {"team": "nlp", "tier": ""}})
    new = _request({"workerPoolSpecs": [_pool({})], "labels": {"team": "nlp"}})
    found = diff(old, new)
    assert found.action is Action.UNCHANGED and [c.path for c in found.no_op_changes] == ["labels.tier"]


def test_a_value_with_presence_at_zero_is_not_its_default() -> None:
    """DoubleValueSpec.defaultValue is proto3 ``optional``: 0 is a value Vertex AI tries first, not unset."""
    def tuning(spec: dict[str, Any]) -> dict[str, Any]:
        study = {"metrics": [{"metricId": "accuracy", "goal": "MAXIMIZE"}],
                 "parameters": [{"parameterId": "lr", "doubleValueSpec": {"minValue": 0, "maxValue": 1, **spec}}]}
        return _request({"studySpec": study, "maxTrialCount": 4, "parallelTrialCount": 2,
                         "trialJobSpec": {"workerPoolSpecs": [_pool({})]}})

    _differ(tuning({}), tuning({"defaultValue": 0}))
    _differ(tuning({"defaultValue": 0}), tuning({"defaultValue": 0.5}))


def test_explicit_defaults_of_api_scalars_and_enums_still_read_as_absent() -> None:
    old = _request({"workerPoolSpecs": [_pool({})]})
    new = _request({"workerPoolSpecs": [_pool({}, acceleratorType="ACCELERATOR_TYPE_UNSPECIFIED", acceleratorCount=0,
                                              tpuTopology="", gpuPartitionSize="",
                                              reservationAffinity={"reservationAffinityType": "TYPE_UNSPECIFIED"})],
                    "scheduling": {"restartJobOnWorkerRestart": False, "strategy": "STRATEGY_UNSPECIFIED"},
                    "enableWebAccess": False})
    assert new["jobSpec"]["scheduling"]["strategy"] == "STRATEGY_UNSPECIFIED"  # sent as written
    _same(old, new)


def test_the_type_table_is_the_installed_api_s() -> None:
    """provider/submission/api_types.json is what tools/schema/api_types.py makes of the installed descriptors."""
    proc = subprocess.run([sys.executable, "tools/schema/api_types.py", "--check"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
