"""An integerValueSpec bound written with a decimal point is refused, as gcloud refuses it.

gcloud's own --config example for ``gcloud ai hp-tuning-jobs create`` (tests/gcloud/rest/
c19_gcloud_help_hpt.yaml) writes ``integerValueSpec: {minValue: 1, maxValue: 100}``. Written
``1.0`` and ``100.0`` (as a program that keeps numbers as floats writes YAML), gcloud refuses it
(apitools: "Expected type (<class 'int'>,) for field minValue, found 1.0"), as trainjobs refuses
``replicaCount: 2.0``; trainjobs sent ``"1"`` and ``"100"`` without a word. The same holds for a
conditional parameter's ``parentIntValues``.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from .conftest import no_traceback, run_cli

REST = Path(__file__).parent / "gcloud" / "rest"


def _convert(path: Path) -> tuple[int, str, str]:
    proc = run_cli("convert", str(path), "--region", "us-central1", "--output", "request")
    no_traceback(proc)
    return proc.returncode, proc.stdout, proc.stderr


def test_whole_bounds_are_sent_as_int64_strings() -> None:
    rc, out, err = _convert(REST / "c19_gcloud_help_hpt.yaml")
    assert rc == 0, err
    spec = json.loads(out)["body"]["studySpec"]["parameters"][0]["integerValueSpec"]
    assert spec == {"minValue": "1", "maxValue": "100"}


def test_a_bound_with_a_decimal_point_is_refused_at_its_line() -> None:
    rc, out, err = _convert(REST / "c19_gcloud_help_hpt_float_bounds.yaml")
    assert rc == 1, out
    assert "c19_gcloud_help_hpt_float_bounds.yaml:11:17: error: minValue is 1.0, not an integer" in err
    assert "c19_gcloud_help_hpt_float_bounds.yaml:12:17: error: maxValue is 100.0, not an integer" in err
    assert "allowed: an integer, such as 1 (no decimal point)" in err


def test_a_parent_int_value_with_a_decimal_point_is_refused(tmp_path: Path) -> None:
    job = yaml.safe_load((REST / "c19_gcloud_help_hpt.yaml").read_text())
    job["studySpec"]["parameters"][0]["conditionalParameterSpecs"] = [{
        "parameterSpec": {"parameterId": "lr", "doubleValueSpec": {"minValue": 0.001, "maxValue": 0.1}},
        "parentIntValues": {"values": [5, 10.0]},
    }]
    path = tmp_path / "hpt.json"
    path.write_text(json.dumps(job, indent=2))
    rc, out, err = _convert(path)
    assert rc == 1, out
    assert "error: values[1] is 10.0, not an integer" in err
    assert "hpt.json:31:17: error" in err  # the line and column of the value itself
    assert "at spec.studySpec.parameters[0].conditionalParameterSpecs[0].parentIntValues.values[1]" in err
