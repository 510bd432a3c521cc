"""``convert`` writes a served container, never a retired one, for an AI Platform runtimeVersion too.

A runtime names no image but runs one (catalog containers.py ``implied_container``). Where that
container is past its end of availability and the catalog lists a served successor for every pool's
build, the written spec runs the successors as its executorImage (a pool whose build differs gets
its own image), the runtime is not written, and a note names the runtime and Python the input wrote,
the container it ran and the day it stopped. Where any pool's container has no served successor,
the runtime stays and validation's warning names it (test_convert_images.py, at today's date).
"""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any

import yaml

from provider.catalog import CATALOG
from provider.cli.convert_images import current_images, still_named
from provider.spec.model import PythonPackage, TrainingJob
from provider.submission.emit import to_native
from provider.submission.request import build_request
from provider.validation.rules import Context
from provider.validation.validator import SpecResult, validate_data

DAY = dt.date(2025, 1, 1)  # tf-*.2-11 retired on 2024-11-15; tf-*.2-17.py310 served until 2026-07-11
SPEC = """apiVersion: trainjobs/v1
kind: TrainingJob
metadata: {name: legacy}
spec:
  region: europe-west4
  workerPools:
    chief: {machineType: n1-standard-4}
    workers: {machineType: n1-standard-8, replicas: 2, accelerator: {type: NVIDIA_TESLA_T4, count: 1}}
  application:
    pythonPackage: {uris: [gs://b/trainer-0.1.tar.gz], module: trainer.task, runtimeVersion: '%s'%s}
  baseOutputDirectory: gs://b/out
"""


def _containers() -> dict[str, Any]:
    table: dict[str, Any] = CATALOG.runtimes()["prebuilt_training_containers"]
    return table


def _read(runtime: str = "2.11", python: str | None = "3.7") -> SpecResult:
    extra = f", pythonVersion: '{python}'" if python else ""
    result = validate_data(yaml.safe_load(SPEC % (runtime, extra)), "legacy.yaml", Context(today=DAY))
    assert result.job is not None, result.problems
    return result


def _images(job: TrainingJob) -> list[str | None]:
    body = build_request(job, "P").body
    return [(w.get("pythonPackageSpec") or {}).get("executorImageUri") for w in body["jobSpec"]["workerPoolSpecs"]]


def test_a_retired_runtime_is_written_as_its_served_successors() -> None:
    result = _read()
    assert result.job is not None
    before = _images(result.job)
    assert before == ["europe-docker.pkg.dev/vertex-ai/training/tf-cpu.2-11:latest",
                      "europe-docker.pkg.dev/vertex-ai/training/tf-gpu.2-11:latest"]
    notes: list[str] = []
    job = current_images(result.job, _containers(), DAY, notes)
    assert _images(job) == ["europe-docker.pkg.dev/vertex-ai/training/tf-cpu.2-17.py310:latest",
                            "europe-docker.pkg.dev/vertex-ai/training/tf-gpu.2-17.py310:latest"]
    app = job.application
    assert isinstance(app, PythonPackage) and app.runtime_version is None and app.python_version is None
    native = to_native(job)
    pkg = native["spec"]["application"]["pythonPackage"]
    assert "runtimeVersion" not in pkg and "pythonVersion" not in pkg
    assert pkg["executorImage"].endswith("/tf-cpu.2-17.py310:latest")
    assert native["spec"]["workerPools"]["workers"]["image"].endswith("/tf-gpu.2-17.py310:latest")
    # one note per container, naming what the input wrote, what it ran, the day it stopped, what runs now
    assert len(notes) == 2
    assert notes[0].startswith("the input's runtimeVersion '2.11' with pythonVersion '3.7' runs the prebuilt "
                               "container tf-cpu.2-11 on Vertex AI, which reached its end of availability on 2024-11-15")
    assert "tf-cpu.2-17.py310 instead, as its executorImage (Python 3.10, where tf-cpu.2-11 ran Python 3.7)" in notes[0]
    assert "tf-gpu.2-17.py310 instead, as the image of the pools that ran it" in notes[1]
    # validation's warnings on the runtime are replaced by the notes: the spec no longer writes it
    assert [p.rule for p in result.problems] == ["runtime.end_of_availability"] * 2
    assert still_named(job, result.problems) == []


def test_the_written_spec_reads_back_with_no_retired_image() -> None:
    notes: list[str] = []
    result = _read()
    assert result.job is not None
    native = to_native(current_images(result.job, _containers(), DAY, notes))
    again = validate_data(native, "converted.yaml", Context(today=DAY))
    assert again.job is not None and not [p for p in again.problems if "end_of_availability" in p.rule]


def test_no_served_successor_for_one_pool_keeps_the_runtime() -> None:
    table = copy.deepcopy(_containers())
    for name, rec in table.items():  # no GPU TensorFlow container served that day
        if rec.get("framework") == "tensorflow" and rec.get("accelerator") == "gpu":
            table[name] = {**rec, "end_of_availability": "2024-12-01"}
    result = _read()
    assert result.job is not None
    notes: list[str] = []
    job = current_images(result.job, table, DAY, notes)
    assert job == result.job and notes == []


def test_a_served_or_unmapped_runtime_is_left_as_written() -> None:
    for runtime, python, day in (("2.11", "3.7", dt.date(2024, 1, 1)), ("1.15", "2.7", DAY)):
        result = validate_data(yaml.safe_load(SPEC % (runtime, f", pythonVersion: '{python}'")), "l.yaml",
                               Context(today=day))
        assert result.job is not None
        notes: list[str] = []
        assert current_images(result.job, _containers(), day, notes) == result.job and notes == []
