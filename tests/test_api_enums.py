"""The API's enum members as Python code names them (provider/spec/formats/vertex/api_enums.py), read by the
evaluator (provider/document/python_enum.py) as Python holds them.

The oracles: the installed google-cloud-aiplatform itself (every path trainjobs reads as an enum is imported,
and each member's number compared), and Python (snippets run with ``exec``, every name's value compared with the
evaluator's, as tests/test_python_values.py does for plain values).
"""

from __future__ import annotations

import copy
import importlib
import json
import os
import textwrap
import warnings
from pathlib import Path

import pytest

from provider.document.python_enum import EnumMember, named
from provider.document.python_values import Unknown, scope_after
from provider.spec.formats.vertex import api_enums
from provider.spec.formats.vertex.proto_names import table
from tests.conftest import run_cli


def _resolve(dotted: str) -> object:
    """The object ``dotted`` names, imported as Python imports it (the longest importable module, then attributes)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            found = getattr(found, attr)
        return found
    raise ImportError(dotted)


ENUMS = sorted(table("enum_types").items())


@pytest.mark.parametrize("enum, entry", ENUMS, ids=[name for name, _ in ENUMS])
def test_every_path_read_as_an_enum_is_the_clients(enum: str, entry: dict[str, object]) -> None:
    homes = entry["homes"]
    assert isinstance(homes, list) and "google.cloud.aiplatform.gapic" in homes
    members = entry["members"]
    assert isinstance(members, dict) and members
    for home in homes:
        real = _resolve(f"{home}.{enum}")
        for name, number in members.items():
            got = api_enums.member(f"{home}.{enum}.{name}")
            assert isinstance(got, EnumMember), (home, enum, name, got)
            assert int(getattr(real, name)) == number == got and got.name == name
            assert repr(got) == repr(getattr(real, name))


def test_what_names_no_member() -> None:
    why = api_enums.member("google.cloud.aiplatform.gapic.AcceleratorType.NVIDIA_TESLA_T5")
    assert isinstance(why, str) and "has no member NVIDIA_TESLA_T5" in why and "NVIDIA_TESLA_T4" in why
    with pytest.raises(AttributeError):
        _resolve("google.cloud.aiplatform.gapic.AcceleratorType.NVIDIA_TESLA_T5")
    # not where the client defines the enum: Python raises AttributeError, and trainjobs reads no member
    with pytest.raises(AttributeError):
        _resolve("google.cloud.aiplatform.AcceleratorType")
    assert api_enums.member("google.cloud.aiplatform.AcceleratorType.NVIDIA_TESLA_T4") is None
    assert api_enums.member("google.cloud.aiplatform_v1.types.study.AcceleratorType.NVIDIA_TESLA_T4") is None
    assert api_enums.member("mylib.AcceleratorType.NVIDIA_TESLA_T4") is None


SNIPPETS = [
    # Google's samples: the member, its truth, its name; then what Python makes of it in text
    """
    from google.cloud import aiplatform as aip
    TRAIN_GPU, TRAIN_NGPU = (aip.gapic.AcceleratorType.NVIDIA_TESLA_T4, 1)
    NONE = aip.gapic.AcceleratorType.ACCELERATOR_TYPE_UNSPECIFIED
    NAME = TRAIN_GPU.name
    NUMBER = TRAIN_GPU.value
    KIND = "gpu" if TRAIN_GPU else "cpu"
    UNSET = "gpu" if NONE else "cpu"
    TEXT = str(TRAIN_GPU) + "|" + f"{TRAIN_GPU}|{TRAIN_GPU!s}|{TRAIN_GPU:>4}|{TRAIN_GPU!r}" + "%s" % TRAIN_GPU
    FORMATTED = "{}-{}".format(TRAIN_GPU, NAME)
    SAME = TRAIN_GPU == aip.gapic.AcceleratorType.NVIDIA_TESLA_T4 and TRAIN_GPU != 4 and TRAIN_GPU is not None
    LISTED = [TRAIN_GPU, NONE.name, aip.gapic.AcceleratorType.NVIDIA_L4.name]
    if TRAIN_GPU:
        MACHINE = {"machine_type": "n1-standard-4", "accelerator_type": TRAIN_GPU, "accelerator_count": TRAIN_NGPU}
    else:
        MACHINE = {"machine_type": "n1-standard-4", "accelerator_count": 0}
    """,
    # the enums nested in messages, through each of the client's modules
    """
    from google.cloud.aiplatform_v1.types import Scheduling
    from google.cloud.aiplatform.compat.types import custom_job, study_v1beta1
    import google.cloud.aiplatform_v1beta1 as beta
    SPOT = Scheduling.Strategy.SPOT
    FLEX = custom_job.Scheduling.Strategy.FLEX_START.name
    GOAL = study_v1beta1.StudySpec.MetricSpec.GoalType.MAXIMIZE
    SCALE = beta.types.study.StudySpec.ParameterSpec.ScaleType.UNIT_LOG_SCALE.name
    ORDERED = SPOT > Scheduling.Strategy.STANDARD
    """,
    # a test of the environment, as Google's samples test their CI's variables
    """
    import os
    os.environ["TRAINJOBS_SET_HERE"] = "1"
    SET = "TRAINJOBS_SET_HERE" in os.environ
    UNSET = "TRAINJOBS_NEVER_SET" in os.environ
    ABSENT = "TRAINJOBS_NEVER_SET" not in os.environ.keys()
    if "IS_TESTING_TRAINJOBS_NEVER_SET" in os.environ:
        MACHINE = os.environ["IS_TESTING_TRAINJOBS_NEVER_SET"]
    else:
        MACHINE = "n1-standard-4"
    """,
]


@pytest.mark.parametrize("code", SNIPPETS)
def test_agrees_with_python(code: str) -> None:
    code = textwrap.dedent(code)
    namespace: dict[str, object] = {"__name__": "__main__"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, "<snippet>", "exec"), namespace)
    os.environ.pop("TRAINJOBS_SET_HERE", None)
    expected = {k: v for k, v in namespace.items() if k.isupper()}
    scope = scope_after([("cell 1", code)], api_enums.member)
    got = {name: scope.get(name) for name in scope.names() if name.isupper()}
    assert not [v for v in got.values() if isinstance(v, Unknown)], got
    assert got == expected
    assert repr(got) == repr(expected)  # a member's repr, and each value's type as repr shows it


def test_without_the_apis_table_a_member_is_unknown() -> None:
    """The document layer knows no API: a reader that gives its Scope no table reads no member, and says why."""
    value = scope_after([("cell 1", "from google.cloud import aiplatform as aip\n"
                                    "G = aip.gapic.AcceleratorType.NVIDIA_TESLA_T4\n")]).get("G")
    assert isinstance(value, Unknown) and "an attribute trainjobs does not read" in value.why


def test_a_misspelt_member_is_named() -> None:
    value = scope_after([("cell 1", "from google.cloud import aiplatform as aip\n"
                                    "G = aip.gapic.AcceleratorType.NVIDIA_TESLA_T5\n")], api_enums.member).get("G")
    assert isinstance(value, Unknown) and "AcceleratorType has no member NVIDIA_TESLA_T5" in value.why


def test_a_member_is_one_value() -> None:
    member = api_enums.member("google.cloud.aiplatform.gapic.AcceleratorType.NVIDIA_TESLA_T4")
    assert isinstance(member, EnumMember)
    assert copy.deepcopy(member) is member and copy.copy(member) is member
    assert named({"a": [member, (member,)], member: 1}) == {"a": ["NVIDIA_TESLA_T4", ("NVIDIA_TESLA_T4",)],
                                                           "NVIDIA_TESLA_T4": 1}


def _notebook(path: Path, cells: list[str]) -> Path:
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": cell}
        for cell in cells]}), encoding="utf-8")
    return path


def test_a_notebooks_gcloud_line_reads_members_as_its_sdk_cells_do(tmp_path: Path) -> None:
    """One answer through every reader: a ``!gcloud`` line's ``{TRAIN_GPU.name}`` and an ``if TRAIN_GPU:`` around it
    read the member as the SDK reader does, so the request is the one the names written out give."""
    line = ("!gcloud ai custom-jobs create --region=us-central1 --display-name=j --worker-pool-spec=machine-type="
            "n1-standard-4,replica-count=1,accelerator-type={GPU},accelerator-count={COUNT},"
            "container-image-uri=us-docker.pkg.dev/p/r/i:1")
    members = _notebook(tmp_path / "members.ipynb", [
        "from google.cloud import aiplatform as aip\nTRAIN_GPU, TRAIN_NGPU = (aip.gapic.AcceleratorType.NVIDIA_TESLA_T4, 1)",
        "if TRAIN_GPU:\n    " + line.format(GPU="{TRAIN_GPU.name}", COUNT="{TRAIN_NGPU}")])
    names = _notebook(tmp_path / "names.ipynb", [line.format(GPU="NVIDIA_TESLA_T4", COUNT="1")])
    requests = []
    for path in (members, names):
        proc = run_cli("convert", str(path), "--output", "request")
        assert proc.returncode == 0, proc.stderr
        requests.append(json.loads(proc.stdout))
    assert requests[0] == requests[1]
    assert requests[0]["body"]["jobSpec"]["workerPoolSpecs"][0]["machineSpec"]["acceleratorType"] == "NVIDIA_TESLA_T4"
