"""PersistentResources a stack declares, through the Pulumi program under mocks (up and preview),
and the dynamic provider's check and diff."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from provider.resources.job_request import decode

from .conftest import by_type, project_copy, registration, run_program, stack_config
from .host import ProviderHost

PERSISTENT = "pulumi-python:dynamic/trainjobs:PersistentResource"
JOB = "pulumi-python:dynamic/trainjobs:TrainingJob"
DECLARED = [{
    "id": "vision-l4",
    "displayName": "Vision L4 pool",
    "resourcePools": [{"id": "l4", "machineSpec": {"machineType": "g2-standard-24", "acceleratorType": "NVIDIA_L4",
                                                   "acceleratorCount": 2},
                       "replicaCount": 2, "diskSpec": {"bootDiskType": "pd-ssd", "bootDiskSizeGb": 200},
                       "autoscalingSpec": {"minReplicaCount": 1, "maxReplicaCount": 4}}],
    "labels": {"team": "vision"},
}]


def _with_target(tmp_path: Path) -> Path:
    project = project_copy(tmp_path)
    spec = project / "specs" / "vision" / "detector_l4.yaml"
    spec.write_text(spec.read_text() + "  persistentResourceId: vision-l4\n")
    return project


def _short(dep: str) -> str:
    return dep.rsplit("::", 1)[-1]


@pytest.mark.parametrize("preview", [False, True])
def test_a_vertex_stack_declares_its_persistent_resources_before_the_jobs(tmp_path: Path, preview: bool) -> None:
    project = _with_target(tmp_path)
    config = stack_config("vision-dev", project, **{"trainjobs:persistentResources": DECLARED})
    report = run_program(tmp_path, "vision-dev", config, project=project, preview=preview)
    assert report["error"] is None, report["error"]
    (name, resource), = by_type(report, PERSISTENT).items()
    assert name == "vision-vision-l4"
    inputs: dict[str, Any] = resource["inputs"]
    assert (inputs["persistentResourceId"], inputs["project"], inputs["region"]) == (
        "vision-l4", "acme-vision-dev", "us-central1")
    assert inputs["body"] == {
        "displayName": "Vision L4 pool", "labels": {"team": "vision"},
        "resourcePools": [{"id": "l4", "machineSpec": {"machineType": "g2-standard-24", "acceleratorType": "NVIDIA_L4",
                                                        "acceleratorCount": 2},
                           "replicaCount": "2", "diskSpec": {"bootDiskType": "pd-ssd", "bootDiskSizeGb": 200},
                           "autoscalingSpec": {"minReplicaCount": "1", "maxReplicaCount": "4"}}]}
    jobs = by_type(report, JOB)
    target = jobs["vision_detector_l4"]["inputs"]
    if not preview:  # in a preview the request waits for the service account: unknown
        with ProviderHost(cwd=project) as host:  # the provider's Check builds the request
            checked, failures = host.check(report["dynamicInputs"]["vision_detector_l4"], name="vision_detector_l4")
        assert failures == [] and decode(checked["request"])["jobSpec"]["persistentResourceId"] == "vision-l4"
    assert target["persistentResources"] == ["vision-l4"]
    assert "vision-vision-l4" in {_short(d) for d in registration(report, "vision_detector_l4")["dependencies"]}
    others = [n for n in jobs if n != "vision_detector_l4"]
    assert others and all("vision-vision-l4" not in {_short(d) for d in registration(report, n)["dependencies"]}
                          for n in others)


def test_a_job_naming_an_undeclared_resource_fails_the_program(tmp_path: Path) -> None:
    project = _with_target(tmp_path)
    config = stack_config("vision-dev", project, **{"trainjobs:persistentResources": [{**DECLARED[0], "id": "other"}]})
    report = run_program(tmp_path, "vision-dev", config, project=project)
    error = report["error"] or ""
    assert "RunError" in error and "specs/vision/detector_l4.yaml:27:25: persistentResourceId 'vision-l4' is not a " \
        "PersistentResource this stack declares" in error, error
    assert not by_type(report, PERSISTENT) and not by_type(report, JOB)


def test_a_local_stack_warns_and_runs_its_jobs_as_usual(tmp_path: Path) -> None:
    config = stack_config("local", **{"trainjobs:persistentResources": DECLARED})
    report = run_program(tmp_path, "local", config)
    assert report["error"] is None, report["error"]
    assert not by_type(report, PERSISTENT) and by_type(report, JOB)
    assert any("vision-l4" in w and "not emulated locally" in w for w in report["warnings"]), report["warnings"]


def test_an_emulator_stack_declares_them_at_the_emulator(tmp_path: Path) -> None:
    """The emulator serves persistentResources (provider/emulator/persistent.py): declared there, as on Vertex AI."""
    config = stack_config("vision-dev", **{"trainjobs:persistentResources": DECLARED,
                                           "trainjobs:apiEndpoint": "http://127.0.0.1:9"})
    report = run_program(tmp_path, "vision-dev", config)
    assert report["error"] is None, report["error"]
    (resource,) = by_type(report, PERSISTENT).values()
    assert resource["inputs"]["apiEndpoint"] == "http://127.0.0.1:9" and by_type(report, JOB)
    assert not any("vision-l4" in w for w in report["warnings"]), report["warnings"]


def test_the_provider_checks_and_replaces() -> None:
    from provider.resources.persistent_resource import PersistentResourceProvider, check_failures

    good = {"persistentResourceId": "vision-l4", "project": "p", "region": "us-central1",
            "body": {"resourcePools": [{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1"}]}}
    assert check_failures(good) == []
    bad = check_failures({**good, "persistentResourceId": "Vision_L4", "body": {"resourcePools": []}})
    assert [(f.property, f.reason.split(";")[0]) for f in bad] == [
        ("persistentResourceId", "persistentResourceId 'Vision_L4' is not a valid ID"),
        ("body", "body.resourcePools is empty")]
    provider = PersistentResourceProvider()
    same = provider.diff("id", good, dict(good))
    assert same.changes is False and same.replaces == []
    moved = provider.diff("id", good, {**good, "region": "europe-west4"})
    assert moved.changes is True and moved.replaces == ["region"] and moved.delete_before_replace is True


def test_a_pool_that_does_not_fit_its_machine_fails_the_program(tmp_path: Path) -> None:
    pool = {**DECLARED[0]["resourcePools"][0], "machineSpec": {  # type: ignore[index]
        "machineType": "g2-standard-24", "acceleratorType": "NVIDIA_L4", "acceleratorCount": 3}}
    config = stack_config("vision-dev", **{"trainjobs:persistentResources": [{**DECLARED[0], "resourcePools": [pool]}]})
    report = run_program(tmp_path, "vision-dev", config)
    error = report["error"] or ""
    assert "stack vision-dev: its config is invalid" in error and "PersistentResource 'vision-l4', pool l4: 3 x " \
        "NVIDIA_L4 is not a valid count on g2-standard-24" in error and "2 x NVIDIA_L4 on g2-standard-24" in error, error
    assert not by_type(report, PERSISTENT) and not by_type(report, JOB)
