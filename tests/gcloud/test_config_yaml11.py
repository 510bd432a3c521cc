"""A --config read as gcloud reads it (YAML 1.1), for the forms YAML 1.1 and 1.2 read differently.

gcloud 528 reads its --config with ruamel at version 1.1 (googlecloudsdk.core.yaml.load). The
readings below are gcloud's, checked against its installed ruamel (and, where gcloud is installed,
by test_yaml11_matches_gcloud below): the YAML-1.2-only forms that the strict reader takes as
numbers are strings to gcloud (``0o17``, ``-.5``), hexadecimal is a number to both, ``~`` is null
to both, and a non-finite ``.inf``/``.nan`` is refused (no request can carry it).
"""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import pytest

from provider.gcloud import yaml11
from provider.gcloud.build import build
from provider.gcloud.command import GcloudError, parse
from provider.gcloud.words import split_words

from .gcloud_loader import GCLOUD_PYTHON, gcloud_yaml


def _build(tmp_path: Path, value: str):  # type: ignore[no-untyped-def]
    """A custom job whose first arg is ``value``, unquoted, in the config."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "job.yaml").write_text(
        "workerPoolSpecs:\n- machineSpec: {machineType: n1-standard-4}\n  replicaCount: 1\n"
        f"  containerSpec:\n    imageUri: gcr.io/p/i\n    args: [{value}, x]\n")
    line = "gcloud ai custom-jobs create --region=us-central1 --display-name=d --config=job.yaml"
    return build(parse(split_words(line, {})), tmp_path)


def _readings(built) -> list[str]:  # type: ignore[no-untyped-def]
    return [n for n in built.notes if "as gcloud reads its --config (YAML 1.1)" in n]


@pytest.mark.parametrize(("text", "sent"), [
    ("0o17", "0o17"),   # YAML 1.2 octal; a string to YAML 1.1 (the strict reader made it 15)
    ("-.5", "-.5"),     # 1.1's ".5" form has no sign
    ("+.5", "+.5"),
    ("0x1F", 31),       # hexadecimal in both: no note
    ("1.0e3", 1000.0),  # a float in both
    ("~", None),        # null in both
])
def test_a_yaml_1_2_only_form_takes_gcloud_s_reading(tmp_path: Path, text: str, sent: object) -> None:
    built = _build(tmp_path, text)
    args = built.document["spec"]["workerPoolSpecs"][0]["containerSpec"]["args"]
    assert args[0] == sent and type(args[0]) is type(sent)
    readings = _readings(built)
    if isinstance(sent, str):  # a changed reading is named, at its line and column
        assert len(readings) == 1
        assert readings[0].endswith(f"job.yaml:6:12: unquoted {text} is read as gcloud reads its --config (YAML 1.1): "
                                    f"{sent!r}")
    else:
        assert readings == []


@pytest.mark.parametrize("text", [".inf", "-.inf", ".NaN"])
def test_a_non_finite_number_is_still_refused_with_its_position(tmp_path: Path, text: str) -> None:
    with pytest.raises(GcloudError) as refused:
        _build(tmp_path, text)
    assert f"job.yaml:6:12: {text} is not a finite number" in str(refused.value)


FORMS = ["1e-5", "yes", "No", "on", "y", "010", "08", "017", "-010", "0_7", "1:30", "1:30.5", "1_000", "0b101",
         "+0b11", "0o17", "0x1F", "-0x1F", "0x1_F", ".inf", "-.inf", ".NaN", "~", "null", "NULL", "True", "tRUE",
         "1.", "+1", "-0", "1.0e+3", "2e3", ".5", "+.5", "-.5", ".5e3", "0.", "n1-standard-4"]


def test_yaml11_matches_gcloud(tmp_path: Path) -> None:
    """Every form above read by gcloud's own YAML loader (its bundled Python and ruamel) equals yaml11.read."""
    if shutil.which("gcloud") is None or not GCLOUD_PYTHON.is_file():
        pytest.skip("gcloud is not installed: yaml11.read is checked against gcloud's loader where it is")
    out = gcloud_yaml(tmp_path, "print(repr(yaml.load('x: %s\\n' % t)['x']))", FORMS)
    ours = [yaml11.read(t) for t in FORMS]
    assert out == [repr(v) if not (isinstance(v, float) and math.isnan(v)) else "nan" for v in ours]
