"""The container an AI Platform runtimeVersion runs on Vertex AI: one home (provider/catalog/containers.py),
what the request sends, and what validation says of it by the containers page's dates (rules/containers.py).

The dates are the catalog's (tools/catalog/curated/prebuilt_containers.json): tf-cpu.2-11 and tf-gpu.2-11
(runtime 2.11) ended patch and support on 2023-11-15 and availability on 2024-11-15; tf-cpu.2-17.py310 stayed
available to 2026-07-11. Each test gives the validator its day, so none depends on the day it runs.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from provider.catalog import CATALOG
from provider.core.problem import Severity
from provider.spec.model import PythonPackage
from provider.submission.request import executor_image
from provider.validation.rules import Context, Target
from provider.validation.validator import validate_data

CONTAINERS: dict[str, Any] = CATALOG.runtimes()["prebuilt_training_containers"]


def doc(runtime: str, python: str | None = "3.7", gpu: bool = True, **package: Any) -> dict[str, Any]:
    pkg: dict[str, Any] = {"uris": ["gs://b/p.tar.gz"], "module": "trainer.task", "runtimeVersion": runtime, **package}
    if python is not None:
        pkg["pythonVersion"] = python
    workers: dict[str, Any] = {"machineType": "n1-standard-8", "replicas": 1}
    if gpu:
        workers["accelerator"] = {"type": "NVIDIA_TESLA_T4", "count": 1}
    return {"apiVersion": "trainjobs/v1", "kind": "TrainingJob", "metadata": {"name": "legacy_runtime"},
            "spec": {"region": "us-central1", "application": {"pythonPackage": pkg},
                     "workerPools": {"chief": {"machineType": "n1-standard-8"}, "workers": workers}}}


def found(data: dict[str, Any], ctx: Context, rule: str) -> list[Any]:
    return [p for p in validate_data(data, "legacy.yaml", ctx).problems if p.rule == rule]


@pytest.mark.parametrize(("runtime", "python", "gpu", "expected"), [
    ("2.11", "3.7", False, "tf-cpu.2-11"),
    ("2.11", "3.7", True, "tf-gpu.2-11"),
    ("1.15", "3.7", True, "tf-gpu.1-15"),
    ("2.11", None, False, "tf-cpu.2-11"),  # runtimes after 1.15 ran Python 3.7 only
    ("1.15", "2.7", False, None),  # no mapped container runs Python 2.7
    ("1.15", None, False, None),  # before 2020-01-13 no pythonVersion meant 2.7 up to runtime 1.15
    ("1.14", "3.5", False, None),  # no container of runtime 1.14
    ("9.9", "3.7", False, None),
])
def test_the_implied_container_follows_runtime_python_and_gpu(runtime: str, python: str | None, gpu: bool,
                                                              expected: str | None) -> None:
    assert CATALOG.implied_container(runtime, python, gpu) == expected


def test_the_request_sends_the_implied_container() -> None:
    """The request asks the same home: each pool's executorImageUri is the container validation judges."""
    data = doc("2.11")
    job = validate_data(data, "legacy.yaml", Context()).job
    assert job is not None and isinstance(job.application, PythonPackage)
    images = {pool.gpus > 0: executor_image(job, pool) for pool in job.pools}
    assert images == {False: "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-11:latest",
                      True: "us-docker.pkg.dev/vertex-ai/training/tf-gpu.2-11:latest"}


def test_a_retired_runtime_container_is_named_and_judged_as_a_named_image() -> None:
    """Refused in a vertex stack while the containers page lists a served successor to name (2025-01-01: the
    request's tf-cpu.2-11 would be refused by the emulator too); a warning once the catalog lists none, as for a
    named image (rules/containers.py), and outside vertex stacks."""
    then = dt.date(2025, 1, 1)
    (cpu, gpu) = found(doc("2.11"), Context(target=Target.VERTEX, today=then), "runtime.end_of_availability")
    assert cpu.severity is Severity.ERROR and gpu.severity is Severity.ERROR
    assert cpu.message.startswith("runtimeVersion '2.11' with pythonVersion '3.7' runs the prebuilt container "
                                  "tf-cpu.2-11 on Vertex AI (pools without GPUs), which reached its end of "
                                  "availability on 2024-11-15: Vertex AI no longer serves it")
    assert "tf-gpu.2-11 on Vertex AI (pools with GPUs)" in gpu.message
    for target in (Target.ANY, Target.LOCAL):
        (warned, _) = found(doc("2.11"), Context(target=target, today=then), "runtime.end_of_availability")
        assert warned.severity is Severity.WARNING
    now = Context(target=Target.VERTEX, today=dt.date(2026, 11, 26))
    assert [p.severity for p in found(doc("2.11"), now, "runtime.end_of_availability")] == [Severity.WARNING] * 2
    named = doc("2.11", executorImage="us-docker.pkg.dev/vertex-ai/training/tf-gpu.2-11:latest")
    for day in (then, now.today):
        ctx = Context(target=Target.VERTEX, today=day)
        (implied,) = found(doc("2.11", gpu=False), ctx, "runtime.end_of_availability")
        (written,) = found(named, ctx, "container.end_of_availability")
        assert implied.severity is written.severity


def test_the_served_successor_is_named_while_there_is_one() -> None:
    """On 2025-01-01 tf-cpu.2-11 was gone and tf-cpu.2-17.py310 served (to 2026-07-11): the message names it,
    and the fix is an executorImage of it; once none is served the message says the catalog lists none."""
    (then,) = found(doc("2.11", gpu=False), Context(today=dt.date(2025, 1, 1)), "runtime.end_of_availability")
    assert then.message.endswith("(its served successor is tf-cpu.2-17.py310)")
    assert "tf-cpu.2-11 on Vertex AI (pools without GPUs), which" in then.message  # two such pools, said once
    assert then.allowed.startswith("executorImage: tf-cpu.2-17.py310 (us-docker.pkg.dev/vertex-ai/training/"
                                   "tf-cpu.2-17.py310:latest")
    (now,) = found(doc("2.11", gpu=False), Context(today=dt.date(2026, 11, 26)), "runtime.end_of_availability")
    assert "lists no tensorflow cpu container still served)" in now.message


def test_end_of_support_is_a_warning_with_the_day_it_stops() -> None:
    (warned,) = found(doc("2.11", gpu=False), Context(target=Target.VERTEX, today=dt.date(2024, 1, 1)),
                      "runtime.end_of_support")
    assert warned.severity is Severity.WARNING
    assert "past its end of patch and support (2023-11-15): Vertex AI serves it until 2024-11-15" in warned.message
    before = Context(target=Target.VERTEX, today=dt.date(2023, 1, 1))
    assert not [p for p in validate_data(doc("2.11"), "legacy.yaml", before).problems if p.rule.startswith("runtime.")]


def test_an_executor_image_or_a_pools_own_image_replaces_the_runtimes_container() -> None:
    day = Context(target=Target.VERTEX, today=dt.date(2025, 1, 1))
    named = doc("2.11", executorImage="us-docker.pkg.dev/p/r/trainer:1")
    assert not found(named, day, "runtime.end_of_availability")
    own = doc("2.11", gpu=False)
    own["spec"]["workerPools"]["workers"]["image"] = "us-docker.pkg.dev/p/r/worker:1"
    (chief,) = found(own, day, "runtime.end_of_availability")
    assert "tf-cpu.2-11 on Vertex AI (pools without GPUs)" in chief.message


def test_python_2_7_on_runtime_1_15_has_no_container() -> None:
    (none,) = found(doc("1.15", python="2.7", gpu=False), Context(target=Target.VERTEX), "runtime.container")
    assert none.severity is Severity.ERROR
    assert none.message == ("runtimeVersion '1.15' with pythonVersion '2.7' has no Vertex AI prebuilt training "
                            "container: tf-cpu.1-15, the container of runtime 1.15, runs Python 3.7")

